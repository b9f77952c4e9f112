/**
 * The `/say` side of the speaking service: who asks, from where, and the reply that follows a
 * request (throttled progress edits, then the audio or the outcome).
 */
import type {
  ChatInputCommandInteraction,
  Interaction,
  InteractionEditReplyOptions,
} from 'discord.js';
import type {
  FileProgress,
  ReadySpeech,
  Requester,
  SpeechFile,
  SpeechFollower,
  SpeechOrigin,
} from '../speaking/index.ts';
import {
  fileProgress,
  formatSeconds,
  quoteSafely,
  voiceLabel,
  voiceProgress,
} from '../speech/index.ts';
import { safeFileStem } from '../tts/index.ts';
import { dailyUsage, lowQuotaLine } from '../usage/index.ts';
import type { SpeakUpdate } from '../voice/index.ts';
import type { CommandContext } from './command.ts';
import { canManage } from './guild.ts';
import { ThrottledReply } from './progress.ts';
import { reportFailure } from './router.ts';

const noMentions = { allowedMentions: { parse: [] } } as const;
/** Discord accepts edits of an interaction's reply for 15 minutes. */
const TOKEN_LIFETIME_MS = 15 * 60_000;

/** The member who ran the command (or used the menu), as the speaking service sees them. */
export function requesterOf(interaction: Interaction): Requester {
  return {
    id: interaction.user.id,
    name: interaction.user.displayName,
    canManage: canManage(interaction),
  };
}

/** Where the command came from, so its reply can still be edited after a restart. */
export function originOf(interaction: ChatInputCommandInteraction): SpeechOrigin {
  return {
    channelId: interaction.channelId,
    reply: {
      applicationId: interaction.applicationId,
      token: interaction.token,
      expiresAt: interaction.createdTimestamp + TOKEN_LIFETIME_MS,
    },
  };
}

/** One line naming what is said: voice, model and the text, made inert. */
export function captionOf(speech: ReadySpeech): string {
  return `**${quoteSafely(speech.voice.name, 80)}** · ${speech.request.model} — “${quoteSafely(speech.request.text)}”`;
}

/**
 * The reply that follows a `/say` through the speaking service: throttled progress edits (what
 * Discord tolerates), then the audio or the outcome. After a failure, {@link SayReply.cancel}
 * keeps any scheduled progress edit from overwriting the failure message.
 */
export class SayReply implements SpeechFollower {
  readonly maxBytes: number;
  readonly #interaction: ChatInputCommandInteraction;
  readonly #context: CommandContext;
  readonly #reply: ThrottledReply<InteractionEditReplyOptions>;
  readonly #ticker = new AbortController();
  #speech: ReadySpeech | undefined;
  #startedAt = 0;
  #stage: FileProgress['stage'] = 'waiting';
  #count = (): number => 0;
  /** The quota line, once the audio is generated (undefined before, or when plenty is left). */
  #quota: Promise<string | undefined> | undefined;

  constructor(interaction: ChatInputCommandInteraction, context: CommandContext) {
    this.#interaction = interaction;
    this.#context = context;
    this.maxBytes = interaction.attachmentSizeLimit;
    const { services, logger } = context;
    this.#reply = new ThrottledReply<InteractionEditReplyOptions>(
      (payload) => interaction.editReply(payload),
      services.clock,
      { onError: (error) => logger.warn({ err: error }, 'could not update the /say reply') },
    );
  }

  accepted(speech: ReadySpeech): void {
    this.#speech = speech;
    this.#startedAt = this.#context.services.clock.now();
    if (speech.output === 'file') this.#tick();
  }

  onProgress(progress: FileProgress): void {
    this.#stage = progress.stage;
    if (progress.stage === 'waiting') this.#count = progress.ahead;
    else if (progress.stage === 'queued') this.#count = () => progress.place;
    this.#showFile();
  }

  async deliver(file: SpeechFile): Promise<void> {
    this.#ticker.abort();
    const speech = this.#accepted();
    const quota = await quotaLine(this.#context, speech);
    const duration = file.durationMs === undefined ? '' : ` · ${formatSeconds(file.durationMs)}`;
    await this.#reply.finish({
      content: withQuota(`🔊 ${captionOf(speech)}${duration}`, quota),
      files: [
        {
          attachment: file.bytes,
          name: `speech-${safeFileStem(file.generationId, 8)}.${file.extension}`,
          contentType: file.mime,
        },
      ],
      ...noMentions,
    });
  }

  onUpdate(update: SpeakUpdate): void {
    const { services, logger, translator } = this.#context;
    const speech = this.#accepted();
    const editFailed = (error: unknown) => logger.warn({ err: error }, 'could not edit the reply');
    if (this.#quota === undefined && ['ready', 'playing', 'played'].includes(update.state))
      this.#quota = quotaLine(this.#context, speech);
    const elapsed = services.clock.now() - this.#startedAt;
    const progress = `${voiceProgress(translator, update, elapsed)}\n${captionOf(speech)}`;
    const shown = Promise.resolve(this.#quota).then((line) => ({
      content: withQuota(progress, line),
      ...noMentions,
    }));
    if (update.state === 'failed') {
      void shown
        .then((payload) => this.#reply.finish(payload))
        .then(() => reportFailure(this.#interaction, update.error, logger), editFailed);
    } else if (['played', 'skipped', 'cancelled'].includes(update.state)) {
      shown.then((payload) => this.#reply.finish(payload)).catch(editFailed);
    } else {
      void shown.then((payload) => this.#reply.update(payload));
    }
  }

  /** The request failed or was refused: progress stops, and no scheduled edit may follow. */
  async cancel(): Promise<void> {
    this.#ticker.abort();
    await this.#reply.cancel();
  }

  #accepted(): ReadySpeech {
    if (this.#speech === undefined) throw new Error('SayReply: told of progress before accepted');
    return this.#speech;
  }

  #showFile(): void {
    const { clock } = this.#context.services;
    const speech = this.#accepted();
    this.#reply.update({
      content: fileProgress(
        this.#context.translator,
        this.#stage,
        clock.now() - this.#startedAt,
        voiceLabel(speech.voice, this.#context.translator),
        this.#count(),
      ),
      ...noMentions,
    });
  }

  // Shows the file's progress every 3 s (the elapsed time moves) until it is delivered or fails.
  #tick(): void {
    const { clock } = this.#context.services;
    const signal = this.#ticker.signal;
    void (async () => {
      while (!signal.aborted) {
        this.#showFile();
        await clock.sleep(3000, signal).catch((error: unknown) => {
          if (!signal.aborted) this.#context.logger.warn({ err: error }, 'progress ticker stopped');
        });
      }
    })();
  }
}

/**
 * The line a reply adds when less than 10% of the server's daily quota is left (the speaking
 * service counted the generation when the API accepted it). Never fails the reply.
 */
async function quotaLine(
  { logger, translator }: CommandContext,
  speech: ReadySpeech,
): Promise<string | undefined> {
  try {
    return lowQuotaLine(translator, dailyUsage(await speech.client.usage('generate')));
  } catch (error) {
    logger.warn({ err: error }, 'could not read the quota');
    return undefined;
  }
}

function withQuota(text: string, line: string | undefined): string {
  return line === undefined ? text : `${text}\n${line}`;
}
