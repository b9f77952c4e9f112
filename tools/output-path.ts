import { stat } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { safeFileStem } from '../src/tts/index.ts';

/**
 * Where the admin CLI saves audio: a directory gets `<generation id>.<ext>`, the id
 * reduced to `[A-Za-z0-9_-]` so an id from the API can never name a path elsewhere;
 * a file name gets the sniffed extension.
 */
export async function outputPath(
  out: string,
  generationId: string,
  extension: string,
): Promise<string> {
  const isDir =
    out.endsWith('/') ||
    (await stat(out).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  if (isDir) return resolve(out, `${safeFileStem(generationId)}.${extension}`);
  const name = basename(out, extname(out));
  return resolve(dirname(out), `${name}.${extension}`);
}
