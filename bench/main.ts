/**
 * `npm run bench`: the bot against a naive client (submit, poll every second, download, then
 * transcode), on the local emulator and the fake Discord, in one run. Prints the table and
 * writes bench/RESULTS.md with the machine, the date and the commit. It reports; it never
 * fails on a timing (only when a section cannot run at all).
 *
 *   npm run bench                         # the default sections (DEFAULT_SECTIONS), within 12 minutes on 2 cores
 *   npm run bench -- --only polling,delivery
 *   npm run bench -- --only shapes      # issue 29: the poll schedule on six API shapes, fresh and warm
 *   npm run bench -- --only chat,spammy,twitch,v3,acceptance   # not run by default
 *   npm run bench -- --only pace,dave,quiet,budget   # issues 28, 30, 31: minutes each, by name
 *   npm run bench -- --only coldstart   # the bot freshly started: its first 6 /say
 *   npm run bench -- --only voiceflood  # issue 39: 600 `!voice` lines, 2,000 choices stored (CPU per line)
 *   npm run bench -- --only v3,twitch   # issues 21 and 18: v3 streaming, a busy Twitch chat
 *   npm run bench -- --only voices   # issue 38: 12/24/48 servers (WAV) and 24 (MP3) speaking at once beside a plain bot
 *   npm run bench -- --only capacity # issue 38: servers speaking at once one core holds without a gap (8…48)
 *   npm run bench -- --quick              # smaller runs, for a quick look (not for the README)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../tools/local-stack/index.ts';
import { acceptanceBench } from './acceptance.ts';
import { apiShapesBench } from './api-shapes.ts';
import { blocklistBench } from './blocklist.ts';
import { budgetBench } from './budget.ts';
import { chatBench, spammyChatBench } from './chat.ts';
import { coldStartBench } from './cold-start.ts';
import { daveBench } from './dave.ts';
import { deliveryBench } from './delivery.ts';
import { pollingBench } from './polling.ts';
import { quietChatBench } from './quiet-chat.ts';
import { saturationBench } from './saturation.ts';
import { scaleBench } from './scale.ts';
import { stalledReaderBench } from './stalled-reader.ts';
import { markdownTable, oursRow, type Row } from './stats.ts';
import { twitchChatBench } from './twitch-chat.ts';
import { v3Bench } from './v3.ts';
import { v3MidPlayBench } from './v3-midplay.ts';
import { v3PaceBench } from './v3-pace.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    /** Where to write the report; by default bench/RESULTS.md, and only when every section ran. */
    out: { type: 'string' },
  },
});
const quick = values.quick;
/** The busy chat's size, as the chat section plays it (its own copy: chat.ts is changing). */
const busyChatPlan = {
  messages: quick ? 120 : 300,
  members: 20,
  chatMs: quick ? 120_000 : 300_000,
  timeScale: quick ? 0.1 : 0.2,
};
const sections: Record<string, () => Promise<Row[]>> = {
  polling: () =>
    pollingBench(
      quick ? { warmUp: 6, oneAtATime: 8, atOnce: 20 } : { warmUp: 8, oneAtATime: 24, atOnce: 20 },
    ),
  coldstart: () => coldStartBench(6),
  delivery: () =>
    deliveryBench(quick ? { warmUp: 2, files: 4, voice: 4 } : { warmUp: 3, files: 10, voice: 10 }),
  saturation: () =>
    saturationBench({ members: 10, perMember: quick ? 4 : 10, timeScale: quick ? 0.1 : 0.25 }),
  chat: () =>
    chatBench({
      messages: quick ? 120 : 300,
      members: 20,
      chatMs: quick ? 120_000 : 300_000,
      timeScale: quick ? 0.1 : 0.2,
    }),
  spammy: () =>
    spammyChatBench({
      messages: quick ? 120 : 300,
      members: 20,
      chatMs: quick ? 120_000 : 300_000,
      timeScale: quick ? 0.1 : 0.2,
    }),
  scale: () =>
    scaleBench(
      quick
        ? { servers: [100, 500], speaking: 5, windowMs: 3000 }
        : { servers: [1000, 5000], speaking: 20, windowMs: 8000 },
    ),
  acceptance: () => acceptanceBench(quick ? 22 : 30),
  // Issue 18: the busy chat above, read from a Twitch channel, beside the same chat on Discord.
  twitch: () => twitchChatBench(busyChatPlan),
  // Issue 29: the poll schedule against six API shapes (fresh and warm), beside the naive client.
  shapes: () => apiShapesBench({ count: quick ? 14 : 30 }),
  // Issue 21: /say's first voice packet on v2 and on v3 streaming, and the busy chat on v3.
  // Issue 27: screening a text against blocked words, the worst list the settings allow included.
  blocklist: () => blocklistBench(),
  v3: () =>
    v3Bench({
      warmUp: quick ? 1 : 2,
      voice: quick ? 5 : 10,
      chat: busyChatPlan,
      concurrentJobs: 5,
    }),
  // Issue 39: CPU per `!voice` line in a flood, with 2,000 chosen voices stored (beside the Twitch chat rows).
  voiceflood: async () =>
    (await import('./voice-flood.ts')).voiceFloodBench({
      lines: 600,
      stored: 2000,
      perSecond: quick ? 300 : 100,
    }),
  // Issue 27: CPU per chat message while generation is stalled, 1,000 and 5,000 posted.
  stalled: () => stalledReaderBench({ prefills: [1000, 5000], measured: quick ? 200 : 1000 }),
  // Issue 31: the time to decide a chat line's language (per line, p99), and the identifier's cost.
  language: async () => (await import('./language.ts')).languageBench(),
  // Review of w-cheer: the CPU of one hostile cheer's cheermote search (worst 500-character lines).
  cheers: async () => (await import('./cheers.ts')).cheersBench(),
  // Issue 28: v3 streams at 2×, 1× and 0.5× real time, heard in full.
  pace: async () => [
    ...(await v3PaceBench(quick ? 3 : 6)),
    ...(await v3MidPlayBench(quick ? 3 : 6)),
  ],
  dave: () =>
    daveBench(quick ? { warmUp: 1, voice: 4, servers: 10 } : { warmUp: 2, voice: 10, servers: 30 }),
  // Issue 31: the busy chat on v3 without and with a daily budget (half its spend).
  budget: () => budgetBench(busyChatPlan),
  // Issue 30: a quiet chat (a message every 10–20 s) heard at once, v2 and v3 (7.5 min: by --only).
  // Issue 38: 12, 24 and 48 servers speaking at once (WAV; MP3 at 24), beside a plain bot (minutes: by name).
  // Env: BENCH_VOICES_QUICK (servers with --quick, default 4), BENCH_VOICES_FORMATS (wav,mp3,ogg),
  // BENCH_VOICES_GENERATION (spread, MIN-MAX or fixed ms), BENCH_BOT_NODE_OPTIONS (e.g. --cpu-prof).
  voices: async () => {
    const plan = await import('./many-voices-plan.ts');
    return (await import('./many-voices.ts')).manyVoicesBench({
      runs: plan.voicesRuns(quick, process.env),
      generation: plan.generationShape(process.env.BENCH_VOICES_GENERATION),
      longChars: 158,
      shortChars: [32, 40, 30, 36],
      ...(process.env.BENCH_BOT_NODE_OPTIONS === undefined
        ? {}
        : { botNodeOptions: process.env.BENCH_BOT_NODE_OPTIONS }),
    });
  },
  // Issue 38: how many servers speaking at once one core holds without a gap (the bot alone, pinned
  // to core 1, the receiver on core 0; about 8 minutes: by name). Env: BENCH_CAPACITY_STEPS (8,16,…),
  // BENCH_VOICES_GENERATION as for voices.
  capacity: async () =>
    (await import('./capacity.ts')).capacityBench({
      steps: (await import('./capacity-plan.ts')).capacitySteps(process.env.BENCH_CAPACITY_STEPS),
      generation: (await import('./many-voices-plan.ts')).generationShape(
        process.env.BENCH_VOICES_GENERATION,
      ),
      longChars: 158,
      shortChars: [32, 40, 30, 36],
    }),
  // Issue 38: Opus settings for speech, weighed by log-spectral distance to the source and CPU.
  opus: async () => (await import('./opus-quality.ts')).opusQualityBench(),
  quiet: () => quietChatBench({ messages: quick ? 8 : 30, minGapMs: 10_000, maxGapMs: 20_000 }),
};
/**
 * What `npm run bench` runs without `--only`: within 12 minutes on the project's 2-core machine
 * (about 9 minutes: 690 s of sections at 55bf875 with `chat`, 177 s of it). The others are run by
 * name, each taking minutes: `chat`, `spammy`, `twitch`, `v3` and `budget` replay the busy chat
 * (about 3 minutes each), `pace` plays v3 streams at three paces with faults mid-play, `dave`
 * starts two bots (DAVE on and off), `quiet` posts a message every 10–20 s (7.5 minutes), and
 * `acceptance` has its own script (`npm run bench:acceptance`).
 */
