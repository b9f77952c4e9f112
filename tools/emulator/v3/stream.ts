/** The v3 WebSocket stream: `started`, float32 24 kHz PCM chunks at speech pace, `completed`. */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { StreamFault } from '../faults.ts';
import { redactPath } from './api.ts';
import { messageOf, type V3Core } from './core.ts';
import { rateLimitDetail } from './limits.ts';
import { pcmChunks, wavToStreamPcm } from './pcm.ts';
import type { V3Generation } from './records.ts';
import { languageCodeIn, type V3Refusal, type V3Request, validateV3 } from './validate.ts';

/** A fault that strikes after `started`. */
type MidStreamFault = Exclude<StreamFault, { kind: 'stream-drop' }>;

/** Path of the stream on the API server. */
export const STREAM_PATH = '/v3/tts/stream';

/** Close codes of `api-reference/streaming.mdx`. */
export const CLOSE = { invalidPayload: 1003, policy: 1008, internal: 1011 } as const;

/** Serves the stream on the API server's upgrades; other upgrade paths get 404. */
export function attachStream(server: Server, v3: V3Core): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://emulator').pathname !== STREAM_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      new StreamSession(v3, ws, req).run().catch((error: unknown) => {
        if (ws.readyState === WebSocket.OPEN) {
          ws.send(
            JSON.stringify({ type: 'error', message: `Internal error: ${messageOf(error)}` }),
          );
          ws.close(CLOSE.internal);
        }
      });
    });
  });
  return wss;
}

/** One connection: authenticate, read the request, generate while sending, finish. */
class StreamSession {
  readonly #v3: V3Core;
  readonly #ws: WebSocket;
  readonly #apiKey: string | undefined;
  #dropped = false;
  #userId: string | undefined;
  #languageCode: string | undefined;

