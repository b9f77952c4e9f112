import { parseBuffer } from 'music-metadata';

/** The duration of an audio file in ms, or undefined when its header does not say. */
export async function audioDurationMs(
  bytes: Uint8Array,
  mime: string,
): Promise<number | undefined> {
  const metadata = await parseBuffer(
    bytes,
    { mimeType: mime },
    { duration: true, skipCovers: true },
  );
  const seconds = metadata.format.duration;
  return seconds === undefined || !Number.isFinite(seconds)
    ? undefined
    : Math.round(seconds * 1000);
}
