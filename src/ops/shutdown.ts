import type { Logger } from '../log/index.ts';

/**
 * What a running bot has opened, closed in reverse order by {@link stop} (also when start-up
 * fails half-way): each part pushes its close as it is opened.
 */
export class Shutdown {
  readonly #logger: Logger;
  readonly #opened: (() => Promise<void>)[] = [];
  #stopping: Promise<void> | undefined;
  #accepting = true;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** False once the bot is stopping: new interactions are refused. */
  get accepting(): boolean {
    return this.#accepting;
  }

  /** Closes `close` when the bot stops, before everything opened ahead of it. */
  readonly onStop = (close: () => Promise<void>): void => void this.#opened.push(close);

  /** Closes everything opened, newest first; calling it again waits for the same stop. */
  readonly stop = (): Promise<void> => {
    this.#stopping ??= (async () => {
      this.#accepting = false;
      let failure: unknown;
      // Each step runs even when one before it failed: the store must close whatever happens.
      for (const close of this.#opened.reverse()) {
        try {
          await close();
        } catch (error) {
          this.#logger.error({ err: error }, 'a part of the bot did not stop cleanly');
          failure ??= error;
        }
      }
      if (failure !== undefined) throw failure;
    })();
    return this.#stopping;
  };
}