  constructor(v3: V3Core, ws: WebSocket, req: IncomingMessage) {
    this.#v3 = v3;
    this.#ws = ws;
    this.#apiKey =
      new URL(req.url ?? '/', 'http://emulator').searchParams.get('api_key') ?? undefined;
    const { core } = v3;
    const at = core.options.now();
    ws.on('close', (code: number) => {
      core.stats.record({
        at,
        doneAt: core.options.now(),
        method: 'GET',
        path: redactPath(req.url ?? STREAM_PATH),
        endpoint: 'WS /v3/tts/stream',
        status: this.#dropped ? 0 : 101,
        closeCode: code,
        ...(this.#userId ? { userId: this.#userId } : {}),
        ...(this.#languageCode === undefined ? {} : { languageCode: this.#languageCode }),
      });
    });
    ws.on('error', () => ws.terminate()); // a protocol error from the client ends the session
  }

  /** Serves the connection to its end; refusals become an `error` frame and a close code. */
  async run(): Promise<void> {
    const { core } = this.#v3;
    const user = core.userByKey(this.#apiKey);
    if (!user || this.#apiKey === undefined) {
      this.#refuse(CLOSE.policy, 'Invalid API Key');
      return;
    }
    this.#userId = user.userId;
    const window = this.#v3.take(this.#apiKey, user);
    if (!window.ok) {
      this.#refuse(CLOSE.policy, rateLimitDetail(window.retryAfterMs));
      return;
    }
    const message = await this.#firstMessage();
    if (message === undefined) return;
    let body: unknown;
    try {
      body = JSON.parse(message);
    } catch {
      this.#refuse(CLOSE.invalidPayload, 'Invalid JSON payload');
      return;
    }
    this.#languageCode = languageCodeIn(body);
    const request = validateV3(body, user);
    if ('detail' in request) {
      this.#refuseWith(request);
      return;
    }
    const fault = core.faults.takeStream();
    if (fault?.kind === 'stream-drop') {
      this.#drop();
      return;
    }
    const gen = this.#v3.admit(user, request, 'stream');
    if ('detail' in gen) {
      this.#refuseWith(gen);
      return;
    }
    await this.#generate(gen, request, fault);
  }

  async #generate(gen: V3Generation, request: V3Request, fault?: MidStreamFault): Promise<void> {
    const { core } = this.#v3;
    this.#v3.move(gen, 'GENERATING');
    this.#send(
      JSON.stringify({ type: 'started', generation_id: gen.id, channel: `generation:${gen.id}` }),
    );
    // A stream is a generation: `never-complete` keeps it GENERATING, the socket silent and open.
    if (core.faults.takeGeneration(['never-complete'])) return;
    let rendered: { wav: Buffer; file: Buffer };
    try {
      rendered = await this.#v3.render(request);
    } catch (error) {
      if (core.scheduler.closed) return;
      this.#v3.fail(gen, `Audio synthesis failed: ${messageOf(error)}`);
      this.#refuse(CLOSE.internal, 'Audio synthesis failed');
      return;
    }
    const chunkMs = core.options.streamChunkMs;
    const chunks = pcmChunks(wavToStreamPcm(rendered.wav), chunkMs);
    const interval = chunkMs / core.options.streamSpeed;
    const pauseAt = core.options.streamPauseMs > 0 ? Math.floor(chunks.length / 2) : -1;
    const faultAt = Math.min(chunks.length, fault?.afterChunks ?? Math.floor(chunks.length / 2));
    // A chunk goes out as soon as it is "generated": one interval after the one before.
    // A fault that lets the generation complete ends the socket only: the rest is "generated"
    // at the same pace, unheard, and the file exists once it would have been sent.
    let struck = false;
    for (const [index, chunk] of chunks.entries()) {
      if (fault && index === faultAt && !struck) {
        struck = true;
        this.#fault(gen, fault);
        if (!completes(fault)) return;
      }
      if (index > 0 && !(await core.scheduler.sleep(paced(interval, core.options)))) return;
      if (
        index === pauseAt &&
        index > 0 &&
        !(await core.scheduler.sleep(core.options.streamPauseMs))
      )
        return;
      this.#send(chunk);
    }
    if (!(await core.scheduler.sleep(interval))) return;
    if (fault && !struck) {
      this.#fault(gen, fault);
      if (!completes(fault)) return;
    }
    this.#v3.complete(gen, rendered.file);
    if (this.#ws.readyState === WebSocket.OPEN) gen.deliveredAt = core.options.now();
    this.#send(JSON.stringify({ type: 'completed', audio_url: this.#v3.audioUrl(gen) }));
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close(1000);
  }

  /** Ends the socket as `fault` says; the generation fails unless the fault lets it complete. */
  #fault(gen: V3Generation, fault: MidStreamFault): void {
    if (fault.kind === 'stream-error') {
      this.#v3.fail(gen, fault.message ?? 'Generation failed');
      this.#refuse(CLOSE.internal, fault.message ?? 'Generation failed');
      return;
    }
    if (!completes(fault)) this.#v3.fail(gen, 'Stream interrupted');
    if (fault.kind === 'stream-close') {
      if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close(1000);
    } else this.#drop();
  }

  #firstMessage(): Promise<string | undefined> {
    return new Promise((resolve) => {
      const onClose = (): void => resolve(undefined);
      this.#ws.once('close', onClose);
      this.#ws.once('message', (data: RawData, isBinary: boolean) => {
        this.#ws.off('close', onClose);
        if (!isBinary) {
          resolve(rawText(data));
          return;
        }
        this.#refuse(CLOSE.invalidPayload, 'Expected a JSON text message');
        resolve(undefined);
      });
    });
  }

  #send(data: string | Buffer): void {
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.send(data);
  }

  #refuseWith(refusal: V3Refusal): void {
    const fields = refusal.errors?.map((e) => `${e.field}: ${e.message}`).join('; ');
    const code = refusal.status === 400 ? CLOSE.invalidPayload : CLOSE.policy;
    this.#refuse(code, fields ? `${refusal.detail}: ${fields}` : refusal.detail);
  }

  #refuse(code: number, message: string): void {
    this.#send(JSON.stringify({ type: 'error', message }));
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close(code);
  }

  #drop(): void {
    this.#dropped = true;
    this.#ws.terminate();
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}

/** Whether the generation goes on and completes after `fault` ended its socket. */
function completes(fault: MidStreamFault): boolean {
  return fault.kind !== 'stream-error' && fault.completes === true;
}

/** A chunk's interval with the stream's jitter: `interval` stretched by up to ± `streamJitter`. */
function paced(interval: number, options: { readonly streamJitter: number }): number {
  return interval * (1 + options.streamJitter * (2 * Math.random() - 1));
}
