/** Tells the journal about one request, in the order it promises, without letting it break speech. */
import type { Logger } from '../log/index.ts';
import type { SpeechEnd, SpeechJournal, SpeechTicket } from './types.ts';

/** The journal calls of one request: `settled` only after `submitted`, and at most once. */
export class TicketJournal {
  readonly #journal: SpeechJournal | undefined;
  readonly #ticket: SpeechTicket;
  readonly #logger: Pick<Logger, 'warn'>;
  #submitted = false;
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

  /** The API accepted the request; resolves once the journal has it (or failed to take it). */
  async submitted(generationId: string): Promise<void> {
    this.#submitted = true;
    try {
      await this.#journal?.submitted(this.#ticket, generationId);
    } catch (error) {
      this.#logger.warn({ err: error, ticketId: this.#ticket.id }, 'journal: submitted failed');
    }
  }

  /** The request ended; ignored when it never reached the API or already ended. */
  settled(end: SpeechEnd): void {
    if (!this.#submitted || this.#settled) return;
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
