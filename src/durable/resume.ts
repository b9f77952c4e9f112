/**
 * Resumes the speech journalled by an earlier run: polls each generation
 * (never submitting it twice), then delivers it where the requester will see it
 * (how they are told is {@link ResumeReports}' job, `reports.ts`).
 */
import type { Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import { quoteSafely } from '../speech/index.ts';
import { StoreUnavailableError } from '../store/index.ts';
import {
  type Clock,
  type FinishedGeneration,
  type GenerateOptions,
  type TtsClient,
  untilAborted,
} from '../tts/index.ts';
import type { PendingJournal } from './journal.ts';
import { type PendingSpeech, resumePlan } from './pending.ts';
import { loggable, type RequeuedEnd, ResumeReports, type SendResult } from './reports.ts';

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
  readonly #reports: ResumeReports;

  constructor(options: ResumeOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'resume' });
    this.#reports = new ResumeReports({ ...options, logger: this.#logger });
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
        await this.#reports.tell(entry, this.#reports.t(entry).t('resume.key_removed'));
        return;
      }
      await this.#reports.showResuming(entry);
      const audioUrl = await this.#generation(entry, client, signal);
      if (audioUrl === undefined) return;
      if (entry.output === 'voice') await this.#toVoice(entry, client, audioUrl, signal);
      else await this.#reports.file(entry, await client.download(audioUrl, signal));
    } catch (error) {
      if (signal.aborted) return; // stopping: the entry stays for the next start
      if (error instanceof StoreUnavailableError) throw error;
      logger.warn({ err: loggable(error) }, 'pending speech failed');
      await this.#reports.tell(
        entry,
        `⚠️ ${this.#options.describeFailure(error, this.#reports.t(entry))}`,
      );
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
      await this.#reports.tell(
        entry,
        this.#reports.t(entry).t('resume.expired', { text: quoteSafely(entry.request.text) }),
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
    // Not learned: its submit time is the journal's (an earlier run, another shard, or a stream's
    // start), and its completion is only seen after the restart.
    const finished = await client.resume(
      { generationId, request: entry.request, submittedAt, learn: false },
      signal,
    );
    return finished.audioUrl;
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
          await this.#reports.showEnd(entry, end);
          await this.#options.journal.remove(entry.id);
          return;
        }
      }
      if (clock.now() >= giveUpAt) break;
      await clock.sleep(Math.min(voiceCheckMs, giveUpAt - clock.now()), signal);
    }
    await this.#reports.notBack(entry, await client.download(audioUrl, signal));
  }
}
