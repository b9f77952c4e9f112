/**
 * Automatic voices for chatters without their own (`/config reader voices:auto`), pure. A
 * chatter's voice, once given, is theirs for as long as it is remembered (`AutoVoices` stores it
 * per chatter): it never moves to make room for someone else, however many chatters there are.
 * Spreading is best effort at the first assignment only: a new chatter gets the voice least used
 * by the chatters active just before them, searched from a place given by a hash of their id.
 *
 * The pool is the key's free voices (see {@link assignableVoices}), not every voice the key may
 * use: a free voice is one every plan may speak, so no voice of the pool is refused at generation
 * and then taken away from the chatter who had it; and the pool is the same for every key on a
 * model, so a new key keeps its chatters' voices. A voice that leaves the list leaves the pool:
 * the chatters who had it are given a new one, the only way a voice changes.
 */
import type { Voice } from '../tts/index.ts';

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

/** FNV-1a of the chatter id: where their search for a voice starts. */
export function chatterHash(chatter: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < chatter.length; i++) {
    hash ^= chatter.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The first voice of `chatter` among `voiceIds`: of the voices least used in `recent` (the voices
 * of the chatters active just before, most recent first; only the last `voiceIds.length - 1`
 * count, so with as many voices as chatters the last few all differ), the first from their
 * hash's place. Undefined when there is no voice to give.
 */
export function firstVoice(
  chatter: string,
  voiceIds: readonly string[],
  recent: readonly string[],
): string | undefined {
  if (voiceIds.length === 0) return undefined;
  const uses = new Map<string, number>();
  for (const voiceId of recent.slice(0, voiceIds.length - 1)) {
    uses.set(voiceId, (uses.get(voiceId) ?? 0) + 1);
  }
  const start = chatterHash(chatter) % voiceIds.length;
  let best: string | undefined;
  let bestUses = Number.POSITIVE_INFINITY;
  for (let i = 0; i < voiceIds.length; i++) {
    const candidate = voiceIds[(start + i) % voiceIds.length];
    if (candidate === undefined) continue;
    const used = uses.get(candidate) ?? 0;
    if (used < bestUses) {
      best = candidate;
      bestUses = used;
    }
  }
  return best;
}
