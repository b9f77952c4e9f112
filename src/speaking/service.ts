/**
 * The one speaking path: every adapter (`/say`, the chat reader) checks, voices, queues,
 * generates and delivers speech through {@link SpeakingService}.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/index.ts';
import { expectedSpeechMs } from '../queue/index.ts';
import { UserError, userRefusal } from '../refusal/index.ts';
import { audioDurationMs, validateSay } from '../speech/index.ts';
import type { SettingsStore, UsageLedger } from '../store/index.ts';
import {
  type Clock,
  type FinishedGeneration,
  openSniffed,
  type SpeechRequest,
  type TtsClient,
  type TtsClients,
} from '../tts/index.ts';
import type { SpeakOutcome, SpeakUpdate, SpeechSource, VoiceService } from '../voice/index.ts';
import { chooseOutput, pickVoice } from './choose.ts';
import { TicketJournal } from './journal.ts';
import { liveSource } from './live-source.ts';
import { checkShare, memberDailyShare } from './quota.ts';
import { Reservations } from './reservations.ts';
import { Slots } from './slots.ts';
import {
  type FileProgress,
  MAX_TEXT_LENGTH,
  type PreparedSpeech,
  type ReadySpeech,
  type Requester,
  type SpeechEnd,
  type SpeechFile,
  type SpeechInput,
  type SpeechJournal,
} from './types.ts';

/** Generation ids remembered as counted: far more than can share one at a time. */
const COUNTED_KEPT = 1000;

/** File-mode requests per server waiting for the key (and downloading) at once, when not told otherwise. */
export const DEFAULT_FILES_AT_ONCE = 5;

/** What the speaking service is built from (the composition root passes the bot's own). */
export interface SpeakingServiceOptions {
  readonly settings: Pick<SettingsStore, 'guild' | 'user'>;
  /** The server's API key, decrypted; undefined when none is set. */
  readonly apiKeyOf: (guildId: string) => Promise<string | undefined>;
  readonly tts: Pick<TtsClients, 'forKey'>;
  readonly voice: Pick<VoiceService, 'channelOf' | 'speak'>;
  /** Generations recorded per server, member and day: the per-member daily share counts from it. */
  readonly usage: UsageLedger;
  /** The key's daily generation limit; the default member share is a fifth of it. */
  readonly dailyLimit: number | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Shortest text the API accepts. */
  readonly minTextLength: number;
  /**
   * File-mode requests per server waiting for the key's budget at once (more wait in line), and
   * downloading at once. Default 5.
   */
  readonly filesAtOnce?: number;
  /** Records pending generations so they survive a restart; none by default. */
  readonly journal?: SpeechJournal | undefined;
  /**
   * Told once how each request ended, whether or not it reached the API (for metrics);
   * `cached` is a delivery of audio reused from the cache.
   */
  readonly onEnd?: ((outcome: SpeechEnd['state'] | 'cached') => void) | undefined;
}

/** How a file-mode request is followed and handed over. */
export interface AttachOptions {
  /** Largest attachment the server allows, in bytes. */
  readonly maxBytes: number;
  readonly onProgress: (progress: FileProgress) => void;
  /** Hands the audio to the requester (e.g. edits the reply); the request counts as delivered once it resolves. */
  readonly deliver: (file: SpeechFile) => Promise<void>;
}

/** Where a voice request was queued. */
export interface Queued {
  readonly itemId: string;
  readonly position: number;
}

/** A voice item's last update, as the journal records its end. */
function endOf(update: SpeakUpdate): SpeechEnd | undefined {
  switch (update.state) {
    case 'played':
      return { state: 'delivered' };
    case 'failed':
      return { state: 'failed', error: update.error };
    case 'skipped':
    case 'cancelled':
      return { state: update.state };
    default:
      return undefined;
  }
}

/** A voice-queue source that generates with the server's client and streams from its media origins. */
export function ttsSource(
  client: Pick<TtsClient, 'generate' | 'stream'>,
  request: SpeechRequest,
  onSubmitted?: (generationId: string) => Promise<void>,
  onGenerated?: (finished: FinishedGeneration) => void,
): SpeechSource {
  return {
    generate: async (signal) => {
      const finished = await client.generate(request, {
        signal,
        ...(onSubmitted ? { onSubmitted } : {}),
      });
      onGenerated?.(finished);
      return finished.audioUrl;
    },
    open: (audioUrl, signal) => openSniffed(client, audioUrl, signal),
  };
}

