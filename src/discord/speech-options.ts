/** The speech options `/say` offers (and any command that speaks may offer), and reading them back. */
import type { ChatInputCommandInteraction, SlashCommandBuilder } from 'discord.js';
import type { SpeechChoices } from '../speaking/index.ts';
import { EMOTIONS, MODELS } from '../tts/index.ts';

/** Adds the `voice` (autocompleted), `model`, `speed` and `emotion` options. */
export function addSpeechOptions<
  B extends Pick<SlashCommandBuilder, 'addStringOption' | 'addNumberOption'>,
>(builder: B): B {
  builder
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
    );
  return builder;
}

/** The speech options the member gave, null where they left them to the defaults. */
export function speechChoicesOf(interaction: ChatInputCommandInteraction): SpeechChoices {
  const { options } = interaction;
  return {
    voice: options.getString('voice'),
    model: options.getString('model'),
    speed: options.getNumber('speed'),
    emotion: options.getString('emotion'),
  };
}
