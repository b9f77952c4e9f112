/**
 * How the requester of resumed speech is told: the reply edited while its token works, else a
 * channel message (never a ping), in the guild's language, with a caption and perhaps the
 * audio. Each report that ends an entry removes it from the journal.
 */
import { english, type Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import { quoteSafely } from '../speech/index.ts';
import type { Audio, Clock } from '../tts/index.ts';
import type { PendingJournal } from './journal.ts';
import { type DeliveryRoute, deliveryRoute, type PendingSpeech } from './pending.ts';

/** A message for the requester: text (never a ping) and perhaps the audio. */
export interface ResultMessage {
  readonly content: string;
  readonly file?: { readonly name: string; readonly bytes: Buffer; readonly mime: string };
}

/** Sends a result by a route (an edit of the original reply, or a channel message). */
export type SendResult = (route: DeliveryRoute, message: ResultMessage) => Promise<void>;

/** How a re-queued voice item ended. */
export type RequeuedEnd = 'played' | 'failed' | 'skipped' | 'cancelled';

const END_TEXT = {
  played: 'resume.played',
  failed: 'resume.failed',
  skipped: 'say.skipped',
  cancelled: 'say.cancelled',
} as const satisfies Record<RequeuedEnd, string>;

/** Tells the requesters of resumed speech what became of it, by the best route there is. */
export class ResumeReports {
  readonly #journal: Pick<PendingJournal, 'remove'>;
  readonly #send: SendResult;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #translatorOf: ((guildId: string) => Translator) | undefined;

  constructor(options: {
    readonly journal: Pick<PendingJournal, 'remove'>;
    readonly send: SendResult;
    readonly clock: Clock;
    readonly logger: Logger;
    /** The language to tell a guild's members in (its community locale); English when absent. */
    readonly translatorOf?: ((guildId: string) => Translator) | undefined;
  }) {
    this.#journal = options.journal;
    this.#send = options.send;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#translatorOf = options.translatorOf;
  }

  /** The language of the entry's guild. */
  t(entry: PendingSpeech): Translator {
    return this.#translatorOf?.(entry.guildId) ?? english;
  }

  /** Replaces the progress line the previous run left in the reply (it would look stuck). */
  async showResuming(entry: PendingSpeech): Promise<void> {
    const text = this.t(entry).t(
      entry.output === 'voice' ? 'resume.resuming_voice' : 'resume.resuming_file',
    );
    await this.#editReply(entry, `${text}\n${caption(entry)}`);
  }

  /** Shows how a re-queued item ended in its reply, while that can be edited (members heard it). */
  async showEnd(entry: PendingSpeech, end: RequeuedEnd): Promise<void> {
    await this.#editReply(entry, `${this.t(entry).t(END_TEXT[end])} ${caption(entry)}`);
  }

  /** Delivers a file request's audio, then forgets the entry. */
  async file(entry: PendingSpeech, audio: Audio): Promise<void> {
    await this.deliver(entry, { content: `🔊 ${caption(entry)}`, file: fileOf(entry, audio) });
  }

  /** Delivers a voice item's audio as a file: the bot was not back in its channel in time. */
  async notBack(entry: PendingSpeech, audio: Audio): Promise<void> {
    const { t } = this.t(entry);
    const name = quoteSafely(entry.requesterName, 80);
    const notBack =
      entry.voiceChannelId === undefined
        ? t('resume.not_back', { name })
        : t('resume.not_back_channel', { channel: `<#${entry.voiceChannelId}>`, name });
    await this.deliver(entry, {
      content: `${notBack} ${caption(entry)}`,
      file: fileOf(entry, audio),
    });
  }

  /** Sends the result by the best route (the reply, else the channel), then forgets the entry. */
  async deliver(entry: PendingSpeech, message: ResultMessage): Promise<void> {
    const route = deliveryRoute(entry, this.#clock.now());
    try {
      if (route.kind === 'nowhere')
        this.#logger.warn({ pendingId: entry.id }, 'nowhere to deliver pending speech');
      else await this.#send(route, message);
    } catch (error) {
      // The reply may be gone (deleted, or its token refused): the channel is the fallback.
      if (route.kind !== 'reply' || entry.channelId === undefined) throw error;
      this.#logger.warn(
        { err: loggable(error), pendingId: entry.id },
        'could not edit the reply; posting in the channel',
      );
      await this.#send({ kind: 'channel', channelId: entry.channelId }, message);
    }
    await this.#journal.remove(entry.id);
  }

  /** Tells the requester in words (best effort) and forgets the entry. */
  async tell(entry: PendingSpeech, content: string): Promise<void> {
    try {
      await this.deliver(entry, { content: `${content}\n${caption(entry)}` });
    } catch (error) {
      this.#logger.warn(
        { err: loggable(error), pendingId: entry.id },
        'could not report pending speech',
      );
      await this.#journal.remove(entry.id);
    }
  }

  /** Edits the reply while its token works; a failure is only logged (the result comes later). */
  async #editReply(entry: PendingSpeech, content: string): Promise<void> {
    const route = deliveryRoute(entry, this.#clock.now());
    if (route.kind !== 'reply') return;
    await this.#send(route, { content }).catch((error: unknown) => {
      this.#logger.warn({ err: loggable(error), pendingId: entry.id }, 'could not edit the reply');
    });
  }
}

/**
 * An error as it may be logged here: a failed Discord request carries its URL, which holds the
 * interaction token, so only the name, message and status are kept.
 */
export function loggable(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { status } = error as { status?: unknown };
  return { name: error.name, message: error.message, ...(status === undefined ? {} : { status }) };
}

function caption(entry: PendingSpeech): string {
  return `**${quoteSafely(entry.requesterName, 80)}** · ${entry.request.model} — “${quoteSafely(entry.request.text)}”`;
}

function fileOf(entry: PendingSpeech, audio: Audio): NonNullable<ResultMessage['file']> {
  return {
    name: `speech-${entry.generationId?.slice(-8) ?? entry.id.slice(-8)}.${audio.extension}`,
    bytes: audio.bytes,
    mime: audio.mime,
  };
}
