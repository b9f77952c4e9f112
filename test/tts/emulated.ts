/** Helpers for testing the real TTS client against the local emulator (no HTTP mocks). */
import { expect } from 'vitest';
import {
  type Limits,
  MemoryBudgetStore,
  parseLimits,
  systemClock,
  type TtsClientOptions,
  TtsClients,
  TtsError,
  type TtsErrorKind,
} from '../../src/tts/index.ts';
import type { Emulator, EndpointName, RequestLogEntry } from '../../tools/emulator/index.ts';

/** Emulator time scale used by most client tests: its minute lasts 600 ms. */
export const TIME_SCALE = 0.01;

/** The vendor's limits with windows shrunk like an emulator running at {@link TIME_SCALE}. */
export const SCALED_LIMITS: Limits = parseLimits(
  'generate=20/600ms+500/864s,status=60/600ms,voices=10/600ms,health=100/600ms',
);

/** Every window of `limits` multiplied by `scale` (the client's limits made to match a scaled emulator). */
export function scaleLimits(limits: Limits, scale: number): Limits {
  const scaled = (list: Limits[keyof Limits]) =>
    list.map((limit) => ({ count: limit.count, windowMs: Math.round(limit.windowMs * scale) }));
  return {
    generate: scaled(limits.generate),
    status: scaled(limits.status),
    voices: scaled(limits.voices),
    health: scaled(limits.health),
    request: scaled(limits.request),
  };
}

/** A text long enough for the API's 30-character minimum. */
export function sentence(length = 60): string {
  const words = 'The quick brown fox jumps over the lazy dog and keeps on running. ';
  return words.repeat(Math.ceil(length / words.length)).slice(0, length);
}

/** Client factory for one emulator, with short intervals and timeouts; failures in the background are collected. */
export function clientsFor(
  emulator: Emulator,
  overrides: Partial<TtsClientOptions> & { limits?: Limits } = {},
): { clients: TtsClients; background: unknown[] } {
  const background: unknown[] = [];
  const { limits = SCALED_LIMITS, ...rest } = overrides;
  const clients = new TtsClients({
    baseUrl: emulator.baseUrl,
    media: { origins: [emulator.mediaOrigin], maxBytes: 5 * 1024 * 1024, timeoutMs: 5000 },
    budgets: new MemoryBudgetStore(limits),
    clock: systemClock,
    requestTimeoutMs: 3000,
    maxRetries: 2,
    maxBudgetWaitMs: 10_000,
    pollDeadlineMs: 15_000,
    pollIntervalMs: { min: 20, max: 40 },
    voicesTtlMs: 60_000,
    onBackgroundError: (error) => background.push(error),
    ...rest,
  });
  return { clients, background };
}

/** Awaits `promise`, expects it to fail with a TtsError of `kind`, and returns the error. */
export async function failure(promise: Promise<unknown>, kind: TtsErrorKind): Promise<TtsError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a ${kind} TtsError`).toBeInstanceOf(TtsError);
  const error = caught as TtsError;
  expect({ kind: error.kind, message: error.message }).toMatchObject({ kind });
  expectReadable(error.message);
  return error;
}

/** A message a person can read: one non-empty line, no object dumps, no API key. */
export function expectReadable(message: string): void {
  expect(message.trim()).not.toBe('');
  expect(message).not.toMatch(/\[object Object\]|undefined|\n/);
  expect(message).not.toMatch(/adx_test_key/);
}

/** The log entries of one endpoint, oldest first. */
export function entriesOf(emulator: Emulator, endpoint: EndpointName): RequestLogEntry[] {
  return emulator.requests.filter((entry) => entry.endpoint === endpoint);
}

/** Statuses answered on one endpoint, in order. */
export function statusesOf(emulator: Emulator, endpoint: EndpointName): number[] {
  return entriesOf(emulator, endpoint).map((entry) => entry.status);
}

/** Every 429 the emulator answered, on any endpoint. */
export function count429(emulator: Emulator): number {
  return Object.values(emulator.counts()).reduce(
    (sum, count) => sum + (count?.byStatus[429] ?? 0),
    0,
  );
}

/** Waits (real time) until `check` holds. */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
