/** Helpers for testing the real TTS client on v3 against the local emulator (no HTTP mocks). */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  type BudgetStore,
  type JobSlots,
  type Limits,
  MemoryBudgetStore,
  MemoryJobSlots,
  parseLimits,
  type TtsClientOptions,
  V3_DEFAULT_LIMITS,
} from '../../src/tts/index.ts';
import { v3Protocol } from '../../src/tts/v3/index.ts';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../tools/emulator/index.ts';
import { clientsFor, TIME_SCALE } from './emulated.ts';

/** The v3 allowance of the smallest plan (120 a minute) shrunk to an emulator at {@link TIME_SCALE}. */
export const SCALED_V3_LIMITS: Limits = parseLimits('request=120/600ms', V3_DEFAULT_LIMITS);

/** Emulator settings for client tests: tone speech, scaled windows, quick jobs and streams. */
export const FAST_V3: EmulatorOptions = {
  synth: 'tone',
  timeScale: TIME_SCALE,
  generationMs: () => 30,
  queueMs: 10,
  streamChunkMs: 100,
  streamSpeed: 20,
};

/** Starts an emulator for one describe block and closes it after; reset before each test. */
export function withEmulator(options: EmulatorOptions = {}): () => Emulator {
  let emulator: Emulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ ...FAST_V3, ...options });
  });
  afterAll(() => emulator?.close());
  beforeEach(() => emulator?.reset());
  return () => {
    if (emulator === undefined) throw new Error('emulator not started');
    return emulator;
  };
}

/** What a v3 client factory is made of, for tests to tune. */
export interface V3Overrides extends Partial<TtsClientOptions> {
  readonly limits?: Limits;
  readonly budgets?: BudgetStore;
  readonly jobs?: JobSlots;
  readonly concurrentJobs?: number;
  readonly streaming?: boolean;
  readonly jobLeaseMs?: number;
}

/** A v3 client factory for one emulator: its `/v3` base, v3 budgets, memory job slots. */
export function v3ClientsFor(emulator: Emulator, overrides: V3Overrides = {}) {
  const {
    limits = SCALED_V3_LIMITS,
    budgets = new MemoryBudgetStore(limits),
    jobs = new MemoryJobSlots(),
    concurrentJobs = 5,
    streaming = true,
    jobLeaseMs,
    ...rest
  } = overrides;
  const background: unknown[] = [];
  const { clients } = clientsFor(emulator, {
    baseUrl: emulator.v3.baseUrl,
    budgets,
    onBackgroundError: (error) => background.push(error),
    protocol: v3Protocol({
      budgets,
      jobs,
      concurrentJobs,
      maxBudgetWaitMs: 10_000,
      streaming,
      jobLeaseMs,
      onBackgroundError: (error) => background.push(error),
    }),
    ...rest,
  });
  return { clients, background, jobs };
}
