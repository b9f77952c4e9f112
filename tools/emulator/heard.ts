/**
 * What a client heard, read from the emulator's records, in either version of the API: on v2
 * speech is submitted, polled and downloaded; on v3 voice items and chat turns may be streamed,
 * so their audio never shows as a download. Shared by the tests and `npm run demo`.
 */
import type { Emulator, V3Snapshot } from './emulator.ts';

/** A version of the vendor's API (the emulator serves both on the same servers). */
export type ApiVersion = 'v2' | 'v3';

/** What a generation said, and in which voice, whichever version made it. */
export interface HeardText {
  readonly text: string;
  readonly voiceId: string;
}

/** The generation id of a media server path (`/audio/<id>.wav`). */
function audioIdOf(path: string): string {
  return /\/audio\/([^/.?]+)/.exec(path)?.[1] ?? '';
}

/** Generation ids whose audio was fetched from the emulator's media server, in order (repeats kept). */
export function downloaded(emulator: Pick<Emulator, 'requests'>): string[] {
  return downloads(emulator).map((download) => download.id);
}

function downloads(emulator: Pick<Emulator, 'requests'>): { id: string; at: number }[] {
  return emulator.requests
    .filter((entry) => entry.endpoint === 'GET /audio')
    .map((entry) => ({ id: audioIdOf(entry.path), at: entry.at }));
}

/** Every v3 generation of every user of `emulator` (streams included). */
export function v3Generations(emulator: Pick<Emulator, 'users' | 'v3'>): V3Snapshot[] {
  return emulator.users.flatMap((user) => emulator.v3.generationsOf(user.userId));
}

/**
 * The generations whose audio reached a client whole, in the order it asked for them: v2's
 * downloads; with v3 also the streams listened to until their last frame (a stream let go
 * before its end is not heard), each placed at its start.
 */
export function heardGenerations(emulator: Emulator, version: ApiVersion): string[] {
  if (version === 'v2') return downloaded(emulator);
  const streams = v3Generations(emulator)
    .filter((g) => g.via === 'stream' && g.deliveredAt !== undefined)
    .map((g) => ({ id: g.id, at: g.createdAt }));
  return [...downloads(emulator), ...streams].sort((a, b) => a.at - b.at).map((heard) => heard.id);
}

/** The text and voice of a generation of `version`, or undefined when the emulator has none. */
export function heardText(
  emulator: Emulator,
  version: ApiVersion,
  generationId: string,
): HeardText | undefined {
  return version === 'v3'
    ? emulator.v3.generation(generationId)
    : emulator.generation(generationId);
}
