/** What the emulator's request log says about generations: polls, notice lag, 429s. */
import {
  downloaded,
  type Emulator,
  type EmulatorUser,
  type RequestLogEntry,
} from '../tools/emulator/index.ts';

/** A text of exactly `length` characters (at least the API's 30), numbered so each is unique. */
export function benchText(length: number, i: number): string {
  const words = `Request ${i}: the quick brown fox jumps over the lazy dog and keeps on running. `;
  return words.repeat(Math.ceil(length / words.length) + 1).slice(0, Math.max(30, length));
}

/** An emulator account for the benchmark (paid, never out of credits). */
export function benchUser(name: string): EmulatorUser {
  return { userId: `bench_${name}`, apiKey: `adx_bench_${name}_key`, plan: 'paid' };
}

/** The status polls of one generation, in order. */
export function pollsOf(
  entries: readonly RequestLogEntry[],
  generationId: string,
): RequestLogEntry[] {
  return entries.filter(
    (e) => e.endpoint === 'GET /v2/status' && e.path.includes(`generation_id=${generationId}`),
  );
}

/** Notice lag of one generation and when its client learned it was done. */
export interface Notice {
  readonly generationId: string;
  readonly polls: number;
  /** Completed on the emulator → the first poll after it arrived, in ms. */
  readonly lagMs: number;
  /** When that poll was answered (epoch ms): the client knows from here on. */
  readonly seenAt: number;
}

/** Reads a finished generation's notice lag from the log; undefined if it never completed or was never seen. */
export function noticeOf(
  emulator: Emulator,
  entries: readonly RequestLogEntry[],
  generationId: string,
): Notice | undefined {
  const completedAt = emulator.generation(generationId)?.completedAt;
  if (completedAt === undefined) return undefined;
  const polls = pollsOf(entries, generationId);
  const seen = polls.find((p) => p.status === 200 && p.at >= completedAt);
  if (seen === undefined) return undefined;
  return { generationId, polls: polls.length, lagMs: seen.at - completedAt, seenAt: seen.doneAt };
}

/** 429 answers to requests made with the keys of `users`. */
export function count429(
  entries: readonly RequestLogEntry[],
  users: readonly EmulatorUser[],
): number {
  const ids = new Set(users.map((u) => u.userId));
  return entries.filter((e) => e.status === 429 && e.userId !== undefined && ids.has(e.userId))
    .length;
}

/** Ids of the generations polled with the keys of `users`, in the order of their first poll. */
export function polledGenerations(
  entries: readonly RequestLogEntry[],
  users: readonly EmulatorUser[],
): string[] {
  const ids = new Set(users.map((u) => u.userId));
  const seen = new Set<string>();
  for (const e of entries) {
    if (e.endpoint !== 'GET /v2/status' || e.userId === undefined || !ids.has(e.userId)) continue;
    const id = /generation_id=([^&]+)/.exec(e.path)?.[1];
    if (id !== undefined) seen.add(decodeURIComponent(id));
  }
  return [...seen];
}

/** Texts of the generations of `userId` whose audio was downloaded, in the order of the first download. */
export function downloadedTexts(emulator: Emulator, userId: string): string[] {
  return [...new Set(downloaded(emulator))]
    .map((id) => emulator.generation(id))
    .filter((g) => g !== undefined && g.userId === userId)
    .map((g) => g?.text ?? '');
}
