/**
 * v3's WebSocket stream (`/v3/tts/stream`): one JSON request in; `started`, binary chunks of
 * PCM, then `completed` with a backup address, or `error`. The key travels in the address's
 * query, so that address is built here, handed to the socket and nowhere else: no error,
 * message or log line made here quotes it, and no socket error is kept as a cause.
 */
import { PassThrough } from 'node:stream';
import WebSocket, { type RawData } from 'ws';
import { serviceText, TtsError } from '../errors.ts';
import type { LiveStream, PcmFormat, StreamHooks } from '../protocol.ts';
import { BYTES_PER_SECOND, PAUSE_BYTES, streamByteCap } from './stream-bounds.ts';
import { CLOSE_NORMAL, streamFailure, WHERE } from './stream-failure.ts';

/** What every chunk is: float32 little-endian, 24 kHz, mono, whatever the model (`api-reference/streaming.mdx`). */
export const STREAM_PCM: PcmFormat = { format: 'f32le', sampleRate: 24_000, channels: 1 };

/** Where to stream from and how long to wait. */
export interface StreamContext {
  /** The stream's address without the key, e.g. `wss://api.audixa.ai/v3/tts/stream`. */
  readonly url: string;
  readonly apiKey: string;
  /** Longest wait for the connection, and then for each frame while nothing is heard. */
  readonly timeoutMs: number;
  /**
   * Called once the socket opened or failed to (the request has then reached the server or
   * not), with the upgrade's HTTP status: 101 opened, the refusal's status, 0 no answer.
   */
  readonly onAnswered?: ((status: number) => void) | undefined;
  /**
   * Longest a stream may send, paused time not counted; default: the idle timeout plus three
   * times the longest audio its text may give (a service may stream slower than real time).
   */
  readonly deadlineMs?: number | undefined;
  /** Called on every audio chunk (to renew the job's lease). */
  readonly onChunk?: (() => void) | undefined;
}

