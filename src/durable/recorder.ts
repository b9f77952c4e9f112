import type { SpeechJournal, SpeechTicket } from '../speaking/index.ts';
import type { Clock } from '../tts/index.ts';
import type { PendingJournal } from './journal.ts';
import type { PendingSpeech } from './pending.ts';

/**
 * The speaking service's journal: records each request in the store when
 * it is queued for voice or accepted by the API (before the member is told
 * it is generating), and forgets it once it ended. While the bot stops,
 * nothing is forgotten: what the stop interrupts is resumed at the next start.
 */
export class JournalRecorder implements SpeechJournal {
  readonly #journal: Pick<PendingJournal, 'record' | 'remove'>;
  readonly #clock: Clock;
  readonly #voiceChannelOf: (guildId: string) => string | undefined;
  #frozen = false;
  /** Ended requests whose removal from the journal has not succeeded yet. */
  readonly #unremoved = new Set<string>();

  constructor(options: {
    journal: Pick<PendingJournal, 'record' | 'remove'>;
    clock: Clock;
    /** The bot's voice channel in a guild: where a voice item is to be played. */
    voiceChannelOf: (guildId: string) => string | undefined;
  }) {
    this.#journal = options.journal;
    this.#clock = options.clock;
    this.#voiceChannelOf = options.voiceChannelOf;
  }

  /** A voice item joined the queue and waits for its turn to generate. */
  async queued(ticket: SpeechTicket): Promise<void> {
    await this.#journal.record(this.#entry(ticket));
    await this.#removeEnded();
  }

  /** The API accepted the request as `generationId`. */
  async submitted(ticket: SpeechTicket, generationId: string): Promise<void> {
    const now = this.#clock.now();
    await this.#journal.record({ ...this.#entry(ticket), generationId, submittedAt: now });
    await this.#removeEnded();
  }

  /**
   * The request ended (delivered, failed, skipped or cancelled); ignored while the bot stops.
   * A removal the store refused is tried again with later calls, so a store outage does not
   * leave a delivered request to be delivered again at the next start.
   */
  async settled(ticket: SpeechTicket): Promise<void> {
    if (this.#frozen) return;
    this.#unremoved.add(ticket.id);
    await this.#removeEnded();
  }

  async #removeEnded(): Promise<void> {
    for (const id of [...this.#unremoved]) {
      await this.#journal.remove(id);
      this.#unremoved.delete(id);
    }
  }

  /** The bot is stopping: from now on, ends reported by parts shutting down do not forget anything. */
  freeze(): void {
    this.#frozen = true;
  }

  #entry(ticket: SpeechTicket): PendingSpeech {
    const { channelId, reply } = ticket.origin;
    const voiceChannelId =
      ticket.output === 'voice' ? this.#voiceChannelOf(ticket.guildId) : undefined;
    return {
      id: ticket.id,
      guildId: ticket.guildId,
      requesterId: ticket.requesterId,
      requesterName: ticket.requesterName,
      output: ticket.output,
      request: ticket.request,
      recordedAt: this.#clock.now(),
      ...(channelId === undefined ? {} : { channelId }),
      ...(reply === undefined ? {} : { reply: { ...reply } }),
      ...(voiceChannelId === undefined ? {} : { voiceChannelId }),
    };
  }
}
