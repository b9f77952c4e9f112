import type { GenerationCost } from './cost.ts';
import type { FinishedGeneration, GenerationProgress } from './types.ts';

/** What a caller of a generation passes along: its own cancellation and progress listeners. */
export interface GenerateOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: GenerationProgress) => void;
  /** The API accepted the request; `cost` is its bill where the API bills money (v3), for the first caller only. */
  readonly onSubmitted?: (generationId: string, cost?: GenerationCost) => Promise<void> | void;
  /**
   * Holds the request against its payer's budget again before audio the cache served it, gone
   * at the vendor (404), is generated afresh (throws to refuse); resolves with what ends that
   * hold. The regeneration then reports to `onSubmitted`, as any generation does.
   */
  readonly holdAgain?: () => Promise<() => void>;
}

interface Flight {
  readonly submitted: Promise<string>;
  readonly finished: Promise<FinishedGeneration>;
  /** The request that started it was cancelled: those waiting on it generate on their own. */
  abandoned: boolean;
}

/** `promise`, or the signal's reason once it aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * Identical requests made while one is generating wait for that one instead
 * of submitting again (the cache only helps once it has finished). Each
 * caller hears of the shared generation's id, so every one is journalled.
 */
export class SharedGenerations {
  readonly #inFlight = new Map<string, Flight>();

  /** Runs `start` for `key`, or joins the identical generation already under way. */
  async run(
    key: string,
    options: GenerateOptions,
    start: (options: GenerateOptions) => Promise<FinishedGeneration>,
  ): Promise<FinishedGeneration> {
    const flight = this.#inFlight.get(key);
    if (flight !== undefined) {
      const joined = await join(flight, options);
      if (joined !== undefined) return joined;
    }
    return this.#lead(key, options, start);
  }

  #lead(
    key: string,
    options: GenerateOptions,
    start: (options: GenerateOptions) => Promise<FinishedGeneration>,
  ): Promise<FinishedGeneration> {
    const submitted = Promise.withResolvers<string>();
    // Nobody may be waiting on the id; its failure is the leader's to report.
    submitted.promise.catch(() => undefined);
    const onSubmitted = async (generationId: string, cost?: GenerationCost): Promise<void> => {
      submitted.resolve(generationId);
      await options.onSubmitted?.(generationId, cost);
    };
    const flight: Flight = {
      submitted: submitted.promise,
      abandoned: false,
      finished: start({ ...options, onSubmitted }).catch((error: unknown) => {
        flight.abandoned = options.signal?.aborted === true;
        submitted.reject(error);
        throw error;
      }),
    };
    this.#inFlight.set(key, flight);
    const forget = (): void => {
      if (this.#inFlight.get(key) === flight) this.#inFlight.delete(key);
    };
    flight.finished.then(forget, forget);
    return flight.finished;
  }
}

/** Waits on another caller's generation; undefined when that one was cancelled. */
async function join(
  flight: Flight,
  { signal, onProgress, onSubmitted }: GenerateOptions,
): Promise<FinishedGeneration | undefined> {
  onProgress?.({ stage: 'waiting-for-budget', ahead: () => 0 });
  try {
    const generationId = await untilAborted(flight.submitted, signal);
    await onSubmitted?.(generationId);
    onProgress?.({ stage: 'generating', generationId });
    return { ...(await untilAborted(flight.finished, signal)), cached: true };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (flight.abandoned) return undefined;
    throw error;
  }
}
