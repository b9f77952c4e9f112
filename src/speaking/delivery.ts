/**
 * Getting a checked request's speech to people: queued in the voice channel (generated when its
 * turn comes), or generated, downloaded and handed over as a file; and finished audio of a
 * resumed request put back in the queue.
 */

import { expectedSpeechMs } from '../queue/index.ts';
import { UserError } from '../refusal/index.ts';
import { audioDurationMs } from '../speech/index.ts';
import {
  type GenerationCost,
  openSniffed,
  type SpeechRequest,
  type TtsClient,
} from '../tts/index.ts';
import type { SpeakUpdate } from '../voice/index.ts';
import { predictedBill } from './budget.ts';
import type { SpeakingContext } from './context.ts';
import type { TicketJournal } from './journal.ts';
import { liveSource } from './live-source.ts';
import { queueRefusal } from './refusals.ts';
import { Slots } from './slots.ts';
import { endOf, ttsSource } from './sources.ts';
import type { AttachOptions, Queued, ReadySpeech, ReplayEnd, ResumedSpeech } from './types.ts';

/** File-mode requests per server waiting for the key (and downloading) at once, when not told otherwise. */
export const DEFAULT_FILES_AT_ONCE = 5;

const ENDS: readonly SpeakUpdate['state'][] = ['played', 'failed', 'skipped', 'cancelled'];

/** Voice and file delivery of the speaking service. */
export class Delivery {
  readonly #context: SpeakingContext;
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

  constructor(context: SpeakingContext) {
    this.#context = context;
    const filesAtOnce = context.options.filesAtOnce ?? DEFAULT_FILES_AT_ONCE;
    this.#inLine = new Slots(filesAtOnce);
    this.#downloading = new Slots(filesAtOnce);
  }

  /**
   * Queues the speech in the server's voice channel; `onUpdate` hears of every change of the
   * item, ending with played, failed, skipped or cancelled. Throws a UserError when refused.
   */
  speak(speech: ReadySpeech, onUpdate: (update: SpeakUpdate) => void): Queued {
    const { ticket, request } = speech;
    const { spending } = this.#context;
    const journal = this.#context.journalOf(ticket);
    let ended = false;
    let fromCache = false;
    const outcome = this.#context.options.voice.speak({
      guildId: ticket.guildId,
      requesterId: ticket.requesterId,
      requesterName: ticket.requesterName,
      text: request.text,
      expectedMs: expectedSpeechMs(request.text.length, request.speed),
      // Streamed live where the key's API streams (v3), else generated and then fetched.
      source: (speech.client.streams ? liveSource : ttsSource)(
        this.#currentClient(speech),
        request,
        { onSubmitted: this.#onSubmitted(speech, journal), holdAgain: this.#holdAgain(speech) },
        (finished) => {
          fromCache = finished.cached === true;
        },
        this.#context.options.decodePcm,
      ),
      onUpdate: (update) => {
        const end = endOf(update);
        if (end !== undefined && !ended) {
          ended = true;
          spending.release(ticket.id);
          journal.settled(end);
          this.#context.ended(end, fromCache);
        }
        onUpdate(update);
      },
    });
    if (outcome.ok) {
      journal.queued();
      return { itemId: outcome.itemId, position: outcome.position };
    }
    spending.release(ticket.id);
    throw queueRefusal(outcome, 'left_voice');
  }

  /**
   * Generates and downloads the audio, reporting progress, and hands it to `deliver`. A few
   * requests per server at once wait for the key's budget (the others wait in line, told
   * their place), and a few download at once.
   */
  async attach(speech: ReadySpeech, options: AttachOptions): Promise<void> {
    const { client, request, ticket } = speech;
    const journal = this.#context.journalOf(ticket);
    let leaveLine: (() => void) | undefined;
    let releaseDownload: (() => void) | undefined;
    try {
      leaveLine = await this.#inLine.acquire(ticket.guildId, ticket.requesterId, (place) =>
        options.onProgress({ stage: 'queued', place }),
      );
      const submitted = this.#onSubmitted(speech, journal);
      const { generationId, audioUrl, cached } = await client.generate(request, {
        holdAgain: this.#holdAgain(speech),
        // Accepted: the next in line may wait for the budget while this one generates.
        onSubmitted: (id, cost) => {
          leaveLine?.();
          return submitted(id, cost);
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
        this.#context.logger.debug({ err: error }, 'could not read the audio duration');
        return undefined;
      });
      releaseDownload();
      await options.deliver({ generationId, ...audio, durationMs });
      journal.settled({ state: 'delivered' });
      this.#context.ended({ state: 'delivered' }, cached === true);
    } catch (error) {
      journal.settled({ state: 'failed', error });
      this.#context.ended({ state: 'failed', error });
      throw error;
    } finally {
      leaveLine?.();
      releaseDownload?.();
      this.#context.spending.release(ticket.id);
    }
  }

  /**
   * Puts finished audio of a resumed request back in its server's voice queue: nothing is
   * generated or recorded again (the journal entry is the resumer's). False when refused.
   */
  replay(
    item: ResumedSpeech,
    audio: { readonly audioUrl: string; readonly client: Pick<TtsClient, 'stream'> },
    onEnd: (end: ReplayEnd) => void,
  ): boolean {
    const outcome = this.#context.options.voice.speak({
      guildId: item.guildId,
      requesterId: item.requesterId,
      requesterName: item.requesterName,
      text: item.request.text,
      source: {
        generate: async () => audio.audioUrl,
        open: (address, signal) => openSniffed(audio.client, address, signal),
      },
      onUpdate: (update) => {
        if (ENDS.includes(update.state)) onEnd(update.state as ReplayEnd);
      },
    });
    return outcome.ok;
  }

  // Audio the cache served the request, gone at the vendor when fetched, is generated again:
  // held against the server's budget (again, if its first hold is gone) as the request was.
  #holdAgain(speech: ReadySpeech): () => Promise<() => void> {
    const { ticket, request, client, dailyBudget } = speech;
    return () =>
      this.#context.spending.holdAgain(
        ticket.guildId,
        ticket.id,
        dailyBudget,
        predictedBill(client, request),
      );
  }

  // The API accepted the request: record it in the ledger (which takes over from the
  // reservation at once), then journal it before its audio is awaited.
  #onSubmitted(speech: ReadySpeech, journal: TicketJournal) {
    const { ticket } = speech;
    return async (generationId: string, cost?: GenerationCost): Promise<void> => {
      const recorded = this.#context.spending.record(
        ticket.guildId,
        ticket.requesterId,
        generationId,
        ticket.id,
        cost,
      );
      await journal.submitted(generationId);
      await recorded;
    };
  }

  /**
   * The server's client as of each generation, not of the request: an item that waits in the
   * voice queue while the key is replaced generates with the new key, never the old one.
   */
  #currentClient(speech: ReadySpeech): Pick<TtsClient, 'generate' | 'live' | 'stream'> {
    const { guildId } = speech.ticket;
    const { canManage } = speech.input.requester;
    return {
      generate: async (request: SpeechRequest, options) =>
        (await this.#context.clientFor(guildId, canManage)).generate(request, options),
      live: async (request: SpeechRequest, options) =>
        (await this.#context.clientFor(guildId, canManage)).live(request, options),
      stream: (audioUrl, signal) => speech.client.stream(audioUrl, signal),
    };
  }
}