/** Where a request's stream address is derived from: the API's base (`…/v3`) with a WebSocket scheme. */
export function streamUrl(baseUrl: string): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/tts/stream`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/**
 * Opens a stream for `body` and resolves at its first audio chunk (after `onStarted` settled).
 * Before that chunk it rejects with a TtsError, carrying the generation id once `started` came;
 * after it, failures end the stream's `pcm` and `completed` instead.
 */
export function openStream(
  context: StreamContext,
  body: Record<string, unknown>,
  hooks: StreamHooks = {},
): Promise<LiveStream> {
  return new Promise<LiveStream>((resolve, reject) => {
    new StreamRun(context, body, hooks, resolve, reject).start();
  });
}

/** One stream from connection to close. */
class StreamRun {
  readonly #context: StreamContext;
  readonly #body: Record<string, unknown>;
  readonly #hooks: StreamHooks;
  readonly #resolve: (live: LiveStream) => void;
  readonly #reject: (error: unknown) => void;
  readonly #pcm = new PassThrough();
  readonly #completed = Promise.withResolvers<string>();
  #socket: WebSocket | undefined;
  #generationId: string | undefined;
  /** Set once `onStarted` settled: chunks are handed over only after it. */
  #startedHook: Promise<void> | undefined;
  #handedOver = false;
  #ended = false;
  #answered = false;
  #errorText: string | undefined;
  #socketCode: string | undefined;
  #httpStatus: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #bytes = 0;
  readonly #byteCap: number;
  /** Sending time left before the overall deadline (paused time is not counted). */
  #deadlineLeft: number;
  #deadlineFrom = 0;
  #deadline: NodeJS.Timeout | undefined;
  #paused = false;

  constructor(
    context: StreamContext,
    body: Record<string, unknown>,
    hooks: StreamHooks,
    resolve: (live: LiveStream) => void,
    reject: (error: unknown) => void,
  ) {
    this.#context = context;
    this.#body = body;
    this.#hooks = hooks;
    this.#resolve = resolve;
    this.#reject = reject;
    // Nobody may read `completed` (a failure then reaches the reader through `pcm`).
    this.#completed.promise.catch(() => undefined);
    // Nor `pcm` yet (an item waiting its turn): its failure is kept in `pcm.errored`, not thrown.
    this.#pcm.on('error', () => undefined);
    this.#byteCap = streamByteCap(typeof body.text === 'string' ? body.text : '');
    this.#deadlineLeft =
      context.deadlineMs ?? context.timeoutMs + (3 * 1000 * this.#byteCap) / BYTES_PER_SECOND;
    // Its audio let go (the item left, the turn was dropped): the socket and its job slot go too.
    this.#pcm.on('close', this.#onLetGo);
  }

  start(): void {
    const { signal } = this.#hooks;
    if (signal?.aborted) {
      this.#reject(signal.reason);
      return;
    }
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.#address(), { handshakeTimeout: this.#context.timeoutMs });
    } catch {
      // The socket's message would quote the address, key included.
      this.#reject(new TtsError('bad_request', `${WHERE} address is not valid`));
      return;
    }
    this.#socket = socket;
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.#arm();
    this.#runDeadline();
    socket.on('open', () => {
      this.#answer(101);
      this.#arm();
      socket.send(JSON.stringify(this.#body));
    });
    socket.on('unexpected-response', (_request, response) => {
      this.#httpStatus = response.statusCode;
      response.resume();
      socket.terminate();
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      this.#arm();
      if (isBinary) this.#chunk(toBuffer(data));
      else this.#message(toBuffer(data).toString('utf8'));
    });
    socket.on('error', (error: Error) => {
      this.#socketCode = (error as { code?: unknown }).code?.toString();
    });
    socket.on('close', (code: number) => this.#closed(code));
  }

  /** The only place the key is put in an address: straight into the socket. */
  #address(): URL {
    const url = new URL(this.#context.url);
    url.searchParams.set('api_key', this.#context.apiKey);
    return url;
  }

  #answer(status: number): void {
    if (this.#answered) return;
    this.#answered = true;
    this.#context.onAnswered?.(status);
  }

  #runDeadline(): void {
    this.#deadlineFrom = performance.now();
    this.#deadline = setTimeout(() => {
      this.#fail(new TtsError('timeout', `${WHERE} did not complete in time`));
    }, this.#deadlineLeft);
  }

  /** Stops reading the socket while its reader has enough; resumes once it drained. */
  #pause(): void {
    const socket = this.#socket;
    if (this.#paused || socket === undefined) return;
    this.#paused = true;
    socket.pause();
    clearTimeout(this.#timer);
    clearTimeout(this.#deadline);
    this.#deadlineLeft -= performance.now() - this.#deadlineFrom;
    this.#pcm.once('drain', () => {
      if (this.#ended) return;
      this.#paused = false;
      socket.resume();
      this.#arm();
      this.#runDeadline();
    });
  }

  #arm(): void {
    clearTimeout(this.#timer);
    if (this.#ended || this.#paused) return;
    this.#timer = setTimeout(() => {
      this.#fail(
        new TtsError('timeout', `${WHERE} sent nothing for ${this.#context.timeoutMs} ms`),
      );
    }, this.#context.timeoutMs);
  }

  #message(text: string): void {
    let message: {
      type?: unknown;
      generation_id?: unknown;
      audio_url?: unknown;
      message?: unknown;
    };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      this.#fail(new TtsError('malformed_response', `${WHERE} sent a frame that is not JSON`));
      return;
    }
    if (message.type === 'started' && typeof message.generation_id === 'string') {
      this.#generationId = message.generation_id;
      this.#startedHook = Promise.resolve(this.#hooks.onStarted?.(message.generation_id));
      // A journal that cannot record it does not stop the speech; the caller reports it.
      this.#startedHook.catch(() => undefined);
    } else if (message.type === 'completed' && typeof message.audio_url === 'string') {
      this.#complete(message.audio_url);
    } else if (message.type === 'error') {
      const said = typeof message.message === 'string' ? message.message : 'no reason given';
      this.#errorText = serviceText(said, this.#context.apiKey);
    }
  }

  #chunk(bytes: Buffer): void {
    if (this.#ended) return;
    this.#bytes += bytes.length;
    if (this.#bytes > this.#byteCap) {
      this.#fail(
        new TtsError(
          'malformed_response',
          `${WHERE} sent more audio than its text can give (over ${this.#byteCap} bytes)`,
        ),
      );
      return;
    }
    const room = this.#pcm.write(bytes);
    if (!room && this.#pcm.writableLength + this.#pcm.readableLength > PAUSE_BYTES) this.#pause();
    this.#context.onChunk?.();
    this.#handOver();
  }

  /** Resolves with the live stream once the first chunk is here and `onStarted` settled. */
  #handOver(): void {
    if (this.#handedOver) return;
    this.#handedOver = true;
    const generationId = this.#generationId ?? '';
    const live: LiveStream = {
      generationId,
      format: STREAM_PCM,
      pcm: this.#pcm,
      completed: this.#completed.promise,
    };
    const started = this.#startedHook ?? Promise.resolve();
    started.then(
      () => this.#resolve(live),
      () => this.#resolve(live),
    );
  }

  #complete(audioUrl: string): void {
    if (this.#ended) return;
    this.#handOver();
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#pcm.end();
    this.#completed.resolve(audioUrl);
    this.#cleanUp();
  }

  #closed(code: number): void {
    this.#answer(this.#httpStatus ?? 0);
    if (this.#ended) return;
    this.#fail(this.#failure(code));
  }

  /** Why the stream ended before `completed` (see `streamFailure`). */
  #failure(code: number): TtsError {
    return streamFailure({
      code,
      generationId: this.#generationId,
      httpStatus: this.#httpStatus,
      errorText: this.#errorText,
      socketCode: this.#socketCode,
    });
  }

  #fail(error: TtsError): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    if (this.#handedOver) {
      this.#pcm.destroy(error);
      this.#completed.reject(error);
    } else {
      this.#pcm.destroy();
      this.#reject(error);
    }
    this.#cleanUp();
  }

  readonly #onAbort = (): void => {
    const reason: unknown = this.#hooks.signal?.reason;
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#pcm.destroy(reason instanceof Error ? reason : undefined);
    this.#completed.reject(reason);
    if (!this.#handedOver) this.#reject(reason);
    this.#cleanUp();
  };

  readonly #onLetGo = (): void => {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    const reason = new TtsError('network', `${WHERE} was let go before it completed`);
    this.#completed.reject(reason);
    if (!this.#handedOver) this.#reject(reason);
    this.#cleanUp();
  };

  #cleanUp(): void {
    clearTimeout(this.#deadline);
    this.#hooks.signal?.removeEventListener('abort', this.#onAbort);
    const socket = this.#socket;
    if (socket === undefined) return;
    if (socket.readyState === WebSocket.OPEN) socket.close(CLOSE_NORMAL);
    else if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
  }
}

function toBuffer(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}
