/** The media server: serves finished audio at `/audio/<generation_id><extension>`. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from './core.ts';
import { sendRaw } from './http.ts';

/** Content-Type by address extension, as a CDN would guess it; the bytes may disagree. */
const CONTENT_TYPES: Record<string, string> = {
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
};

/** Builds the request listener of the media server; `audioOf` finds the bytes of an id. */
export function mediaHandler(
  core: Core,
  audioOf: (id: string) => Buffer | undefined = (id) => core.store.get(id)?.audio,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(core, audioOf, req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : undefined);
    });
  };
}

async function handle(
  core: Core,
  audioOf: (id: string) => Buffer | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const at = core.options.now();
  let recorded = false;
  res.on('close', () => {
    if (recorded) return;
    recorded = true;
    const status = res.writableFinished ? res.statusCode : 0;
    const base = { at, doneAt: core.options.now(), method: req.method ?? '', path: req.url ?? '' };
    core.stats.record({ ...base, endpoint: 'GET /audio', status });
  });
  req.resume();
  const notFound = (): void => sendRaw(res, 404, 'Not Found', 'text/plain; charset=utf-8');
  const match = /^\/audio\/([^/?]+?)(\.[a-z0-9]+)?(?:\?.*)?$/i.exec(req.url ?? '');
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !match) {
    notFound();
    return;
  }
  const delay = core.faults.takeRequest('GET /audio', ['delay']);
  if (delay?.kind === 'delay' && !(await core.scheduler.sleep(delay.ms))) return;
  if (core.faults.takeRequest('GET /audio', ['drop'])) {
    req.socket.destroy();
    return;
  }
  if (core.faults.takeRequest('GET /audio', ['media-404'])) {
    notFound();
    return;
  }
  const audio = audioOf(match[1] ?? '');
  if (!audio) {
    notFound();
    return;
  }
  const type = CONTENT_TYPES[(match[2] ?? '').toLowerCase()] ?? 'application/octet-stream';
  const headers = { 'cache-control': 'public, max-age=31536000, immutable' };
  sendRaw(res, 200, audio, type, headers, req.method === 'HEAD');
}
