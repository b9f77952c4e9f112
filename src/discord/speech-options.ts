/** The speech options `/say` offers (and any command that speaks may offer), and reading them back. */
import type { ChatInputCommandInteraction, SlashCommandBuilder } from 'discord.js';
import type { SpeechChoices } from '../speaking/index.ts';
import { EMOTIONS, MODELS } from '../tts/index.ts';
import type { ApiVersion } from './command.ts';
import { described } from './localize.ts';

/**
 * Adds the `voice` (autocompleted), `model` and `speed` options, and `emotion` where the API has
 * emotions (v2; v3 refuses every one, so it is not offered).
 */
export function addSpeechOptions<
  B extends Pick<SlashCommandBuilder, 'addStringOption' | 'addNumberOption'>,
>(builder: B, api: ApiVersion = 'v2'): B {
  builder
    .addStringOption((o) =>
      described(o.setName('voice'), 'commands.say.voice').setAutocomplete(true),
    )
    .addStringOption((o) =>
      described(o.setName('model'), 'commands.say.model').addChoices(
        ...MODELS.map((m) => ({ name: m, value: m })),
      ),
    )
    .addNumberOption((o) =>
      described(o.setName('speed'), 'commands.say.speed').setMinValue(0.5).setMaxValue(2),
    );
  if (api === 'v2')
    builder.addStringOption((o) =>
      described(o.setName('emotion'), 'commands.say.emotion').addChoices(
        ...EMOTIONS.map((e) => ({ name: e, value: e })),
      ),
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
