import type { Clock } from '../../src/tts/index.ts';

interface Timer {
  readonly at: number;
  readonly order: number;
  readonly resolve: () => void;
}

/** Let every pending promise chain run (no I/O is involved in code under a fake clock). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A clock that moves only when a test advances it. */
export class FakeClock implements Clock {
  #now: number;
  #order = 0;
  readonly #timers = new Set<Timer>();

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer: Timer = {
        at: this.#now + Math.max(0, ms),
        order: this.#order++,
        resolve: () => {
          this.#timers.delete(timer);
          resolve();
        },
      };
      this.#timers.add(timer);
      signal?.addEventListener(
        'abort',
        () => {
          if (this.#timers.delete(timer)) reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Sleepers still waiting. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, waking sleepers in order and letting their work run. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    for (;;) {
      const next = [...this.#timers]
        .filter((timer) => timer.at <= target)
        .sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (next === undefined) break;
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
      await settle();
    }
    this.#now = target;
    await settle();
  }
}
