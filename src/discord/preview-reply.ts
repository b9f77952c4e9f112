import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type StringSelectMenuInteraction,
} from 'discord.js';
import { PREVIEW_TEXT, type PreviewAudio } from '../preview/index.ts';
import { findVoice, quoteSafely, voiceLabel } from '../speech/index.ts';
import type { Model, TtsClient, Voice } from '../tts/index.ts';
import type { CommandContext } from './command.ts';
import { guildClient, guildIdOf } from './guild.ts';
import { UserError } from './user-error.ts';

/** A voice to preview, as `/preview` or the `/voices` menu names it. */
export interface PreviewChoice {
  readonly voiceId: string;
  readonly model: Model;
}

/**
 * Answers a preview (from `/preview` or the `/voices` menu) privately with the voice's sample
 * as an attachment. The sample is generated once per key and voice, then read from the store.
 */
export async function sendPreview(
  interaction: ChatInputCommandInteraction | StringSelectMenuInteraction,
  context: CommandContext,
  choice: PreviewChoice,
): Promise<void> {
  const { services, translator } = context;
  const { t } = translator;
  const client = await guildClient(interaction, services);
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const voice = findVoice(await client.voices(choice.model), choice.voiceId);
  if (voice === undefined) {
    throw new UserError('voice_not_found', {
      voice: choice.voiceId.slice(0, 50),
      model: choice.model,
    });
  }
  const { audio, cached } = await services.previews.get(
    { keyId: client.keyId, model: choice.model, voiceId: voice.voiceId },
    () => generateSample(interaction, context, client, voice, choice.model),
  );
  await interaction.editReply({
    content: [
      t('preview.caption', {
        voice: quoteSafely(voiceLabel(voice, translator), 100),
        text: PREVIEW_TEXT,
      }),
      t(cached ? 'preview.stored' : 'preview.generated'),
    ].join('\n'),
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

/** Generates and downloads the sample; the generation counts for the member who asked. */
async function generateSample(
  interaction: ChatInputCommandInteraction | StringSelectMenuInteraction,
  { services, logger }: CommandContext,
  client: TtsClient,
  voice: Voice,
  model: Model,
): Promise<PreviewAudio> {
  const { generationId, audioUrl } = await client.generate({
    text: PREVIEW_TEXT,
    voiceId: voice.voiceId,
    model,
  });
  await services.usage
    .record(guildIdOf(interaction), interaction.user.id, services.clock.now())
    .catch((error: unknown) => logger.warn({ err: error }, 'could not record usage'));
  const downloaded = await client.download(audioUrl);
  return { generationId, ...downloaded };
}
