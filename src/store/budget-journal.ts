import type Keyv from 'keyv';
import type { BudgetJournal } from '../tts/index.ts';

/** Keeps long rate windows (the daily generation count) in keyv, so a restart does not forget them. */
export class KeyvBudgetJournal implements BudgetJournal {
  readonly #keyv: Keyv;

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** The request times saved under `name`, or undefined when none are. */
  async load(name: string): Promise<number[] | undefined> {
    const saved: unknown = await this.#keyv.get(`budget:${name}`);
    return Array.isArray(saved)
      ? saved.filter((t): t is number => typeof t === 'number')
      : undefined;
  }

  /** Replaces the request times saved under `name`; kept two days, past any daily window. */
  async save(name: string, times: readonly number[]): Promise<void> {
    await this.#keyv.set(`budget:${name}`, [...times], 2 * 86_400_000);
  }
}
