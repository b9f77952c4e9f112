/**
 * Work run one task at a time per key (a server's Twitch messages, in the order they came),
 * with a bound on what waits: a chat faster than a server can take it drops what comes past
 * the bound, counted, rather than holding an ever longer chain of messages in memory.
 */

/** Tasks one server may have waiting at once (a busy chat's minutes of messages at most). */
export const CHAIN_BOUND = 500;

/** Serial chains per key, bounded. */
export class SerialChains {
  readonly #bound: number;
  readonly #onError: (error: unknown, key: string) => void;
  readonly #chains = new Map<string, { tail: Promise<void>; waiting: number }>();
  readonly #dropped = new Map<string, number>();

  constructor(onError: (error: unknown, key: string) => void, bound = CHAIN_BOUND) {
    this.#bound = bound;
    this.#onError = onError;
  }

  /**
   * Runs `task` after the key's earlier tasks. A task that may be dropped (`droppable`) is not
   * run when `bound` tasks already wait: false, and counted. Withdrawals are never dropped.
   */
  run(key: string, task: () => Promise<void>, droppable = true): boolean {
    const chain = this.#chains.get(key) ?? { tail: Promise.resolve(), waiting: 0 };
    if (droppable && chain.waiting >= this.#bound) {
      this.#dropped.set(key, (this.#dropped.get(key) ?? 0) + 1);
      return false;
    }
    chain.waiting++;
    const run = chain.tail
      .then(task)
      .catch((error: unknown) => this.#onError(error, key))
      .finally(() => {
        chain.waiting--;
        if (this.#chains.get(key) === chain && chain.tail === run) this.#chains.delete(key);
      });
    chain.tail = run;
    this.#chains.set(key, chain);
    return true;
  }

  /** Tasks of `key` dropped past the bound since start. */
  dropped(key: string): number {
    return this.#dropped.get(key) ?? 0;
  }

  /** Forgets the key's count (the server was forgotten). */
  forget(key: string): void {
    this.#dropped.delete(key);
  }
}
