/**
 * Resumes the speech journalled by an earlier run: polls each generation
 * (never submitting it twice), then delivers it where the requester will see it.
 */
import { english, type Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import { quoteSafely } from '../speech/index.ts';
import { StoreUnavailableError } from '../store/index.ts';
import {
  type Audio,
  type Clock,
  type FinishedGeneration,
  type GenerateOptions,
  type TtsClient,
  untilAborted,
} from '../tts/index.ts';
import type { PendingJournal } from './journal.ts';
import { type DeliveryRoute, deliveryRoute, type PendingSpeech, resumePlan } from './pending.ts';

/** A message for the requester: text (never a ping) and perhaps the audio. */
export interface ResultMessage {
  readonly content: string;
  readonly file?: { readonly name: string; readonly bytes: Buffer; readonly mime: string };
}

/** Sends a result by a route (an edit of the original reply, or a channel message). */
export type SendResult = (route: DeliveryRoute, message: ResultMessage) => Promise<void>;

/** How a re-queued voice item ended. */
export type RequeuedEnd = 'played' | 'failed' | 'skipped' | 'cancelled';

/** What resuming needs from the rest of the bot. */
export interface ResumeOptions {
  readonly journal: Pick<PendingJournal, 'list' | 'record' | 'remove'>;
  /** The guild's TTS client; undefined when it no longer has a key. */
  readonly clientFor: (guildId: string) => Promise<TtsClient | undefined>;
  readonly send: SendResult;
  /** User-facing words for a failure (the bot's one table of messages), in a language. */
  readonly describeFailure: (error: unknown, translator: Translator) => string;
  /** The language to tell a guild's members in (its community locale); English when absent. */
  readonly translatorOf?: (guildId: string) => Translator;
  /**
   * Whether this process serves a guild, so resumes its speech: under a shard manager each
   * shard resumes only its own guilds' (every shard reads the same journal). Default: all.
   */
  readonly owns?: (guildId: string) => boolean;
  /** The voice channel the bot is in, in a guild. */
  readonly voiceChannelOf: (guildId: string) => string | undefined;
  /**
   * Submits an entry that never reached the API (the speaking service, which records it in the
   * usage ledger); straight to the guild's client when absent.
   */
  readonly submit?: (entry: PendingSpeech, options: GenerateOptions) => Promise<FinishedGeneration>;
  /**
   * Queues finished audio of `entry` in its guild's voice channel; `onEnd` hears how it ended.
   * False when it could not be queued.
   */
  readonly requeue: (
    entry: PendingSpeech,
    audio: { audioUrl: string; client: TtsClient },
    onEnd: (end: RequeuedEnd) => void,
  ) => boolean;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long a voice item waits for the bot to be back in its channel before it is reported. */
  readonly voiceWaitMs: number;
  /** How often the bot's voice channel is checked while voice items wait. */
  readonly voiceCheckMs?: number;
}

/** How long to wait before trying again when the store is away. */
const STORE_RETRY_MS = 15_000;

/** Resumes pending speech after a start; {@link stop} leaves what is unfinished journalled. */
export class PendingResumer {
  readonly #options: ResumeOptions;
  readonly #logger: Logger;
  readonly #stopping = new AbortController();
  readonly #running = new Set<Promise<void>>();

  constructor(options: ResumeOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'resume' });
  }

  /**
   * Like {@link start}, but while the store cannot be read it tries again every `retryMs`
   * (until the bot stops), so pending speech outlasts a store outage at start-up.
   */
  async startWhenReadable(retryMs = STORE_RETRY_MS): Promise<number> {
    const signal = this.#stopping.signal;
    for (;;) {
      try {
        return await this.start();
      } catch (error) {
        if (signal.aborted) return 0;
        this.#logger.warn({ err: loggable(error) }, 'cannot read pending speech yet; trying again');
        const stopped = await this.#options.clock.sleep(retryMs, signal).then(
          () => false,
          () => true,
        );
        if (stopped) return 0;
      }
    }
  }

  /** Starts resuming every journalled request this process owns; resolves with how many were found. */
  async start(): Promise<number> {
    const entries = await this.#options.journal.list(this.#options.owns);
    if (entries.length > 0) this.#logger.info({ count: entries.length }, 'resuming pending speech');
    for (const entry of entries) {
      const run = this.#resume(entry).catch((error: unknown) =>
        this.#logger.error({ err: loggable(error), pendingId: entry.id }, 'resuming failed'),
      );
      this.#running.add(run);
      void run.finally(() => this.#running.delete(run));
    }
    return entries.length;
  }

  /** Resolves when everything started so far has been delivered or reported (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /** Stops waiting and polling; unfinished entries stay in the journal for the next start. */
  async stop(): Promise<void> {
    this.#stopping.abort(new Error('the bot is stopping'));
    await this.idle();
  }

  async #resume(entry: PendingSpeech): Promise<void> {
    const signal = this.#stopping.signal;
    // The store being away is no reason to give up on the request: try again once it is back.
    for (;;) {
      try {
        return await this.#resumeOnce(entry, signal);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError) || signal.aborted) throw error;
        this.#logger.warn({ err: loggable(error), pendingId: entry.id }, 'store away; will retry');
        await this.#options.clock.sleep(STORE_RETRY_MS, signal).catch(() => undefined);
        if (signal.aborted) return;
      }
    }
  }

  async #resumeOnce(entry: PendingSpeech, signal: AbortSignal): Promise<void> {
    const logger = this.#logger.child({ pendingId: entry.id, guildId: entry.guildId });
    try {
      const client = await this.#options.clientFor(entry.guildId);
      if (client === undefined) {
        await this.#tell(entry, this.#t(entry).t('resume.key_removed'));
        return;
      }
      await this.#showResuming(entry);
      const audioUrl = await this.#generation(entry, client, signal);
      if (audioUrl === undefined) return;
      if (entry.output === 'voice') await this.#toVoice(entry, client, audioUrl, signal);
      else await this.#toFile(entry, client, audioUrl, signal);
    } catch (error) {
      if (signal.aborted) return; // stopping: the entry stays for the next start
      if (error instanceof StoreUnavailableError) throw error;
      logger.warn({ err: loggable(error) }, 'pending speech failed');
      await this.#tell(entry, `⚠️ ${this.#options.describeFailure(error, this.#t(entry))}`);
    }
  }

  /** The audio address of the entry's generation: polled when submitted, else submitted now. */
  async #generation(
    entry: PendingSpeech,
    client: TtsClient,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const { clock, journal } = this.#options;
    const plan = resumePlan(entry, clock.now());
    if (plan.kind === 'expired') {
      await this.#tell(
        entry,
        this.#t(entry).t('resume.expired', { text: quoteSafely(entry.request.text) }),
      );
      return undefined;
    }
    if (plan.kind === 'submit') {
      // Never reached the API: generated now (from the cache when it has it), journalled once accepted.
      const options: GenerateOptions = {
        signal,
        onSubmitted: (generationId) =>
          journal.record({ ...entry, generationId, submittedAt: clock.now() }),
      };
      const { submit } = this.#options;
      const finished = await (submit
        ? submit(entry, options)
        : client.generate(entry.request, options));
      return finished.audioUrl;
    }
    const { generationId, submittedAt } = plan;
    const finished = await client.resume(
      { generationId, request: entry.request, submittedAt },
      signal,
    );
    return finished.audioUrl;
  }

  async #toFile(
    entry: PendingSpeech,
    client: TtsClient,
    audioUrl: string,
    signal: AbortSignal,
  ): Promise<void> {
    const audio = await client.download(audioUrl, signal);
    await this.#deliver(entry, { content: `🔊 ${caption(entry)}`, file: fileOf(entry, audio) });
  }

  /** Waits for the bot to be back in the item's voice channel and queues it there; else reports it with the audio. */
  async #toVoice(
    entry: PendingSpeech,
    client: TtsClient,
    audioUrl: string,
    signal: AbortSignal,
  ): Promise<void> {
    const { clock, voiceWaitMs, voiceCheckMs = 2000 } = this.#options;
    const giveUpAt = clock.now() + voiceWaitMs;
    for (;;) {
      const channel = this.#options.voiceChannelOf(entry.guildId);
      if (
        channel !== undefined &&
        (entry.voiceChannelId === undefined || channel === entry.voiceChannelId)
      ) {
        const ended = Promise.withResolvers<RequeuedEnd>();
        if (this.#options.requeue(entry, { audioUrl, client }, ended.resolve)) {
          // A stop abandons the wait (the item stays journalled); it must not wait for voice to end.
          const end = await untilAborted(ended.promise, signal);
          this.#logger.info({ pendingId: entry.id, end }, 'resumed voice item ended');
          await this.#showEnd(entry, end);
          await this.#options.journal.remove(entry.id);
          return;
        }
      }
      if (clock.now() >= giveUpAt) break;
      await clock.sleep(Math.min(voiceCheckMs, giveUpAt - clock.now()), signal);
    }
    const audio = await client.download(audioUrl, signal);
    const { t } = this.#t(entry);
    const name = quoteSafely(entry.requesterName, 80);
    const notBack =
      entry.voiceChannelId === undefined
        ? t('resume.not_back', { name })
        : t('resume.not_back_channel', { channel: `<#${entry.voiceChannelId}>`, name });
    await this.#deliver(entry, {
      content: `${notBack} ${caption(entry)}`,
      file: fileOf(entry, audio),
    });
  }

  /** Replaces the progress line the previous run left in the reply (it would look stuck). */
  async #showResuming(entry: PendingSpeech): Promise<void> {
    const text = this.#t(entry).t(
      entry.output === 'voice' ? 'resume.resuming_voice' : 'resume.resuming_file',
    );
    await this.#editReply(entry, `${text}\n${caption(entry)}`);
  }

  /** Edits the reply while its token works; a failure is only logged (the result comes later). */
  async #editReply(entry: PendingSpeech, content: string): Promise<void> {
    const route = deliveryRoute(entry, this.#options.clock.now());
    if (route.kind !== 'reply') return;
    await this.#options.send(route, { content }).catch((error: unknown) => {
      this.#logger.warn({ err: loggable(error), pendingId: entry.id }, 'could not edit the reply');
    });
  }

  /** Shows how a re-queued item ended in its reply, while that can be edited (members heard it). */
  async #showEnd(entry: PendingSpeech, end: RequeuedEnd): Promise<void> {
    await this.#editReply(entry, `${this.#t(entry).t(END_TEXT[end])} ${caption(entry)}`);
  }

  /** Sends the result by the best route (the reply, else the channel), then forgets the entry. */
  async #deliver(entry: PendingSpeech, message: ResultMessage): Promise<void> {
    const { clock, send, journal } = this.#options;
    const route = deliveryRoute(entry, clock.now());
    try {
      if (route.kind === 'nowhere')
        this.#logger.warn({ pendingId: entry.id }, 'nowhere to deliver pending speech');
      else await send(route, message);
    } catch (error) {
      // The reply may be gone (deleted, or its token refused): the channel is the fallback.
      if (route.kind !== 'reply' || entry.channelId === undefined) throw error;
      this.#logger.warn(
        { err: loggable(error), pendingId: entry.id },
        'could not edit the reply; posting in the channel',
      );
      await send({ kind: 'channel', channelId: entry.channelId }, message);
    }
    await journal.remove(entry.id);
  }

  /** The language of the entry's guild. */
  #t(entry: PendingSpeech): Translator {
    return this.#options.translatorOf?.(entry.guildId) ?? english;
  }

  /** Tells the requester in words (best effort) and forgets the entry. */
  async #tell(entry: PendingSpeech, content: string): Promise<void> {
    try {
      await this.#deliver(entry, { content: `${content}\n${caption(entry)}` });
    } catch (error) {
      this.#logger.warn(
        { err: loggable(error), pendingId: entry.id },
        'could not report pending speech',
      );
      await this.#options.journal.remove(entry.id);
    }
  }
}

/**
 * An error as it may be logged here: a failed Discord request carries its URL, which holds the
 * interaction token, so only the name, message and status are kept.
 */
function loggable(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { status } = error as { status?: unknown };
  return { name: error.name, message: error.message, ...(status === undefined ? {} : { status }) };
}

const END_TEXT = {
  played: 'resume.played',
  failed: 'resume.failed',
  skipped: 'say.skipped',
  cancelled: 'say.cancelled',
} as const satisfies Record<RequeuedEnd, string>;

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
