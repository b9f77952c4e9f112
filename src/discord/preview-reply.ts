import { Readable } from 'node:stream';
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type StringSelectMenuInteraction,
} from 'discord.js';
import { PREVIEW_TEXT, type PreviewAudio } from '../preview/index.ts';
import { UserError } from '../refusal/index.ts';
import type { Services } from '../services.ts';
import { codeSpan, findVoice, quoteSafely, voiceLabel } from '../speech/index.ts';
import type { Model, TtsClient, Voice } from '../tts/index.ts';
import type { CommandContext } from './command.ts';
import { guildClient, guildIdOf } from './guild.ts';
import { memberVoiceChannel } from './names.ts';
import { requesterOf } from './speech-reply.ts';

/** A voice to preview, as `/preview` or the `/voices` menu names it. */
export interface PreviewChoice {
  readonly voiceId: string;
  /** The server's default model when not named. */
  readonly model?: Model | undefined;
}

/**
 * Answers a preview (from `/preview` or the `/voices` menu): the voice's sample played in voice
 * when the bot is in the member's channel, else privately as an attachment. The sample is
 * generated once per key and voice, then read from the store.
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
  const model = choice.model ?? (await defaultModel(services, guildIdOf(interaction)));
  const client = await guildClient(interaction, services);
  const voice = findVoice(await client.voices(model), choice.voiceId);
  if (voice === undefined) {
    throw new UserError('voice_not_found', { voice: codeSpan(choice.voiceId, 50), model });
  }
  // A sample not stored yet costs a generation: it counts against the member's daily share.
  const { audio, cached } = await services.previews.get(
    { keyId: client.keyId, model, voiceId: voice.voiceId },
    () =>
      services.speaking.withinShare(guildIdOf(interaction), requesterOf(interaction), () =>
        generateSample(interaction, context, client, voice, model),
      ),
  );
  const label = quoteSafely(voiceLabel(voice, translator), 100);
  const origin = t(cached ? 'preview.stored' : 'preview.generated');
  const botChannel = services.voice.channelOf(guildIdOf(interaction));
  if (botChannel !== undefined && botChannel === memberVoiceChannel(interaction)) {
    playInVoice(interaction, context, audio);
    await interaction.editReply({
      content: [t('preview.playing', { voice: label, channel: `<#${botChannel}>` }), origin].join(
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

/** The server's default model. */
async function defaultModel(services: Services, guildId: string): Promise<Model> {
  return (await services.settings.guild(guildId)).defaults.model === 'advance' ? 'advance' : 'base';
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

/**
 * Queues the stored sample in the voice channel like any speech (fair turn, `/skip` works). Its
 * source reads the stored bytes: nothing is generated, so it does not go through the speaking service.
 */
function playInVoice(
  interaction: ChatInputCommandInteraction | StringSelectMenuInteraction,
  { services, logger }: CommandContext,
  audio: PreviewAudio,
): void {
  const outcome = services.voice.speak({
    guildId: guildIdOf(interaction),
    requesterId: interaction.user.id,
    requesterName: interaction.user.displayName,
    text: PREVIEW_TEXT,
    source: {
      generate: async () => `stored-preview:${audio.generationId}`,
      // The stored sample was sniffed when it was downloaded: its extension names its format.
      open: async () => ({ stream: Readable.from([audio.bytes]), extension: audio.extension }),
    },
    onUpdate: (update) => {
      if (update.state === 'failed') logger.warn({ err: update.error }, 'preview playback failed');
    },
  });
  if (!outcome.ok) {
    throw outcome.reason === 'full'
      ? new UserError('queue_full', { max: outcome.maxLength })
      : new UserError('left_voice', {});
  }
}
