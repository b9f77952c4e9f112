/**
 * When a busy chat's turns take their batches: one at a time, in the order they were queued,
 * each once the speech ahead of it has played down enough (see `takeDelayMs`). A later turn
 * taking first would read its fresher messages after older ones, and leave the earlier turn
 * waiting on the later one's speech (counted ahead of it) while nothing plays: in the
 * time-scaled bench that inversion left the speaker silent for 12 s at the start of the chat.
 */
import type { Clock } from '../tts/index.ts';

/** Waits between two looks at the speech ahead, at most: the forecast moves as turns play. */
const MAX_WAITS = 8;

/** The takes of one server's chat turns, in queue order. */
export class TakeOrder {
  readonly #clock: Clock;
  /** Settles once the latest turn to ask has taken its batch (or given up). */
  #last: Promise<void> = Promise.resolve();
  /** Ends the wait of the take under way, so it looks at the speech ahead again. */
  #wake: AbortController | undefined;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Runs `take` once every turn that asked before has taken, and `delayMs()` (asked again after
   * each wait) is 0 or the waits are used up; rejects with the abort reason if `signal` aborts
   * first. The calls that came after wait for this one to end, however it ends.
   */
  async take<T>(signal: AbortSignal, delayMs: () => number, take: () => T): Promise<T> {
    const before = this.#last;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#last = promise;
    try {
      await settledOrAborted(before, signal);
      for (let waits = 0; waits < MAX_WAITS; waits++) {
        const delay = delayMs();
        if (!(delay > 0)) break;
        const wake = new AbortController();
        this.#wake = wake;
        await this.#clock.sleep(delay, AbortSignal.any([signal, wake.signal])).catch((error) => {
          // Woken (the speech ahead changed): look again; aborted: give up.
          if (signal.aborted || !wake.signal.aborted) throw error;
        });
      }
      signal.throwIfAborted();
      return take();
    } finally {
      resolve();
    }
  }

  /**
   * The speech ahead changed sooner than forecast (a turn ended, its audio shorter than the
   * rate said): the take waiting now looks again at once instead of sleeping out its delay.
   */
  wake(): void {
    this.#wake?.abort(new Error('the speech ahead changed'));
  }
}

/** Resolves once `promise` settles, or rejects with the abort reason once `signal` aborts. */
function settledOrAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.finally(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
