/** One-shot or N-times faults that tests arm on the emulator. */

/** Names under which requests are counted, logged and faulted. */
export type EndpointName =
  | 'POST /v2/tts'
  | 'GET /v2/status'
  | 'GET /v2/voices'
  | 'GET /'
  | 'GET /v2/'
  | 'GET /health'
  | 'POST /v3/tts'
  | 'GET /v3/tts'
  | 'GET /v3/voices'
  | 'GET /v3/history'
  | 'WS /v3/tts/stream'
  | 'GET /audio'
  | 'other';

/** API endpoints that can take request-level faults (the stream has its own). */
export type ApiEndpoint = Exclude<EndpointName, 'GET /audio' | 'other' | 'WS /v3/tts/stream'>;

/**
 * A fault. `times` (default 1; `Infinity` for always) counts the requests or generations
 * it affects.
 * - `http-error`: answer `status` (default 500) with a vendor-like `{"detail": ...}` body.
 * - `delay`: wait `ms` before handling the request normally.
 * - `drop`: destroy the socket without any response.
 * - `malformed`: answer 200 with a truncated JSON body.
 * - `never-complete`: the next generations stay `Generating` forever (a v3 stream sends
 *   `started`, then nothing).
 * - `fail`: the next generations end with status `Failed` and `error`.
 * - `media-404`: the next media requests answer 404.
 * - `stream-cut`: a v3 stream's connection is dropped after `afterChunks` audio chunks
 *   (default: half of them), without `completed` or a close frame. The generation fails and
 *   is given back, or with `completes` it goes on without the socket and completes (its file
 *   exists once the rest would have been sent), as a client's hang-up does.
 * - `stream-close`: a v3 stream closes 1000 after `afterChunks` chunks (default: half) without
 *   `completed`; the generation fails, or with `completes` completes as above.
 * - `stream-error`: a v3 stream sends `{"type": "error"}` after `afterChunks` chunks
 *   (default: half), then closes 1011.
 * - `stream-drop`: a v3 stream's connection is dropped once its request arrives, before `started`.
 */
export type Fault =
  | { kind: 'http-error'; endpoint: ApiEndpoint; status?: number; body?: unknown; times?: number }
  | { kind: 'delay'; endpoint: ApiEndpoint | 'GET /audio'; ms: number; times?: number }
  | { kind: 'drop'; endpoint: ApiEndpoint | 'GET /audio'; times?: number }
  | { kind: 'malformed'; endpoint: ApiEndpoint; times?: number }
  | { kind: 'never-complete'; times?: number }
  | { kind: 'fail'; error?: string; times?: number }
  | { kind: 'media-404'; times?: number }
  | { kind: 'stream-cut'; afterChunks?: number; completes?: boolean; times?: number }
  | { kind: 'stream-close'; afterChunks?: number; completes?: boolean; times?: number }
  | { kind: 'stream-error'; afterChunks?: number; message?: string; times?: number }
  | { kind: 'stream-drop'; times?: number };

/** The faults a v3 stream can take. */
export type StreamFault = Extract<
  Fault,
  { kind: 'stream-cut' | 'stream-close' | 'stream-error' | 'stream-drop' }
>;

/** Where a fault applies: a request endpoint, or `generation` for task faults. */
type Slot = EndpointName | 'generation';

function slotOf(fault: Fault): Slot {
  switch (fault.kind) {
    case 'never-complete':
    case 'fail':
      return 'generation';
    case 'media-404':
      return 'GET /audio';
    case 'stream-cut':
    case 'stream-close':
    case 'stream-error':
    case 'stream-drop':
      return 'WS /v3/tts/stream';
    default:
      return fault.endpoint;
  }
}

/** Default 500 body, as the vendor words it. */
export const SERVER_ERROR_DETAIL = 'Error Occured while Creating generation...';

/** Armed faults, consumed in the order they were armed. */
export class FaultBook {
  readonly #armed: { fault: Fault; left: number }[] = [];

  /** Arms a fault. */
  add(fault: Fault): void {
    const left = fault.times ?? 1;
    if (!(left > 0)) throw new RangeError('fault times must be positive');
    this.#armed.push({ fault, left });
  }

  /** Consumes and returns the first armed fault for a request endpoint, of the given kinds. */
  takeRequest(endpoint: EndpointName, kinds: readonly Fault['kind'][]): Fault | undefined {
    return this.#take(endpoint, kinds);
  }

  /** Consumes and returns the next generation fault of `kinds` (`never-complete` or `fail`). */
  takeGeneration(
    kinds: readonly ('never-complete' | 'fail')[] = ['never-complete', 'fail'],
  ): Fault | undefined {
    return this.#take('generation', kinds);
  }

  /** Consumes and returns the next stream fault. */
  takeStream(): StreamFault | undefined {
    const fault = this.#take('WS /v3/tts/stream', [
      'stream-cut',
      'stream-close',
      'stream-error',
      'stream-drop',
    ]);
    return fault?.kind === 'stream-cut' ||
      fault?.kind === 'stream-close' ||
      fault?.kind === 'stream-error' ||
      fault?.kind === 'stream-drop'
      ? fault
      : undefined;
  }

  /** Disarms everything. */
  clear(): void {
    this.#armed.length = 0;
  }

  /** How many faults are still armed. */
  get size(): number {
    return this.#armed.length;
  }

  #take(slot: Slot, kinds: readonly Fault['kind'][]): Fault | undefined {
    const index = this.#armed.findIndex(
      (a) => slotOf(a.fault) === slot && kinds.includes(a.fault.kind),
    );
    const entry = this.#armed[index];
    if (!entry) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) this.#armed.splice(index, 1);
    return entry.fault;
  }
}
