import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type StringSelectMenuInteraction,
} from 'discord.js';

import { PREVIEW_TEXT } from '../preview/index.ts';
import { quoteSafely, voiceLabel } from '../speech/index.ts';
import type { Model } from '../tts/index.ts';

import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { memberVoiceChannel } from './names.ts';
import { requesterOf } from './speech-reply.ts';

/** A voice to preview, as `/preview` or the `/voices` menu names it. */
export interface PreviewChoice {
  readonly voiceId: string;
  /** The server's default model when not named. */
  readonly model?: Model | undefined;
}

/**
 * Answers a preview (from `/preview` or the `/voices` menu) with what the speaking service
 * decided: the voice's sample played in voice when the bot is in the member's channel, else
 * privately as an attachment. Refusals reach the member through the router, in their language.
 */
export async function sendPreview(
  interaction: ChatInputCommandInteraction | StringSelectMenuInteraction,
  context: CommandContext,
  choice: PreviewChoice,
): Promise<void> {
  const { services, translator } = context;
  const { t } = translator;
  // Answer before the store and the API: both can outlast Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const { voice, audio, cached, channelId } = await services.speaking.preview({
    guildId: guildIdOf(interaction),
    requester: requesterOf(interaction),
    voiceId: choice.voiceId,
    model: choice.model,
    requesterChannelId: memberVoiceChannel(interaction),
  });
  const label = quoteSafely(voiceLabel(voice, translator), 100);
  const origin = t(cached ? 'preview.stored' : 'preview.generated');
  if (channelId !== undefined) {
    await interaction.editReply({
      content: [t('preview.playing', { voice: label, channel: `<#${channelId}>` }), origin].join(
        '\n',
      ),
      allowedMentions: { parse: [] },
    });
    return;
  }
  await interaction.editReply({
    content: [t('preview.caption', { voice: label, text: PREVIEW_TEXT }), origin].join('\n'),
    files: [
      {
        attachment: audio.bytes,
        name: `preview-${voice.voiceId.replace(/[^\w-]/g, '_').slice(0, 60)}.${audio.extension}`,
        contentType: audio.mime,
      },
    ],
    allowedMentions: { parse: [] },
  });
}
