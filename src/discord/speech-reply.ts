/**
 * The `/say` side of the speaking service: who asks, from where, and the reply that follows a
 * request (throttled progress edits, then the audio or the outcome).
 */
import type {
  ChatInputCommandInteraction,
  Interaction,
  InteractionEditReplyOptions,
} from 'discord.js';
import type { FileProgress, ReadySpeech, Requester, SpeechOrigin } from '../speaking/index.ts';
import {
  fileProgress,
  formatSeconds,
  quoteSafely,
  voiceLabel,
  voiceProgress,
} from '../speech/index.ts';
import { safeFileStem } from '../tts/index.ts';
import { dailyUsage, lowQuotaLine } from '../usage/index.ts';
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

/** The reply a `/say` edits while it works, throttled to what Discord tolerates. */
function progressReply(
  interaction: ChatInputCommandInteraction,
  { services, logger }: CommandContext,
): ThrottledReply<InteractionEditReplyOptions> {
  return new ThrottledReply<InteractionEditReplyOptions>(
    (payload) => interaction.editReply(payload),
    services.clock,
    { onError: (error) => logger.warn({ err: error }, 'could not update the /say reply') },
  );
}

/** Generates the speech as a file and attaches it to the (deferred) reply, showing progress. */
export async function replyWithFile(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  speech: ReadySpeech,
): Promise<void> {
  const { clock } = context.services;
  const startedAt = clock.now();
  const reply = progressReply(interaction, context);
  let stage: FileProgress['stage'] = 'waiting';
  let count = (): number => 0;
  const show = () =>
    reply.update({
      content: fileProgress(
        context.translator,
        stage,
        clock.now() - startedAt,
        voiceLabel(speech.voice, context.translator),
        count(),
      ),
      ...noMentions,
    });
  const ticker = new AbortController();
  void (async () => {
    while (!ticker.signal.aborted) {
      show();
      await clock.sleep(3000, ticker.signal).catch((error: unknown) => {
        if (!ticker.signal.aborted) context.logger.warn({ err: error }, 'progress ticker stopped');
      });
    }
  })();
  try {
    await context.services.speaking.attach(speech, {
      maxBytes: interaction.attachmentSizeLimit,
      onProgress: (progress) => {
        stage = progress.stage;
        if (progress.stage === 'waiting') count = progress.ahead;
        else if (progress.stage === 'queued') count = () => progress.place;
        show();
      },
      deliver: async (file) => {
        ticker.abort();
        const quota = await quotaLine(context, speech);
        const duration =
          file.durationMs === undefined ? '' : ` · ${formatSeconds(file.durationMs)}`;
        await reply.finish({
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
      },
    });
  } catch (error) {
    // The failure message replaces the progress; no scheduled progress edit may overwrite it.
    await reply.cancel();
    throw error;
  } finally {
    ticker.abort();
  }
}

/** Queues the speech in the voice channel and mirrors the item's progress in the reply. */
export function replyWithVoice(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  speech: ReadySpeech,
): void {
  const { services, logger, translator } = context;
  const startedAt = services.clock.now();
  const reply = progressReply(interaction, context);
  const caption = captionOf(speech);
  const editFailed = (error: unknown) => logger.warn({ err: error }, 'could not edit the reply');
  /** The quota line, once the audio is generated (undefined before, or when plenty is left). */
  let quota: Promise<string | undefined> | undefined;
  services.speaking.speak(speech, (update) => {
    if (quota === undefined && ['ready', 'playing', 'played'].includes(update.state))
      quota = quotaLine(context, speech);
    const progress = `${voiceProgress(translator, update, services.clock.now() - startedAt)}\n${caption}`;
    const shown = Promise.resolve(quota).then((line) => ({
      content: withQuota(progress, line),
      ...noMentions,
    }));
    if (update.state === 'failed') {
      void shown
        .then((payload) => reply.finish(payload))
        .then(() => reportFailure(interaction, update.error, logger), editFailed);
    } else if (['played', 'skipped', 'cancelled'].includes(update.state)) {
      shown.then((payload) => reply.finish(payload)).catch(editFailed);
    } else {
      void shown.then((payload) => reply.update(payload));
    }
  });
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
