/**
 * The issue's acceptance check at real scale: 30 generations requested at once
 * on one key against the local emulator, with the client's default limits.
 * Prints the 429 count, submit and completion times; exits 1 if a criterion fails.
 * Run: `node tools/acceptance-30.ts [--time-scale 0.1]` (takes about 70 s at scale 1).
 */
import { parseArgs } from 'node:util';
import {
  DEFAULT_LIMITS,
  type Limits,
  MemoryBudgetStore,
  systemClock,
  TtsClients,
} from '../src/tts/index.ts';
import { defaultGenerationMs, startEmulator, USER_ONE } from './emulator/index.ts';

const { values } = parseArgs({ options: { 'time-scale': { type: 'string', default: '1' } } });
const scale = Number(values['time-scale']);
if (!(scale > 0)) throw new Error('--time-scale must be a positive number');
const minute = 60_000 * scale;

function scaled(limits: Limits): Limits {
  const each = (list: Limits[keyof Limits]) =>
    list.map((limit) => ({ count: limit.count, windowMs: Math.round(limit.windowMs * scale) }));
  return {
    generate: each(limits.generate),
    status: each(limits.status),
    voices: each(limits.voices),
    health: each(limits.health),
  };
}

const seconds = (ms: number): string => (ms / 1000).toFixed(2);
const text = (i: number) =>
  `Acceptance request number ${i + 1}: the quick brown fox jumps over the lazy dog.`;

const emulator = await startEmulator({
  synth: 'tone',
  timeScale: scale,
  generationMs: (model, length) => defaultGenerationMs(model, length) * scale,
});
const background: unknown[] = [];
// The bot's settings (src/bot.ts), with the limits scaled like the emulator.
const clients = new TtsClients({
  baseUrl: emulator.baseUrl,
  media: { origins: [emulator.mediaOrigin], maxBytes: 25 * 1024 * 1024, timeoutMs: 60_000 },
  budgets: new MemoryBudgetStore(scaled(DEFAULT_LIMITS)),
  clock: systemClock,
  requestTimeoutMs: 15_000,
  maxRetries: 4,
  maxBudgetWaitMs: 5 * minute,
  pollDeadlineMs: 5 * minute,
  pollIntervalMs: { min: 1000 * scale, max: 2000 * scale },
  voicesTtlMs: 10 * minute,
  onBackgroundError: (error) => background.push(error),
});
const client = clients.forKey(USER_ONE.apiKey);

console.log(`30 generations at once on one key; emulator minute = ${seconds(minute)} s`);
const start = Date.now();
const outcomes = await Promise.all(
  Array.from({ length: 30 }, (_, i) =>
    client
      .generate({ text: text(i), voiceId: 'am_2riuownnf', model: 'base' })
      .then((done) => ({ ok: true as const, done, at: Date.now() - start }))
      .catch((error: unknown) => ({ ok: false as const, error, at: Date.now() - start })),
  ),
);
const elapsed = Date.now() - start;
const counts = emulator.counts();
const posts = emulator.requests.filter((entry) => entry.endpoint === 'POST /v2/tts');
await emulator.close();

const too429 = Object.entries(counts).map(([name, count]) => [name, count?.byStatus[429] ?? 0]);
const total429 = too429.reduce((sum, [, n]) => sum + Number(n), 0);
const submitOffsets = posts.map((entry) => entry.at - start);
const completed = outcomes.filter((outcome) => outcome.ok);
const completionTimes = completed.map((outcome) => outcome.at).sort((a, b) => a - b);
const firstMinute = submitOffsets.filter((offset) => offset < minute).length;
const secondMinute = submitOffsets.filter((o) => o >= minute && o < 2 * minute).length;

console.log(`requests per endpoint: ${JSON.stringify(counts)}`);
console.log(`429 responses: ${total429} (${too429.map(([n, c]) => `${n}: ${c}`).join(', ')})`);
console.log(`completed: ${completed.length}/30 in ${seconds(elapsed)} s`);
console.log(`submits (s after start): ${submitOffsets.map(seconds).join(' ')}`);
console.log(`  in the first minute: ${firstMinute}, in the next: ${secondMinute}`);
console.log(`completions (s after start): ${completionTimes.map(seconds).join(' ')}`);
for (const outcome of outcomes) {
  if (!outcome.ok) console.log(`failed: ${String(outcome.error)}`);
}
if (background.length > 0) console.log(`background errors: ${background.length}`);

const pass =
  total429 === 0 &&
  completed.length === 30 &&
  posts.length === 30 &&
  firstMinute === 20 &&
  secondMinute === 10;
console.log(pass ? 'PASS' : 'FAIL');
process.exitCode = pass ? 0 : 1;
