/**
 * Automatic voices for chatters without their own (`/config reader voices:auto`): each chatter
 * keeps a voice from the key's voices, the last few active chatters never share one while the
 * key has enough, and a chatter's first voice comes from a hash of their id, so the same
 * chatter tends to get the same voice even after the table forgot them. Pure.
 */
import type { Voice } from '../tts/index.ts';

/** One chatter's voice, most recently active first in an {@link AssignmentTable}. */
export interface Assignment {
  readonly chatter: string;
  readonly voiceId: string;
}

/** A server's recent chatters and their voices, most recent first; no two share a voice. */
export type AssignmentTable = readonly Assignment[];

/** Most chatters a server's table remembers (it stays small in the store). */
export const ASSIGNMENT_TABLE_SIZE = 64;

/**
 * The voices chatters are given: those every plan may use (the API's `free` class, so a key on
 * any plan can speak them), never a cloned voice (someone's own); all non-cloned ones when the
 * model has no free voice. Sorted by id, so the hash picks the same voice on every shard.
 */
export function assignableVoices(voices: readonly Voice[]): string[] {
  const shared = voices.filter((voice) => voice.accent !== 'Custom');
  const free = shared.filter((voice) => voice.free);
  return (free.length > 0 ? free : shared).map((voice) => voice.voiceId).sort();
}

/** FNV-1a of the chatter id: where their search for a free voice starts. */
export function chatterHash(chatter: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < chatter.length; i++) {
    hash ^= chatter.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The voice of `chatter`, now active, and the table after it: their voice kept unless one of the
 * `size - 1` chatters active more recently has it; else the first voice from their hash's place
 * that none of those has. With `size` at most the number of voices, the last `size` active
 * chatters all sound different. Undefined when there is no voice to give.
 */
export function assignVoice(
  table: AssignmentTable,
  chatter: string,
  voiceIds: readonly string[],
  limit = ASSIGNMENT_TABLE_SIZE,
): { readonly voiceId: string; readonly table: AssignmentTable } | undefined {
  const size = Math.min(limit, voiceIds.length);
  if (size === 0) return undefined;
  const available = new Set(voiceIds);
  const seen = new Set<string>();
  const others: Assignment[] = [];
  let mine: string | undefined;
  for (const entry of table) {
    // A voice the key no longer has, or one listed twice (a table from elsewhere), is dropped.
    if (!available.has(entry.voiceId) || seen.has(entry.voiceId)) continue;
    seen.add(entry.voiceId);
    if (entry.chatter === chatter) mine ??= entry.voiceId;
    else others.push(entry);
  }
  const recent = others.slice(0, size - 1);
  const taken = new Set(recent.map((entry) => entry.voiceId));
  let voiceId = mine !== undefined && !taken.has(mine) ? mine : undefined;
  const start = chatterHash(chatter) % voiceIds.length;
  for (let i = 0; voiceId === undefined && i < voiceIds.length; i++) {
    const candidate = voiceIds[(start + i) % voiceIds.length];
    if (candidate !== undefined && !taken.has(candidate)) voiceId = candidate;
  }
  if (voiceId === undefined) return undefined;
  return { voiceId, table: [{ chatter, voiceId }, ...recent] };
}