const DEFAULT_SECTIONS = [
  'polling',
  'coldstart',
  'shapes',
  'delivery',
  'saturation',
  'scale',
  'blocklist',
  'stalled',
  'voiceflood',
  'language',
];
const chosen = values.only?.split(',').map((s) => s.trim()) ?? DEFAULT_SECTIONS;
for (const name of chosen) {
  if (!(name in sections)) throw new Error(`unknown section "${name}" (${Object.keys(sections)})`);
}

const rows: Row[] = [];
const timings: string[] = [];
let failed = false;
const started = Date.now();
const loadAtStart = loadavg()[0] ?? 0;
for (const name of chosen) {
  const run = sections[name];
  if (run === undefined) continue;
  const at = Date.now();
  process.stderr.write(`bench: ${name}…\n`);
  try {
    rows.push(...(await run()));
  } catch (error) {
    failed = true;
    const message = error instanceof Error ? error.message : String(error);
    rows.push(oursRow(name, `could not run: ${message}`, ''));
  }
  timings.push(`${name} ${((Date.now() - at) / 1000).toFixed(0)} s`);
}
const totalSeconds = ((Date.now() - started) / 1000).toFixed(0);

const table = markdownTable(rows);
const machine = describeMachine();
const report = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench${quick ? ' -- --quick' : ''}\`${values.only ? ` (\`--only ${values.only}\`)` : ''}: do not edit by hand.`,
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Commit: ${machine.commit}`,
  `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory}; Node ${process.versions.node}; ${machine.ffmpeg}`,
  `- Wall time: ${totalSeconds} s (${timings.join(', ')}); load average ${loadAtStart.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end (other work on the machine slows the timings)`,
  '',
  table,
  '',
  '## How each figure is measured',
  '',
  '- Everything runs on 127.0.0.1: the TTS emulator (tone audio, 800 ms + 15 ms per character to generate),',
  '  the fake Discord and its fake voice server; the bot runs as a child process (`node src/main.ts`),',
  '  except in Polling and Acceptance, which drive the bot’s TTS client with its production settings.',
  '- Naive client: submit (again every second while refused), poll every second, download the whole file,',
  '  then upload it or transcode all of it (loudnorm, Opus) before a first packet could go. In Saturation and',
  '  Busy chat it runs at the same time as the bot, on its own key (the emulator counts keys apart).',
  '- Notice lag: a task turning `Completed` on the emulator → the first status poll that arrives after it.',
  '  Ours is measured after a warm-up of a few generations, since the bot times its polls from what it learned.',
  '- Cold start: the bot freshly started on an empty store (nothing learned, so its polls start from the prior',
  '  of the API’s shape), its first 6 `/say` one at a time as files, and the naive client on the same lengths',
  '  side by side; polls and notice lag from the emulator’s log, as in Polling.',
  '- Delivery: the answer to the poll that saw `Completed` → the attachment at the fake Discord, or the first',
  '  audio packet at the fake voice server (one `/say` at a time).',
  '- Saturation: time scaled for the emulator and the bot alike (`TTS_LIMITS`); generations per minute counts',
  '  the whole windows’ worth that followed the first window’s 20, from the last of those 20 to the last of',
  '  them (how the first 20 were spread is start-up, not rate). Fairness: each member’s median wait.',
  '- Busy chat: time scaled like Saturation, and the audio (tone seconds per character) and the reader’s',
  '  default max-age with it; a seeded chat of 12–80 character messages at uniformly drawn times. Drained: the',
  '  first message → the last audio packet at the fake voice server, once `/queue` shows nothing waiting.',
  '  Read: messages whose text is in a generation whose audio the bot downloaded. The naive client generates',
  '  each message as it is posted (on its own key, in the same run); its drain is when its audio, played in',
  '  order back to back, would end.',
  '- Spammy chat: the Busy chat’s scale and times, but a third of the messages are repeats of a few phrases',
  '  (`LUL`, `kekw`, `PogChamp`…) and one member posts a fifth of everything. Read by the bot, then by the same',
  '  bot with `READER_BUSY_CHAT=off` (the reader before issue 19: no chorus, share or speed-up), each on a fresh',
  '  stack. Heard: messages whose text is in a downloaded generation, each repeated phrase spoken, plus the',
  '  bot’s count of messages heard in a chorus (`/queue`). The flooder’s share: their messages heard over all heard.',
  '- Scale: VmRSS of the bot process after login (lowest of five samples); CPU of the bot and its ffmpeg',
  '  children from /proc while every server speaks; jitter from the arrival times at the fake voice server,',
  '  which shares the 2 cores with everything else.',
  '- Timings vary between runs on a shared machine; the table is one run.',
  '',
].join('\n');
const out =
  values.out ?? (values.only === undefined ? join(REPO_ROOT, 'bench', 'RESULTS.md') : undefined);
