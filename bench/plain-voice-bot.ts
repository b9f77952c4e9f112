/**
 * The plain voice bot the many-voices bench (`bench/many-voices.ts`) compares the bot with, run
 * as a process of its own: per server one voice connection, and per item submit, poll, download
 * and one ffmpeg into Ogg Opus (libopus, 96 kb/s) played by `@discordjs/voice`, as its guide
 * shows. No loudness filter, no cache, nothing started ahead.
 *
 * Configured by `PLAIN_BOT_CONFIG` (JSON, {@link PlainConfig}); reads rounds as JSON lines on
 * stdin and answers JSON lines on stdout: `{ready}`, then per round `{done, loopP99Ms, failed}`.
 */
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AudioPlayerStatus,
  createAudioPlayer,
  createAudioResource,
  type DiscordGatewayAdapterCreator,
  entersState,
  joinVoiceChannel,
  StreamType,
  VoiceConnectionStatus,
} from '@discordjs/voice';
import { voiceState } from '../test/fake-discord/voice/test-client.ts';
import { PLAIN_FFMPEG_ARGS } from './many-voices-floor.ts';

/** One server of the plain bot: its voice session, opened on the fake by the parent, and its key. */
export interface PlainGuild {
  readonly guildId: string;
  readonly channelId: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly endpoint: string;
  readonly token: string;
  readonly apiKey: string;
}

/** What the plain bot is told at start. */
export interface PlainConfig {
  readonly baseUrl: string;
  readonly voiceId: string;
  readonly guilds: readonly PlainGuild[];
}

/** One round: each server speaks its texts one after another, all servers at once. */
export interface PlainRound {
  readonly round: string;
  readonly texts: Readonly<Record<string, readonly string[]>>;
}

function adapterFor(guild: PlainGuild): DiscordGatewayAdapterCreator {
  return (methods) => ({
    sendPayload(payload: { op: number; d: Record<string, unknown> }) {
      if (payload.op !== 4 || typeof payload.d.channel_id !== 'string') return true;
      setImmediate(() => {
        methods.onVoiceStateUpdate(
          voiceState(guild.guildId, guild.channelId, guild.userId, guild.sessionId),
        );
        methods.onVoiceServerUpdate({
          guild_id: guild.guildId,
          token: guild.token,
          endpoint: guild.endpoint,
        });
      });
      return true;
    },
    destroy() {
      // nothing to let go: the parent opened the session
    },
  });
}

async function generate(config: PlainConfig, apiKey: string, text: string): Promise<string> {
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const body = JSON.stringify({ text, voice: config.voiceId, model: 'base' });
  const submitted = await fetch(`${config.baseUrl}/tts`, { method: 'POST', headers, body });
  if (!submitted.ok) throw new Error(`submit answered ${submitted.status}`);
  const { generation_id: id } = (await submitted.json()) as { generation_id: string };
  for (let polls = 0; polls < 600; polls++) {
    await sleep(250);
    const answer = await fetch(`${config.baseUrl}/status?generation_id=${id}`, { headers });
    if (!answer.ok) {
      await answer.body?.cancel();
      if (answer.status !== 429) throw new Error(`status answered ${answer.status}`);
      continue;
    }
    const record = (await answer.json()) as { status: string; audio_url?: string | null };
    if (record.status === 'Completed' && record.audio_url) return record.audio_url;
  }
  throw new Error(`${id} never completed`);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env.PLAIN_BOT_CONFIG ?? '{}') as PlainConfig;
  const players = new Map<string, ReturnType<typeof createAudioPlayer>>();
  await Promise.all(
    config.guilds.map(async (guild) => {
      const connection = joinVoiceChannel({
        guildId: guild.guildId,
        channelId: guild.channelId,
        adapterCreator: adapterFor(guild),
        selfDeaf: true,
      });
      await entersState(connection, VoiceConnectionStatus.Ready, 30_000);
      const player = createAudioPlayer();
      connection.subscribe(player);
      players.set(guild.guildId, player);
    }),
  );
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const say = (line: Record<string, unknown>): void => {
    process.stdout.write(`${JSON.stringify(line)}\n`);
  };
  say({ ready: true });
  const speak = async (guild: PlainGuild, text: string): Promise<void> => {
    const player = players.get(guild.guildId);
    if (player === undefined) throw new Error('no player');
    const audioUrl = await generate(config, guild.apiKey, text);
    const download = await fetch(audioUrl);
    const ffmpeg = spawn('ffmpeg', PLAIN_FFMPEG_ARGS, { stdio: ['pipe', 'pipe', 'ignore'] });
    ffmpeg.stdin.end(Buffer.from(await download.arrayBuffer()));
    player.play(createAudioResource(ffmpeg.stdout, { inputType: StreamType.OggOpus }));
    await entersState(player, AudioPlayerStatus.Playing, 30_000);
    await entersState(player, AudioPlayerStatus.Idle, 300_000);
  };
  for await (const line of createInterface({ input: process.stdin })) {
    const round = JSON.parse(line) as PlainRound;
    loop.reset();
    let failed = 0;
    await Promise.all(
      config.guilds.map(async (guild) => {
        for (const text of round.texts[guild.guildId] ?? []) {
          await speak(guild, text).catch((error: unknown) => {
            failed++;
            process.stderr.write(`plain bot: ${guild.guildId}: ${String(error)}\n`);
          });
        }
      }),
    );
    say({ done: round.round, loopP99Ms: loop.percentile(99) / 1e6, failed });
  }
}

await main();
process.exit(0);
