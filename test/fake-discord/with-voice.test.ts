import { once } from 'node:events';
import { entersState, joinVoiceChannel, VoiceConnectionStatus } from '@discordjs/voice';
import { Client, Events, GatewayIntentBits, type Guild } from 'discord.js';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from './index.ts';
import {
  type FakeVoiceServer,
  startFakeVoiceServer,
  trustFakeVoiceCertificate,
} from './voice/index.ts';

let fake: FakeDiscord | undefined;
let voice: FakeVoiceServer | undefined;
let client: Client | undefined;

beforeAll(async () => {
  await trustFakeVoiceCertificate();
});

afterEach(async () => {
  await client?.destroy();
  await fake?.close();
  await voice?.shutdown();
  client = undefined;
  fake = undefined;
  voice = undefined;
});

async function connectWithVoice(): Promise<{
  fake: FakeDiscord;
  voice: FakeVoiceServer;
  guild: Guild;
}> {
  voice = await startFakeVoiceServer({ heartbeatIntervalMs: 500 });
  fake = await startFakeDiscord({ voice });
  client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates],
    rest: { api: fake.apiUrl },
  });
  const ready = once(client, Events.ClientReady);
  await client.login(fake.token);
  await ready;
  const guild = client.guilds.cache.get(fake.guild.id);
  if (!guild) throw new Error('guild not cached');
  return { fake, voice, guild };
}

function join(fake: FakeDiscord, guild: Guild) {
  return joinVoiceChannel({
    guildId: guild.id,
    channelId: fake.guild.voiceChannelId,
    adapterCreator: guild.voiceAdapterCreator,
    selfDeaf: true,
  });
}

test('discord.js + @discordjs/voice reach Ready through the gateway hook; a leave ends the session', async () => {
  const { fake, voice, guild } = await connectWithVoice();
  const connection = join(fake, guild);
  await entersState(connection, VoiceConnectionStatus.Ready, 5000);
  expect(voice.connections()).toMatchObject([
    { guildId: fake.guild.id, channelId: fake.guild.voiceChannelId, userId: fake.botUser.id },
  ]);
  expect(fake.voiceStates()).toMatchObject([{ userId: fake.botUser.id, selfDeaf: true }]);

  connection.destroy();
  await expect.poll(() => voice.connections().length).toBe(0);
  expect(fake.voiceStates()).toEqual([]);
});

test('a server-side disconnect sends the connection to Disconnected (4014)', async () => {
  const { fake, guild } = await connectWithVoice();
  const connection = join(fake, guild);
  await entersState(connection, VoiceConnectionStatus.Ready, 5000);
  fake.disconnectBot();
  await entersState(connection, VoiceConnectionStatus.Disconnected, 3000);
  expect(connection.state).toMatchObject({ closeCode: 4014 });
  connection.destroy();
});
