/**
 * One round of the many-voices bench: the bot and the plain bot each speak the same texts in
 * every one of their servers at the same moment; what each cost (whole process trees, from
 * /proc) and how it sounded (packet arrivals at the fake voice server). Without a plain bot
 * (the capacity bench), the bot alone.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { FakeDiscord } from '../test/fake-discord/index.ts';
import type { FakeVoiceServer } from '../test/fake-discord/voice/index.ts';
import { gapsInside } from './many-voices-gaps.ts';
import type { PlainBot } from './many-voices-plain.ts';
import { treeUsage } from './many-voices-proc.ts';

/** Seconds of tone per character the emulator makes (60 ms: 158 characters ≈ 9.5 s). */
export const TONE_SECONDS_PER_CHAR = 0.06;

/** What one side (the bot or the plain bot) did in one round. */
export interface Side {
  /** CPU of the whole process tree (node and every ffmpeg), in ms. */
  readonly cpuMs: number;
  /** Of `cpuMs`, the node process's own (the rest is ffmpeg's). */
  readonly nodeMs: number;
  readonly speechMs: number;
  readonly gaps: number[];
  readonly loopP99Ms: number;
  /** Peak Pss of the whole tree during the round over its Pss before any server spoke, per server. */
  readonly bytesPerServer: number;
  readonly heardShare: number;
}

/** Each bot's whole-tree Pss (bytes) before any of its servers spoke: what memory is counted over. */
export interface Baseline {
  readonly ours: number;
  readonly plain: number;
}

/** What a round needs: the bot (and the plain bot beside it, if any), where they are heard, and what each server says. */
export interface RoundInput {
  readonly discord: FakeDiscord;
  readonly voiceServer: FakeVoiceServer;
  readonly botPid: number;
  readonly metrics: string;
  readonly plain?: PlainBot;
  readonly texts: readonly string[];
  readonly round: string;
  readonly baseline: Baseline;
  /** How long to wait, beyond the speech's own length, for every server to be heard (120 s unless told). */
  readonly patienceMs?: number;
  /**
   * Whether to sample memory (Pss, every 200 ms, in a worker thread: `many-voices-sampler.ts`)
   * while the servers speak: true unless told; without it, `bytesPerServer` is NaN.
   */
  readonly memory?: boolean;
}

/** Both bots' whole-tree Pss now, for the baseline (the plain bot's 0 when there is none). */
export function baselineNow(botPid: number, plainPid?: number): Baseline {
  const [ours, plain] = treeUsage(plainPid === undefined ? [botPid] : [botPid, plainPid]);
  return { ours: ours?.memoryBytes ?? 0, plain: plain?.memoryBytes ?? 0 };
}