if (out !== undefined) writeFileSync(out, report + keptSections(out));
console.log(table);
console.log(
  `\n${timings.join(', ')}; total ${totalSeconds} s. ${out === undefined ? 'Not written (--only; give --out to write).' : `Written to ${out}`}`,
);
if (failed) process.exitCode = 1;

/**
 * Sections recorded from runs by name (`--only`), each under a `## By name: …` heading at the
 * end of the file: the default run rewrites the rest and keeps these.
 */
function keptSections(path: string): string {
  const existing = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const at = existing.indexOf('\n## By name: ');
  return at === -1 ? '' : existing.slice(at);
}

function describeMachine() {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  const dirty =
    git(['status', '--porcelain', '--untracked-files=no']) === '' ? '' : ' (with local changes)';
  let ffmpeg = 'ffmpeg unknown';
  try {
    ffmpeg =
      execFileSync('ffmpeg', ['-version'], { encoding: 'utf8' })
        .split('\n')[0]
        ?.replace(/ Copyright.*$/, '') ?? ffmpeg;
  } catch {
    // reported as unknown
  }
  return {
    cpu,
    cores: cpus().length,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GB RAM`,
    commit: `${git(['rev-parse', '--short', 'HEAD']) || 'unknown'}${dirty}`,
    ffmpeg,
  };
}
