import {
  type ChatInputCommandInteraction,
  type InteractionEditReplyOptions,
  SlashCommandBuilder,
} from 'discord.js';
import {
  answerVoiceAutocomplete,
  type Command,
  type CommandContext,
  guildClient,
  guildIdOf,
  memberVoiceChannel,
  mentionNames,
  reportFailure,
  ThrottledReply,
  UserError,
} from '../src/discord/index.ts';
import {
  audioDurationMs,
  fileProgress,
  findVoice,
  formatSeconds,
  quoteSafely,
  speakableText,
  type ValidatedSay,
  validateSay,
  voiceLabel,
  voiceProgress,
} from '../src/speech/index.ts';
import {
  EMOTIONS,
  MODELS,
  type SpeechRequest,
  type TtsClient,
  type Voice,
} from '../src/tts/index.ts';

const MAX_TEXT = 5000;
const noMentions = { allowedMentions: { parse: [] } } as const;

export default {
  data: new SlashCommandBuilder()
    .setName('say')
    .setDescription('Turn text into speech')
    .setContexts(0)
    .addStringOption((o) =>
      o.setName('text').setDescription('What to say').setRequired(true).setMaxLength(MAX_TEXT),
    )
    .addStringOption((o) =>
      o
        .setName('voice')
        .setDescription('Voice (default: yours, then the server’s)')
        .setAutocomplete(true),
    )
    .addStringOption((o) =>
      o
        .setName('model')
        .setDescription('Model')
        .addChoices(...MODELS.map((m) => ({ name: m, value: m }))),
    )
    .addNumberOption((o) =>
      o.setName('speed').setDescription('Speed, 0.5 to 2').setMinValue(0.5).setMaxValue(2),
    )
    .addStringOption((o) =>
      o
        .setName('emotion')
        .setDescription('Emotion (advance model only)')
        .addChoices(...EMOTIONS.map((e) => ({ name: e, value: e }))),
    )
    .addStringOption((o) =>
      o
        .setName('output')
        .setDescription(
          'Attach a file or speak in voice (default: voice when I am in your channel)',
        )
        .addChoices({ name: 'file', value: 'file' }, { name: 'voice', value: 'voice' }),
    ),

  async execute(interaction, context) {
    const { services } = context;
    const guildId = guildIdOf(interaction);
    const client = await guildClient(interaction, services);
    const [guild, user] = await Promise.all([
      services.settings.guild(guildId),
      services.settings.user(interaction.user.id),
    ]);
    const text = interaction.options.getString('text', true);
    const validated = validateSay(
      {
        text,
        voice: interaction.options.getString('voice'),
        model: interaction.options.getString('model'),
        speed: interaction.options.getNumber('speed'),
        emotion: interaction.options.getString('emotion'),
      },
      speakableText(text, mentionNames(interaction)),
      { user, guild: guild.defaults },
      { min: services.config.minTextLength, max: MAX_TEXT },
    );
    const botChannel = services.voice.channelOf(guildId);
    const output =
      interaction.options.getString('output') ??
      (botChannel !== undefined && botChannel === memberVoiceChannel(interaction)
        ? 'voice'
        : 'file');
    if (output === 'voice' && botChannel === undefined) {
      throw new UserError(
        'not_in_voice',
        'I am not in a voice channel. Use `/join` from your voice channel first, or `output: file`.',
      );
    }
    await interaction.deferReply();
    const voice = await chooseVoice(client, validated);
    const request: SpeechRequest = {
      text: validated.text,
      voiceId: voice.voiceId,
      model: validated.model,
      ...(validated.speed === undefined ? {} : { speed: validated.speed }),
      ...(validated.emotion === undefined ? {} : { emotion: validated.emotion }),
    };
    const caption = `**${quoteSafely(voice.name, 80)}** · ${request.model} — “${quoteSafely(validated.text)}”`;
    if (output === 'voice') await speakInVoice(interaction, context, client, request, caption);
    else await attachFile(interaction, context, client, request, voice, caption);
  },

  autocomplete: (interaction, { services }) => answerVoiceAutocomplete(interaction, services),
} satisfies Command;

