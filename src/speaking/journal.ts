/** Tells the journal about one request, in the order it promises, without letting it break speech. */
import type { Logger } from '../log/index.ts';
import type { SpeechEnd, SpeechJournal, SpeechTicket } from './types.ts';

/** The journal calls of one request: `settled` only after `queued` or `submitted`, and at most once. */
export class TicketJournal {
  readonly #journal: SpeechJournal | undefined;
  readonly #ticket: SpeechTicket;
  readonly #logger: Pick<Logger, 'warn'>;
  #recorded = false;
  #settled = false;

  constructor(
    journal: SpeechJournal | undefined,
    ticket: SpeechTicket,
    logger: Pick<Logger, 'warn'>,
  ) {
    this.#journal = journal;
    this.#ticket = ticket;
    this.#logger = logger;
  }

  /** A voice item was queued (recorded in the background; later calls keep their order). */
  queued(): void {
    this.#recorded = true;
    const failed = (error: unknown): void =>
      this.#logger.warn({ err: error, ticketId: this.#ticket.id }, 'journal: queued failed');
    try {
      Promise.resolve(this.#journal?.queued?.(this.#ticket)).catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  /** The API accepted the request; resolves once the journal has it (or failed to take it). */
  async submitted(generationId: string): Promise<void> {
    this.#recorded = true;
    try {
      await this.#journal?.submitted(this.#ticket, generationId);
    } catch (error) {
      this.#logger.warn({ err: error, ticketId: this.#ticket.id }, 'journal: submitted failed');
    }
  }

  /** The request ended; ignored when it was never recorded or already ended. */
  settled(end: SpeechEnd): void {
    if (!this.#recorded || this.#settled) return;
    this.#settled = true;
    const failed = (error: unknown): void =>
      this.#logger.warn({ err: error, ticketId: this.#ticket.id }, 'journal: settled failed');
    try {
      Promise.resolve(this.#journal?.settled(this.#ticket, end)).catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}
