import {
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  SlashCommandBuilder,
} from 'discord.js';
import { afterEach, expect, test } from 'vitest';
import { shardOf } from './gateway.ts';
import { type FakeDiscord, startFakeDiscord } from './index.ts';

let fake: FakeDiscord | undefined;
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.destroy()));
  await fake?.close();
  fake = undefined;
});

/** A discord.js client running one shard of `count`, as a ShardingManager child would. */
async function shardClient(discord: FakeDiscord, id: number, count: number) {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    rest: { api: discord.apiUrl },
    shards: [id],
    shardCount: count,
  });
  clients.push(client);
  const seen: Interaction[] = [];
  client.on(Events.InteractionCreate, (interaction) => {
    seen.push(interaction);
  });
  const ready = new Promise((resolve) => client.once(Events.ClientReady, resolve));
  await client.login(discord.token);
  await ready;
  return { client, seen };
}

test('with shards: 2, each shard gets its own guilds and only their events', async () => {
  fake = await startFakeDiscord({ shards: 2, guilds: [{}, {}, {}] });
  const ids = fake.guilds.map((guild) => guild.id);
  expect(ids.map((id) => shardOf(id, 2))).toEqual([0, 1, 0]);
  const gatewayBot = await fetch(`${fake.apiUrl}/v10/gateway/bot`, {
    headers: { authorization: `Bot ${fake.token}` },
  }).then((response) => response.json() as Promise<{ shards: number }>);
  expect(gatewayBot.shards).toBe(2);

  const [zero, one] = await Promise.all([shardClient(fake, 0, 2), shardClient(fake, 1, 2)]);
  await fake.whenReady();
  expect([...zero.client.guilds.cache.keys()].sort()).toEqual([ids[0], ids[2]].sort());
  expect([...one.client.guilds.cache.keys()]).toEqual([ids[1]]);

  const command = new SlashCommandBuilder().setName('ping').setDescription('Ping');
  await zero.client.application?.commands.set([command.toJSON()]);
  const second = fake.guilds[1];
  if (second === undefined) throw new Error('no second guild');
  const handle = fake.slash({
    user: 'member',
    name: 'ping',
    channelId: second.textChannelId,
  });
  await expect.poll(() => one.seen.length).toBe(1);
  expect(one.seen[0]?.id).toBe(handle.id);
  expect(zero.seen).toEqual([]);
});
