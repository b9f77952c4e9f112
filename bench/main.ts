/**
 * Benchmark: N generations requested at once on one key, through our client
 * and through a naive client (submit everything, poll each task every second),
 * against the local emulator with time scaled down. Prints 429s, requests
 * spent, completions and wall time for both.
 *
 *   npm run bench -- [--generations 40] [--time-scale 0.05]
 */
import { parseArgs } from 'node:util';
import { MemoryBudgetStore, parseLimits, systemClock, TtsClients } from '../src/tts/index.ts';
import { type Emulator, startEmulator, USER_ONE } from '../tools/emulator/index.ts';

const { values } = parseArgs({
  options: {
    generations: { type: 'string', default: '40' },
    'time-scale': { type: 'string', default: '0.05' },
  },
});
const count = Number(values.generations);
const scale = Number(values['time-scale']);
const minute = Math.round(60_000 * scale);
const text = 'The quick brown fox jumps over the lazy dog, again and again.';

interface Result {
  client: string;
  completed: number;
  failed: number;
  responses429: number;
  submits: number;
  polls: number;
  seconds: number;
}

async function ours(emulator: Emulator): Promise<Result> {
  const limits = parseLimits(
    `generate=20/${minute}ms+500/${86_400 * scale}s,status=60/${minute}ms,voices=10/${minute}ms,health=100/${minute}ms`,
  );
  const clients = new TtsClients({
    baseUrl: emulator.baseUrl,
    media: { origins: [emulator.mediaOrigin], maxBytes: 10_000_000, timeoutMs: 10_000 },
    budgets: new MemoryBudgetStore(limits),
    clock: systemClock,
    requestTimeoutMs: 10_000,
    maxRetries: 4,
    maxBudgetWaitMs: 10 * minute,
    pollDeadlineMs: 20 * minute,
    pollIntervalMs: { min: 1000 * scale, max: 2000 * scale },
    voicesTtlMs: minute,
    onBackgroundError: () => undefined,
  });
  const client = clients.forKey(USER_ONE.apiKey);
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, () =>
      client.generate({ text, voiceId: 'af_3kbq21leo', model: 'base' }),
    ),
  );
  return tally('ours', emulator, outcomes);
}

async function naive(emulator: Emulator): Promise<Result> {
  const headers = { 'x-api-key': USER_ONE.apiKey, 'content-type': 'application/json' };
  const one = async (): Promise<string> => {
    const submitted = await fetch(`${emulator.baseUrl}/tts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ text, voice: 'af_3kbq21leo', model: 'base' }),
    });
    if (!submitted.ok) throw new Error(`submit ${submitted.status}`);
    const { generation_id: id } = (await submitted.json()) as { generation_id: string };
    for (let attempt = 0; attempt < 60; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1000 * scale));
      const status = await fetch(`${emulator.baseUrl}/status?generation_id=${id}`, { headers });
      if (!status.ok) continue;
      const record = (await status.json()) as { status: string; audio_url: string | null };
      if (record.status === 'Completed' && record.audio_url) return record.audio_url;
    }
    throw new Error('gave up');
  };
  const outcomes = await Promise.allSettled(Array.from({ length: count }, one));
  return tally('naive', emulator, outcomes);
}

let started = 0;
function tally(
  client: string,
  emulator: Emulator,
  outcomes: PromiseSettledResult<unknown>[],
): Result {
  const counts = emulator.counts();
  const all429 = Object.values(counts).reduce((sum, c) => sum + (c.byStatus[429] ?? 0), 0);
  return {
    client,
    completed: outcomes.filter((o) => o.status === 'fulfilled').length,
    failed: outcomes.filter((o) => o.status === 'rejected').length,
    responses429: all429,
    submits: counts['POST /v2/tts']?.total ?? 0,
    polls: counts['GET /v2/status']?.total ?? 0,
    seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
  };
}

const emulator = await startEmulator({
  synth: 'tone',
  timeScale: scale,
  generationMs: (_m, length) => (800 + 15 * length) * scale * 10,
});
const results: Result[] = [];
try {
  for (const run of [ours, naive]) {
    emulator.reset();
    started = performance.now();
    results.push(await run(emulator));
  }
} finally {
  await emulator.close();
}
console.log(
  `${count} generations at once on one key; emulator minute = ${minute} ms (time scale ${scale})`,
);
console.table(results);
console.log(`heap used: ${(process.memoryUsage().heapUsed / 1e6).toFixed(1)} MB`);
