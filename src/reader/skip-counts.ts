import type { Logger } from '../log/index.ts';
import { UserError } from '../refusal/index.ts';
import type { Clock } from '../tts/index.ts';

/** What the reader's rules skipped in one server, before a message reached the backlog. */
export interface Skips {
  blocked: number;
  newMember: number;
  refused: number;
}

/** How often the same refusal of a server's chat is logged again (no key, a share used up). */
const REFUSAL_LOG_EVERY_MS = 600_000;

/**
 * What the chat reader's rules kept from being read in each server, counted since the bot
 * started (for `/queue`), and the refusals of the speaking path logged without flooding the log.
 * Kept apart from the per-server readers, which go when idle.
 */
export class SkipCounts {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #skips = new Map<string, Skips>();
  /** When each server's chat refusal (by reason) was last logged. */
  readonly #refusalLogged = new Map<string, number>();

  constructor(deps: { readonly clock: Clock; readonly logger: Logger }) {
    this.#clock = deps.clock;
    this.#logger = deps.logger;
  }

  /** A server's counts; undefined when nothing was skipped there. */
  of(guildId: string): Skips | undefined {
    return this.#skips.get(guildId);
  }

  /** The server was forgotten: its counts go. */
  forget(guildId: string): void {
    this.#skips.delete(guildId);
  }

  /**
   * The speaking path refused a message (no key, the author's share used up): counted for
   * `/queue`, and logged once per server and reason every ten minutes, not once a message.
   * Anything else (the store or the API away) is no refusal: not counted as one, and logged as
   * an error, as often as a refusal is.
   */
  refused(guildId: string, error: unknown): void {
    const refusal = error instanceof UserError;
    if (refusal) this.count(guildId, 'refused');
    const reason = `${guildId}|${refusal ? error.id : 'error'}`;
    const now = this.#clock.now();
    const last = this.#refusalLogged.get(reason);
    if (last !== undefined && now - last < REFUSAL_LOG_EVERY_MS) return;
    this.#refusalLogged.set(reason, now);
    if (refusal) this.#logger.warn({ err: error, guildId }, 'cannot read chat');
    else
      this.#logger.error(
        { err: error, guildId },
        'cannot read chat: the voice could not be chosen',
      );
  }

  /**
   * A composed turn refused under `blocked: skip` (its messages, clean one by one, spell a blocked
   * word together): its messages count as skipped for a blocked word, as one refused on arrival
   * does, and it is no failure to warn about. Anything else is left to the turn's own log.
   */
  turnFailed(guildId: string, messages: number, error: unknown): boolean {
    if (!(error instanceof UserError) || error.id !== 'say_blocked') return false;
    this.count(guildId, 'blocked', messages);
    this.#logger.debug({ guildId, messages }, 'turn not read: blocked word');
    return true;
  }

  /** Counts `messages` skipped by `rule` in a server. */
  count(guildId: string, rule: keyof Skips, messages = 1): void {
    const skips = this.#skips.get(guildId) ?? { blocked: 0, newMember: 0, refused: 0 };
    skips[rule] += messages;
    this.#skips.set(guildId, skips);
  }
}
