/**
 * Who pays for a generation: the daily shares a request is checked against (with the requests
 * accepted but not yet submitted held as reservations), and the usage ledger each accepted
 * generation is recorded in, once, with its bill where the API bills money (v3); and the
 * server's daily budget, with the predicted cost of requests not yet billed held against it.
 */
import type { Logger } from '../log/index.ts';
import { type LedgerBill, type UsageLedger, utcDay } from '../store/index.ts';
import type { Clock, GenerationCost } from '../tts/index.ts';
import { budgetSpent, checkBudget, MoneyReservations } from './budget.ts';
import { checkShare } from './quota.ts';
import { budgetRefusal, shareRefusal } from './refusals.ts';
import { Reservations } from './reservations.ts';
import type { Requester } from './types.ts';

/** Generations (per server and by id) and tickets remembered as recorded: far more than can share one at a time. */
const RECORDED_KEPT = 6000;
const DAY_MS = 86_400_000;
/** Days before today whose bills can price a request (the ledger keeps 31). */
const PAST_DAYS = 30;

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
  readonly #money = new MoneyReservations();
  /** Each server's price on its last day billed before today, read once a day. */
  readonly #pastPrices = new Map<
    string,
    { readonly day: string; readonly price: Promise<GenerationCost | undefined> }
  >();
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

  /**
   * Holds request `ticketId`'s predicted cost against the server's daily `budget`, or refuses
   * it with when the budget starts again. `estimate` is the text's billed tokens and, once the
   * key's price was seen, its cost; else today's average price in the ledger prices it (after a
   * restart), and only a server's first bill of the day goes unpriced. Nothing is awaited
   * between the check and the hold, so two requests cannot both take the last of it. A guild
   * is served by one process, which therefore sees all of its spending.
   */
  async reserveMoney(
    guildId: string,
    ticketId: string,
    budget: number | undefined,
    estimate: { readonly tokens: number; readonly micros: number | undefined },
  ): Promise<void> {
    if (budget === undefined || budget === 0) return;
    const { usage, clock } = this.#options;
    await usage.load(guildId, clock.now());
    const unpriced =
      estimate.micros === undefined && !usage.spentToday(guildId, clock.now())?.tokens;
    const past = unpriced ? await this.#pastPrice(guildId, clock.now()) : undefined;
    // Nothing is awaited from here to the hold.
    const now = clock.now();
    const spent = usage.spentToday(guildId, now) ?? { micros: 0, tokens: 0 };
    const price = spent.tokens > 0 ? spent : past;
    const predicted =
      estimate.micros ??
      (price === undefined
        ? undefined
        : Math.ceil((estimate.tokens * price.micros) / price.tokens));
    const check = checkBudget({
      spent: spent.micros,
      reserved: this.#money.held(guildId),
      predicted,
      budget,
      now,
    });
    if (!check.ok) throw budgetRefusal(check);
    if (ticketId !== '') this.#money.hold(guildId, ticketId, predicted ?? 0, estimate.tokens);
  }

  /**
   * The server's average price per token on the last day it was billed, among the 30 before
   * today (read once a day per server): what prices a request after a restart, before today's
   * first bill and before the key's price is seen. Undefined when nothing was billed.
   */
  #pastPrice(guildId: string, now: number): Promise<GenerationCost | undefined> {
    const day = utcDay(now);
    const known = this.#pastPrices.get(guildId);
    if (known?.day === day) return known.price;
    const price = this.#options.usage
      .days(guildId, now - PAST_DAYS * DAY_MS, now - DAY_MS)
      .then((days) => {
        const last = days.findLast((past) => (past.spend?.tokens ?? 0) > 0)?.spend;
        return last === undefined ? undefined : { tokens: last.tokens, micros: last.micros };
      })
      .catch((error: unknown) => {
        this.#options.logger.warn({ err: error, guildId }, 'usage ledger: past days unread');
        this.#pastPrices.delete(guildId);
        return undefined;
      });
    this.#pastPrices.set(guildId, { day, price });
    return price;
  }

  /**
   * Holds request `ticketId` against the server's daily `budget` again before audio the cache
   * served it, gone at the vendor (404), is generated afresh: nothing more while its first hold
   * stands (a cache hit paid nothing from it), else refused past the budget as any request.
   * Resolves with what lets this hold go; the generation is recorded under `ticketId` as usual.
   */
  async holdAgain(
    guildId: string,
    ticketId: string,
    budget: number | undefined,
    estimate: { readonly tokens: number; readonly micros: number | undefined },
  ): Promise<() => void> {
    if (this.#money.of(ticketId) !== undefined) return () => undefined;
    await this.reserveMoney(guildId, ticketId, budget, estimate);
    return () => this.#money.release(ticketId);
  }

  /** Refuses when the server's spending today (recorded and held) reached its daily `budget`. */
  async checkBudget(guildId: string, budget: number | undefined): Promise<void> {
    await this.reserveMoney(guildId, '', budget, { tokens: 0, micros: 0 });
  }

  /**
   * Micro-dollars the server was billed today and its budget, when a budget is set and spent
   * (what `/queue` says the chat stopped for); undefined otherwise.
   */
  async budgetSpent(
    guildId: string,
    budget: number | undefined,
  ): Promise<{ readonly spent: number; readonly budget: number } | undefined> {
    if (budget === undefined || budget === 0) return undefined;
    const { usage, clock } = this.#options;
    await usage.load(guildId, clock.now());
    const spent = usage.spentToday(guildId, clock.now())?.micros ?? 0;
    return budgetSpent(spent + this.#money.held(guildId), budget) ? { spent, budget } : undefined;
  }

  /** Ends request `ticketId`'s reservation (submitted, or ended without a generation); idempotent. */
  release(ticketId: string): void {
    this.#reservations.release(ticketId);
    this.#money.release(ticketId);
  }

  /**
   * The API accepted generation `generationId` for `payer`: recorded in the ledger (which takes
   * over from the reservation at once). A request that joined an identical one already
   * generating costs nothing: only the first is recorded. Nor does a request pay twice: a
   * stream the API said failed (it gives the reservation back) is submitted again under the same
   * `ticketId`, and only its first generation is recorded. A failed write is logged, not thrown.
   * `bill` is what the API billed (v3): recorded with it, the money held for the request is
   * let go once the ledger has it (both counted for a moment, never neither).
   */
  async record(
    guildId: string,
    payer: string,
    generationId: string,
    ticketId?: string,
    bill?: LedgerBill,
  ): Promise<void> {
    const generation = `${guildId}:${generationId}`;
    const ticket = ticketId === undefined ? undefined : `${guildId}:ticket:${ticketId}`;
    // The ticket is marked paid only by a write of its own: a request that joined another's
    // generation paid nothing, and pays for one it then makes itself.
    const fresh =
      !this.#recorded.has(generation) && (ticket === undefined || !this.#recorded.has(ticket));
    // An answer without a bill (none in the record, a stream's price unread) is counted at what
    // was held for it: the API billed it all the same. Not so a join of a generation another
    // server recorded (two servers on one key): that one paid.
    const made = `id:${generationId}`;
    const joined = this.#recorded.has(made);
    const held = ticketId === undefined || joined ? undefined : this.#money.of(ticketId);
    const billed = bill ?? held;
    const recorded = fresh
      ? this.#options.usage
          .record(guildId, payer, this.#options.clock.now(), billed)
          .catch((error: unknown) =>
            this.#options.logger.warn({ err: error, guildId }, 'usage ledger: record failed'),
          )
      : Promise.resolve();
    this.#recorded.add(generation);
    this.#recorded.add(made);
    if (fresh && ticket !== undefined) this.#recorded.add(ticket);
    for (const old of this.#recorded) {
      if (this.#recorded.size <= RECORDED_KEPT) break;
      this.#recorded.delete(old);
    }
    if (ticketId !== undefined) this.#reservations.release(ticketId);
    await recorded;
    if (ticketId !== undefined) this.#money.release(ticketId);
  }
}