/** Both bots speak `texts` in every server at once; what each cost and how it sounded. */
export async function speakRound(input: RoundInput & { plain: PlainBot }): Promise<[Side, Side]>;
/** The bot (and the plain bot, if given) speaks `texts` in every server at once. */
export async function speakRound(input: RoundInput): Promise<[Side, Side | undefined]>;
export async function speakRound(input: RoundInput): Promise<[Side, Side | undefined]> {
  const { discord, voiceServer, plain, texts } = input;
  const ourIds = discord.guilds.map((g) => g.id);
  const plainIds = plain?.guildIds ?? [];
  for (const id of [...ourIds, ...plainIds]) voiceServer.reset(id);
  await loopP99(input.metrics); // resets the bot's histogram
  const itemPackets = texts.map((t) => (t.length * TONE_SECONDS_PER_CHAR) / 0.02);
  const expected = itemPackets.reduce((a, b) => a + b, 0);
  const pids = plain === undefined ? [input.botPid] : [input.botPid, plain.pid];
  const memory = input.memory ?? true;
  const [oursAtStart, plainAtStart] = treeUsage(pids, memory);
  const peak = memory
    ? { ours: input.baseline.ours, plain: input.baseline.plain }
    : { ours: Number.NaN, plain: Number.NaN };
  const sample = () => {
    const [ours, theirs] = treeUsage(pids, memory);
    peak.ours = Math.max(peak.ours, ours?.memoryBytes ?? 0);
    peak.plain = Math.max(peak.plain, theirs?.memoryBytes ?? 0);
    return [ours, theirs] as const;
  };
  const sampler = memory
    ? new Worker(new URL('./many-voices-sampler.ts', import.meta.url), { workerData: { pids } })
    : undefined;
  const plainDone = plain?.round({
    round: input.round,
    texts: Object.fromEntries(plainIds.map((id) => [id, texts])),
  });
  void Promise.all(
    discord.guilds.map(async (guild) => {
      for (const [i, text] of texts.entries()) {
        // At most three pending per member (the playing one not counted): the fourth follows the first's sound.
        while (i >= 3 && voiceServer.received(guild.id).arrivals.length === 0) await sleep(20);
        discord.slash({
          user: 'member',
          name: 'say',
          channelId: guild.textChannelId,
          options: { text, output: 'voice' },
        });
        await sleep(100); // in order, as a chat sends them
      }
    }),
  );
  const heard = (id: string) => voiceServer.received(id).arrivals;
  const quietSince = (id: string) => Date.now() - (heard(id).at(-1) ?? 0);
  const deadline = Date.now() + (input.patienceMs ?? 120_000) + expected * 20;
  while (
    Date.now() < deadline &&
    !ourIds.every((id) => heard(id).length >= expected * 0.95 && quietSince(id) > 1000)
  ) {
    await sleep(250);
  }
  const ourLoop = await loopP99(input.metrics);
  const [oursAtEnd] = sample();
  const plainResult = await plainDone;
  if (plainResult !== undefined && plainResult.failed > 0)
    process.stderr.write(`plain bot: ${plainResult.failed} items failed\n`);
  if (plainResult !== undefined) await sleep(500);
  const [, plainAtEnd] = sample();
  if (sampler !== undefined) {
    const peaks = await new Promise<number[]>((resolve, reject) => {
      sampler.once('message', resolve);
      sampler.once('error', reject);
      sampler.postMessage('stop');
    });
    await sampler.terminate();
    peak.ours = Math.max(peak.ours, peaks[0] ?? 0);
    peak.plain = Math.max(peak.plain, peaks[1] ?? 0);
  }
  const used = (end: typeof oursAtEnd, start: typeof oursAtStart): [number, number] => [
    (end?.cpuMs ?? 0) - (start?.cpuMs ?? 0),
    (end?.ownCpuMs ?? 0) - (start?.ownCpuMs ?? 0),
  ];
  const side = (
    ids: readonly string[],
    [cpuMs, nodeMs]: [number, number],
    loop: number,
    grown: number,
  ): Side => {
    const packets = ids.reduce((s, id) => s + heard(id).length, 0);
    return {
      cpuMs,
      nodeMs,
      speechMs: packets * 20,
      gaps: ids.flatMap((id) => gapsInside(heard(id), itemPackets)),
      loopP99Ms: loop,
      bytesPerServer: grown / ids.length,
      heardShare: packets / (expected * ids.length),
    };
  };
  return [
    side(ourIds, used(oursAtEnd, oursAtStart), ourLoop, peak.ours - input.baseline.ours),
    plainResult === undefined
      ? undefined
      : side(
          plainIds,
          used(plainAtEnd, plainAtStart),
          plainResult.loopP99Ms,
          peak.plain - input.baseline.plain,
        ),
  ];
}

/** The bot's event-loop delay p99 in ms since the last scrape (prom-client resets it on each). */
async function loopP99(metrics: string): Promise<number> {
  const text = await (await fetch(metrics)).text();
  const match = /^nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? ([\d.e+-]+)/m.exec(text);
  return match?.[1] === undefined ? Number.NaN : Number(match[1]) * 1000;
}
