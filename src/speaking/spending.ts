/**
 * Who pays for a generation: the daily shares a request is checked against (with the requests
 * accepted but not yet submitted held as reservations), and the usage ledger each accepted
 * generation is recorded in, once.
 */
import type { Logger } from '../log/index.ts';
import type { UsageLedger } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import { checkShare } from './quota.ts';
import { shareRefusal } from './refusals.ts';
import { Reservations } from './reservations.ts';
import type { Requester } from './types.ts';

/** Generations and tickets remembered as recorded: far more than can share one at a time. */
const RECORDED_KEPT = 4000;

/** What {@link Spending} is built from. */
export interface SpendingOptions {
  readonly usage: UsageLedger;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'warn'>;
}

/** Daily shares, reservations and the usage ledger, for every entrance of the speaking service. */
export class Spending {
  readonly #options: SpendingOptions;
  readonly #reservations = new Reservations();
  /** Generations already recorded (identical requests at once share one), newest last. */
  readonly #recorded = new Set<string>();

  constructor(options: SpendingOptions) {
    this.#options = options;
  }

  /** The member's requests accepted but not yet submitted. */
  reserved(guildId: string, memberId: string): number {
    return this.#reservations.count(guildId, memberId);
  }

  /**
   * Counts request `ticketId` against the requester's daily `share`, or refuses it with when it
   * frees up. Nothing is awaited between the check and the reservation, so two requests cannot
   * both take the last one. Members who manage the server are exempt.
   */
  async reserve(
    guildId: string,
    requester: Pick<Requester, 'id' | 'canManage'>,
    share: number | undefined,
    ticketId: string,
  ): Promise<void> {
    const exempt = requester.canManage || share === undefined;
    if (!exempt) await this.#options.usage.load(guildId, this.#options.clock.now());
    this.#check(guildId, requester.id, share, exempt);
    this.#reservations.hold(guildId, requester.id, ticketId);
  }

  /** Refuses when the member's generations today (recorded and reserved) reached `share`. */
  async check(
    guildId: string,
    requester: Pick<Requester, 'id' | 'canManage'>,
    share: number | undefined,
  ): Promise<void> {
    const exempt = requester.canManage || share === undefined;
    if (!exempt) await this.#options.usage.load(guildId, this.#options.clock.now());
    this.#check(guildId, requester.id, share, exempt);
  }

  #check(guildId: string, memberId: string, share: number | undefined, exempt: boolean): void {
    const { usage, clock } = this.#options;
    const now = clock.now();
    const check = checkShare({
      used: usage.memberToday(guildId, memberId, now) ?? 0,
      reserved: this.#reservations.count(guildId, memberId),
      share,
      exempt,
      now,
    });
    if (!check.ok) throw shareRefusal(check);
  }

  /** Ends request `ticketId`'s reservation (submitted, or ended without a generation); idempotent. */
  release(ticketId: string): void {
    this.#reservations.release(ticketId);
  }

  /**
   * The API accepted generation `generationId` for `payer`: recorded in the ledger (which takes
   * over from the reservation at once). A request that joined an identical one already
   * generating costs nothing: only the first is recorded. Nor does a request pay twice: a
   * stream the API said failed (it gives the reservation back) is submitted again under the same
   * `ticketId`, and only its first generation is recorded. A failed write is logged, not thrown.
   */
  async record(
    guildId: string,
    payer: string,
    generationId: string,
    ticketId?: string,
  ): Promise<void> {
    const generation = `${guildId}:${generationId}`;
    const ticket = ticketId === undefined ? undefined : `${guildId}:ticket:${ticketId}`;
    // The ticket is marked paid only by a write of its own: a request that joined another's
    // generation paid nothing, and pays for one it then makes itself.
    const fresh =
      !this.#recorded.has(generation) && (ticket === undefined || !this.#recorded.has(ticket));
    const recorded = fresh
      ? this.#options.usage
          .record(guildId, payer, this.#options.clock.now())
          .catch((error: unknown) =>
            this.#options.logger.warn({ err: error, guildId }, 'usage ledger: record failed'),
          )
      : Promise.resolve();
    this.#recorded.add(generation);
    if (fresh && ticket !== undefined) this.#recorded.add(ticket);
    for (const old of this.#recorded) {
      if (this.#recorded.size <= RECORDED_KEPT) break;
      this.#recorded.delete(old);
    }
    if (ticketId !== undefined) this.#reservations.release(ticketId);
    await recorded;
  }
}
