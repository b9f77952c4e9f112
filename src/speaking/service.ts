/**
 * The one speaking path: every adapter (`/say`, the chat reader) checks, voices, queues,
 * generates and delivers speech through {@link SpeakingService}.
 */
import { randomUUID } from 'node:crypto';
import { UserError } from '../discord/user-error.ts';
import type { Logger } from '../log/index.ts';
import { audioDurationMs, validateSay } from '../speech/index.ts';
import type { SettingsStore } from '../store/index.ts';
import type { Clock, SpeechRequest, TtsClient, TtsClients } from '../tts/index.ts';
import type { SpeakUpdate, SpeechSource, VoiceService } from '../voice/index.ts';
import { chooseOutput, pickVoice } from './choose.ts';
import { TicketJournal } from './journal.ts';
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

/** What the speaking service is built from (the composition root passes the bot's own). */
export interface SpeakingServiceOptions {
  readonly settings: Pick<SettingsStore, 'guild' | 'user'>;
  /** The server's API key, decrypted; undefined when none is set. */
  readonly apiKeyOf: (guildId: string) => Promise<string | undefined>;
  readonly tts: Pick<TtsClients, 'forKey'>;
  readonly voice: Pick<VoiceService, 'channelOf' | 'speak'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Shortest text the API accepts. */
  readonly minTextLength: number;
  /** Records pending generations so they survive a restart; none by default. */
  readonly journal?: SpeechJournal | undefined;
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
): SpeechSource {
  return {
    generate: async (signal) =>
      (await client.generate(request, { signal, ...(onSubmitted ? { onSubmitted } : {}) }))
        .audioUrl,
    open: (audioUrl, signal) => client.stream(audioUrl, signal),
  };
}

/** Checks, voices, queues, generates and delivers speech for any adapter. */
export class SpeakingService {
  readonly #options: SpeakingServiceOptions;
  readonly #logger: Logger;

  constructor(options: SpeakingServiceOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'speaking' });
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
    return { input, output, validated, client };
  }

  /** Chooses the voice from the server's (cached) voice list: the request exactly as it will be sent. */
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
    return { ...prepared, voice, request, ticket };
  }

  /**
   * Queues the speech in the server's voice channel; `onUpdate` hears of every change of the
   * item, ending with played, failed, skipped or cancelled. Throws a UserError when refused.
   */
  speak(speech: ReadySpeech, onUpdate: (update: SpeakUpdate) => void): Queued {
    const { ticket } = speech;
    const journal = this.#journalOf(speech);
    const outcome = this.#options.voice.speak({
      guildId: ticket.guildId,
      requesterId: ticket.requesterId,
      requesterName: ticket.requesterName,
      text: speech.request.text,
      source: ttsSource(speech.client, speech.request, (id) => journal.submitted(id)),
      onUpdate: (update) => {
        const end = endOf(update);
        if (end !== undefined) journal.settled(end);
        onUpdate(update);
      },
    });
    if (outcome.ok) {
      journal.queued();
      return { itemId: outcome.itemId, position: outcome.position };
    }
    throw outcome.reason === 'full'
      ? new UserError(
          'queue_full',
          `The queue is full (${outcome.maxLength} items). Try again when it has moved on.`,
        )
      : new UserError(
          'not_in_voice',
          'I am not in a voice channel any more. Use `/join` first, or `output: file`.',
        );
  }

  /** Generates and downloads the audio, reporting progress, and hands it to `deliver`. */
  async attach(speech: ReadySpeech, options: AttachOptions): Promise<void> {
    const { client, request } = speech;
    const journal = this.#journalOf(speech);
    try {
      const { generationId, audioUrl } = await client.generate(request, {
        onSubmitted: (id) => journal.submitted(id),
        onProgress: (progress) =>
          options.onProgress(
            progress.stage === 'generating'
              ? { stage: 'generating' }
              : { stage: 'waiting', ahead: progress.ahead },
          ),
      });
      options.onProgress({ stage: 'downloading' });
      const audio = await client.download(audioUrl);
      if (audio.bytes.length > options.maxBytes) {
        const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);
        throw new UserError(
          'too_large',
          `The audio is ${mb(audio.bytes.length)} MB, more than this server allows for attachments (${mb(options.maxBytes)} MB). Use shorter text, or \`/join\` and have it spoken.`,
        );
      }
      const durationMs = await audioDurationMs(audio.bytes, audio.mime).catch((error: unknown) => {
        this.#logger.debug({ err: error }, 'could not read the audio duration');
        return undefined;
      });
      await options.deliver({ generationId, ...audio, durationMs });
      journal.settled({ state: 'delivered' });
    } catch (error) {
      journal.settled({ state: 'failed', error });
      throw error;
    }
  }

  #journalOf(speech: ReadySpeech): TicketJournal {
    const logger = this.#logger.child({ guildId: speech.ticket.guildId });
    return new TicketJournal(this.#options.journal, speech.ticket, logger);
  }

  /** The server's client, or a UserError telling who can set a key and how. */
  async #clientFor(guildId: string, requester: Requester): Promise<TtsClient> {
    const apiKey = await this.#options.apiKeyOf(guildId);
    if (apiKey === undefined) {
      throw new UserError(
        'no_api_key',
        requester.canManage
          ? 'This server has no TTS API key yet. Set one with `/config api-key`.'
          : 'This server has no TTS API key yet. Ask a server admin (Manage Server) to set one with `/config api-key`.',
      );
    }
    return this.#options.tts.forKey(apiKey);
  }
}