async function chooseVoice(client: TtsClient, validated: ValidatedSay): Promise<Voice> {
  const voices = await client.voices(validated.model);
  if (validated.voiceId === undefined) {
    const fallback = voices.find((voice) => voice.free) ?? voices[0];
    if (fallback === undefined)
      throw new UserError(
        'voice_not_found',
        `The TTS account has no voices for the ${validated.model} model.`,
      );
    return fallback;
  }
  const voice = findVoice(voices, validated.voiceId);
  if (voice === undefined) {
    throw new UserError(
      'voice_not_found',
      `There is no voice \`${quoteSafely(validated.voiceId, 50)}\` for the ${validated.model} model. Pick one from the autocomplete list or see \`/voices\`.`,
    );
  }
  return voice;
}

/** Generates, downloads and attaches the audio, editing the reply as it goes. */
async function attachFile(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  client: TtsClient,
  request: SpeechRequest,
  voice: Voice,
  caption: string,
): Promise<void> {
  const { clock } = context.services;
  const startedAt = clock.now();
  const reply = progressReply(interaction, context);
  let stage: 'waiting' | 'generating' | 'downloading' = 'waiting';
  let ahead = (): number => 0;
  const show = () =>
    reply.update({
      content: fileProgress(stage, clock.now() - startedAt, voiceLabel(voice), ahead()),
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
    const { generationId, audioUrl } = await client.generate(request, {
      onProgress: (progress) => {
        if (progress.stage === 'waiting-for-budget') ahead = progress.ahead;
        stage = progress.stage === 'generating' ? 'generating' : 'waiting';
        show();
      },
    });
    stage = 'downloading';
    show();
    const audio = await client.download(audioUrl);
    const limit = interaction.attachmentSizeLimit;
    if (audio.bytes.length > limit) {
      const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);
      throw new UserError(
        'too_large',
        `The audio is ${mb(audio.bytes.length)} MB, more than this server allows for attachments (${mb(limit)} MB). Use shorter text, or \`/join\` and have it spoken.`,
      );
    }
    const duration = await audioDurationMs(audio.bytes, audio.mime).catch((error: unknown) => {
      context.logger.debug({ err: error }, 'could not read the audio duration');
      return undefined;
    });
    ticker.abort();
    await reply.finish({
      content: `🔊 ${caption}${duration === undefined ? '' : ` · ${formatSeconds(duration)}`}`,
      files: [
        {
          attachment: audio.bytes,
          name: `speech-${generationId.slice(-8)}.${audio.extension}`,
          contentType: audio.mime,
        },
      ],
      ...noMentions,
    });
  } catch (error) {
    // The failure message replaces the progress; no scheduled progress edit may overwrite it.
    await reply.cancel();
    throw error;
  } finally {
    ticker.abort();
  }
}

/** The reply a `/say` edits while it works, throttled to what Discord tolerates. */
function progressReply(
  interaction: ChatInputCommandInteraction,
  { services, logger }: CommandContext,
): ThrottledReply<InteractionEditReplyOptions> {
  return new ThrottledReply<InteractionEditReplyOptions>(
    (payload) => interaction.editReply(payload),
    services.clock,
    {
      onError: (error) => logger.warn({ err: error }, 'could not update the /say reply'),
    },
  );
}

/** Queues the speech in the voice channel and mirrors the item's progress in the reply. */
async function speakInVoice(
  interaction: ChatInputCommandInteraction,
  { services, logger }: CommandContext,
  client: TtsClient,
  request: SpeechRequest,
  caption: string,
): Promise<void> {
  const startedAt = services.clock.now();
  const reply = progressReply(interaction, { services, logger });
  const outcome = services.voice.speak({
    guildId: guildIdOf(interaction),
    requesterId: interaction.user.id,
    requesterName: interaction.user.displayName,
    request,
    client,
    onUpdate: (update) => {
      const text = `${voiceProgress(update, services.clock.now() - startedAt)}\n${caption}`;
      if (update.state === 'failed') {
        void reply.finish({ content: text, ...noMentions }).then(
          () => reportFailure(interaction, update.error, logger),
          (error: unknown) => logger.warn({ err: error }, 'could not edit the reply'),
        );
      } else if (['played', 'skipped', 'cancelled'].includes(update.state)) {
        reply
          .finish({ content: text, ...noMentions })
          .catch((error: unknown) => logger.warn({ err: error }, 'could not edit the reply'));
      } else {
        reply.update({ content: text, ...noMentions });
      }
    },
  });
  if (!outcome.ok) {
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
}