/** Checks, voices, queues, generates and delivers speech for any adapter. */
export class SpeakingService {
  readonly #options: SpeakingServiceOptions;
  readonly #logger: Logger;
  readonly #reservations = new Reservations();
  /**
   * File requests of a server waiting for the key's budget or being submitted; a place is given
   * up once the API accepted the request. Held while generating, it would keep the next request
   * from budget that frees meanwhile, and each such delay is kept for good (a window's submits
   * come back one window later). A flood of files still puts at most a few requests ahead of the
   * server's voice items in the key's line.
   */
  readonly #inLine: Slots;
  /** File requests of a server downloading and measuring their audio: bounds the memory they hold. */
  readonly #downloading: Slots;
  /** Generations already counted in the ledger (identical requests at once share one), newest last. */
  readonly #counted = new Set<string>();

  constructor(options: SpeakingServiceOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'speaking' });
    this.#inLine = new Slots(options.filesAtOnce ?? DEFAULT_FILES_AT_ONCE);
    this.#downloading = new Slots(options.filesAtOnce ?? DEFAULT_FILES_AT_ONCE);
  }

  /**
   * Every check that needs no TTS call: the server's key, the text and options (with the
   * requester's and the server's defaults), and where the speech goes. Throws a UserError.
   */
  async prepare(input: SpeechInput): Promise<PreparedSpeech> {
    const { settings, voice } = this.#options;
    const client = await this.#clientFor(input.guildId, input.requester);
    const [guild, user] = await Promise.all([
      settings.guild(input.guildId),
      settings.user(input.requester.id),
    ]);
    const choices = input.choices ?? {};
    const validated = validateSay(
      {
        text: input.text,
        voice: choices.voice ?? null,
        model: choices.model ?? null,
        speed: choices.speed ?? null,
        emotion: choices.emotion ?? null,
      },
      input.text,
      { user, guild: guild.defaults },
      { min: this.#options.minTextLength, max: MAX_TEXT_LENGTH },
    );
    const output = chooseOutput(
      input.output,
      voice.channelOf(input.guildId),
      input.requesterChannelId,
    );
    const memberDaily = memberDailyShare(guild.limits.memberDaily, this.#options.dailyLimit);
    return { input, output, validated, client, memberDaily };
  }

  /**
   * Chooses the voice from the server's (cached) voice list, and counts the request against
   * the requester's daily share (refused with when it frees up once it is used).
   */
  async chooseVoice(prepared: PreparedSpeech): Promise<ReadySpeech> {
    const { validated, input, output } = prepared;
    const voice = pickVoice(
      await prepared.client.voices(validated.model),
      validated.voiceId,
      validated.model,
    );
    const request: SpeechRequest = {
      text: validated.text,
      voiceId: voice.voiceId,
      model: validated.model,
      ...(validated.speed === undefined ? {} : { speed: validated.speed }),
      ...(validated.emotion === undefined ? {} : { emotion: validated.emotion }),
    };
    const ticket = {
      id: randomUUID(),
      guildId: input.guildId,
      requesterId: input.requester.id,
      requesterName: input.requester.name,
      output,
      request,
      origin: input.origin ?? {},
    };
    await this.#reserve(input.guildId, input.requester, prepared.memberDaily, ticket.id);
    return { ...prepared, voice, request, ticket };
  }

  /**
   * Queues the speech in the server's voice channel; `onUpdate` hears of every change of the
   * item, ending with played, failed, skipped or cancelled. Throws a UserError when refused.
   */
  speak(speech: ReadySpeech, onUpdate: (update: SpeakUpdate) => void): Queued {
    const { ticket, request } = speech;
    const journal = this.#journalOf(speech);
    let ended = false;
    let fromCache = false;
    const outcome = this.#options.voice.speak({
      guildId: ticket.guildId,
      requesterId: ticket.requesterId,
      requesterName: ticket.requesterName,
      text: request.text,
      expectedMs: expectedSpeechMs(request.text.length, request.speed),
      // Streamed live where the key's API streams (v3), else generated and then fetched.
      source: (speech.client.streams ? liveSource : ttsSource)(
        this.#currentClient(speech),
        request,
        this.#onSubmitted(speech, journal),
        (finished) => {
          fromCache = finished.cached === true;
        },
      ),
      onUpdate: (update) => {
        const end = endOf(update);
        if (end !== undefined && !ended) {
          ended = true;
          this.#reservations.release(ticket.id);
          journal.settled(end);
          this.#ended(end, fromCache);
        }
        onUpdate(update);
      },
    });
    if (outcome.ok) {
      journal.queued();
      return { itemId: outcome.itemId, position: outcome.position };
    }
    this.#reservations.release(ticket.id);
    throw refusalOf(outcome, 'left_voice');
  }

  /**
   * Queues a turn whose text is decided only when its generation starts: `source` makes the
   * audio then (the chat reader takes whatever chat waits at that moment, so a busy chat
   * merges) and opens it when it plays. Not journalled: nothing is owed to a chat after a
   * restart. Throws a UserError when refused.
   */
  speakLater(
    turn: {
      readonly guildId: string;
      readonly requester: Pick<Requester, 'id' | 'name'>;
      /** What `/queue` shows for the turn. */
      readonly text: string;
      readonly source: SpeechSource;
    },
    onUpdate: (update: SpeakUpdate) => void,
  ): Queued {
    const outcome = this.#options.voice.speak({
      guildId: turn.guildId,
      requesterId: turn.requester.id,
      requesterName: turn.requester.name,
      text: turn.text,
      source: turn.source,
      onUpdate,
    });
    if (outcome.ok) return { itemId: outcome.itemId, position: outcome.position };
    throw refusalOf(outcome, 'not_in_voice');
  }

  /**
   * Generates and downloads the audio, reporting progress, and hands it to `deliver`. A few
   * requests per server at once wait for the key's budget (the others wait in line, told
   * their place), and a few download at once.
   */
  async attach(speech: ReadySpeech, options: AttachOptions): Promise<void> {
    const { client, request, ticket } = speech;
    const journal = this.#journalOf(speech);
    let leaveLine: (() => void) | undefined;
    let releaseDownload: (() => void) | undefined;
    try {
      leaveLine = await this.#inLine.acquire(ticket.guildId, ticket.requesterId, (place) =>
        options.onProgress({ stage: 'queued', place }),
      );
      const submitted = this.#onSubmitted(speech, journal);
      const { generationId, audioUrl, cached } = await client.generate(request, {
        // Accepted: the next in line may wait for the budget while this one generates.
        onSubmitted: (id) => {
          leaveLine?.();
          return submitted(id);
        },
        onProgress: (progress) =>
          options.onProgress(
            progress.stage === 'generating'
              ? { stage: 'generating' }
              : { stage: 'waiting', ahead: progress.ahead },
          ),
      });
      leaveLine(); // audio from the cache: nothing was submitted
      releaseDownload = await this.#downloading.acquire(
        ticket.guildId,
        ticket.requesterId,
        () => undefined,
      );
      options.onProgress({ stage: 'downloading' });
      const audio = await client.download(audioUrl);
      if (audio.bytes.length > options.maxBytes) {
        const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);
        throw new UserError('too_large', {
          size: mb(audio.bytes.length),
          limit: mb(options.maxBytes),
        });
      }
      const durationMs = await audioDurationMs(audio.bytes, audio.mime).catch((error: unknown) => {
        this.#logger.debug({ err: error }, 'could not read the audio duration');
        return undefined;
      });
      releaseDownload();
      await options.deliver({ generationId, ...audio, durationMs });
      journal.settled({ state: 'delivered' });
      this.#ended({ state: 'delivered' }, cached === true);
    } catch (error) {
      journal.settled({ state: 'failed', error });
      this.#ended({ state: 'failed', error });
      throw error;
    } finally {
      leaveLine?.();
      releaseDownload?.();
      this.#reservations.release(ticket.id);
    }
  }

  /**
   * Generations per member per day in force on the server (its `/config limits` setting, else
   * the default share); undefined when there is none. Members with Manage Server are exempt.
   */
  async memberShareOf(guildId: string): Promise<number | undefined> {
    const guild = await this.#options.settings.guild(guildId);
    return memberDailyShare(guild.limits.memberDaily, this.#options.dailyLimit);
  }

  /** The member's requests accepted but not yet submitted: counted against their daily share. */
  reservedFor(guildId: string, memberId: string): number {
    return this.#reservations.count(guildId, memberId);
  }

  /**
   * Runs `spend`, one generation made outside the speech path (a voice preview), counted
   * against the member's daily share like a `/say`: refused with a UserError when the share is
   * used up, and holding a place in it until `spend` ends (it records the generation itself).
   */
  async withinShare<T>(guildId: string, requester: Requester, spend: () => Promise<T>): Promise<T> {
    const ticketId = randomUUID();
    await this.#reserve(guildId, requester, await this.memberShareOf(guildId), ticketId);
    try {
      return await spend();
    } finally {
      this.#reservations.release(ticketId);
    }
  }

  // Counts the request against the requester's daily share, or refuses it. Nothing is awaited
  // between the check and the reservation, so two requests cannot both take the last one.
  async #reserve(
    guildId: string,
    requester: Requester,
    memberDaily: number | undefined,
    ticketId: string,
  ): Promise<void> {
    const { usage, clock } = this.#options;
    const exempt = requester.canManage || memberDaily === undefined;
    if (!exempt) await usage.load(guildId, clock.now());
    const now = clock.now();
    const check = checkShare({
      used: usage.memberToday(guildId, requester.id, now) ?? 0,
      reserved: this.#reservations.count(guildId, requester.id),
      share: memberDaily,
      exempt,
      now,
    });
    if (!check.ok) {
      throw userRefusal('member_daily_limit', { share: check.share, freesAt: check.freesAt });
    }
    this.#reservations.hold(guildId, requester.id, ticketId);
  }

  // The API accepted the request: count it in the ledger (which takes over from the
  // reservation at once), then journal it before its audio is awaited. A request that joined
  // an identical one already generating costs nothing: only the first is counted.
  #onSubmitted(speech: ReadySpeech, journal: TicketJournal) {
    const { ticket } = speech;
    return async (generationId: string): Promise<void> => {
      const counted = `${ticket.guildId}:${generationId}`;
      const recorded = this.#counted.has(counted)
        ? Promise.resolve()
        : this.#options.usage
            .record(ticket.guildId, ticket.requesterId, this.#options.clock.now())
            .catch((error: unknown) =>
              this.#logger.warn(
                { err: error, guildId: ticket.guildId },
                'usage ledger: record failed',
              ),
            );
      this.#counted.add(counted);
      if (this.#counted.size > COUNTED_KEPT) {
        for (const old of this.#counted) {
          this.#counted.delete(old);
          break;
        }
      }
      this.#reservations.release(ticket.id);
      await journal.submitted(generationId);
      await recorded;
    };
  }

  /** Tells `onEnd`; a failing listener must not change how speech ends. */
  #ended(end: SpeechEnd, fromCache = false): void {
    try {
      this.#options.onEnd?.(end.state === 'delivered' && fromCache ? 'cached' : end.state);
    } catch (error) {
      this.#logger.warn({ err: error }, 'onEnd listener failed');
    }
  }

  #journalOf(speech: ReadySpeech): TicketJournal {
    const logger = this.#logger.child({ guildId: speech.ticket.guildId });
    return new TicketJournal(this.#options.journal, speech.ticket, logger);
  }

  /**
   * The server's client as of each generation, not of the request: an item that waits in the
   * voice queue while the key is replaced generates with the new key, never the old one.
   */
  #currentClient(speech: ReadySpeech): Pick<TtsClient, 'generate' | 'live' | 'stream'> {
    const { guildId } = speech.ticket;
    return {
      generate: async (request, options) =>
        (await this.#clientFor(guildId, speech.input.requester)).generate(request, options),
      live: async (request, options) =>
        (await this.#clientFor(guildId, speech.input.requester)).live(request, options),
      stream: (audioUrl, signal) => speech.client.stream(audioUrl, signal),
    };
  }

  /** The server's client, or a UserError telling who can set a key and how. */
  async #clientFor(guildId: string, requester: Requester): Promise<TtsClient> {
    const apiKey = await this.#options.apiKeyOf(guildId);
    if (apiKey === undefined) {
      throw new UserError(requester.canManage ? 'no_api_key_admin' : 'no_api_key_member', {});
    }
    return this.#options.tts.forKey(apiKey);
  }
}

/**
 * The member's words for a refused voice item; `notConnected` says whether the bot left
 * voice under a prepared request (`left_voice`) or was never there (`not_in_voice`).
 */
function refusalOf(
  outcome: Extract<SpeakOutcome, { ok: false }>,
  notConnected: 'left_voice' | 'not_in_voice',
): UserError {
  switch (outcome.reason) {
    case 'requester_full':
      return userRefusal('member_queue_full', {
        max: outcome.maxPerRequester,
        freesAt: outcome.freesAt,
      });
    case 'full':
      return new UserError('queue_full', { max: outcome.maxLength });
    case 'not_connected':
      return new UserError(notConnected, {});
  }
}
