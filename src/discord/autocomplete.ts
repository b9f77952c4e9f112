import type { AutocompleteInteraction } from 'discord.js';
import { translatorFor } from '../i18n/index.ts';
import type { Services } from '../services.ts';
import { voiceChoices } from '../speech/index.ts';
import type { Model } from '../tts/index.ts';

/** Discord drops an autocomplete answer after 3 s; answer with nothing rather than late. */
const ANSWER_WITHIN_MS = 2500;

/**
 * Answers a voice autocomplete from the server's cached voice list for
 * `model` (the option the member chose, else the server's default).
 */
export async function answerVoiceAutocomplete(
  interaction: AutocompleteInteraction,
  services: Services,
): Promise<void> {
  const guildId = interaction.guildId;
  const apiKey = guildId === null ? undefined : await services.apiKeys.get(guildId);
  if (guildId === null || apiKey === undefined) {
    await interaction.respond([]);
    return;
  }
  const chosen =
    interaction.options.getString('model') ??
    (await services.settings.guild(guildId)).defaults.model;
  const model: Model = chosen === 'advance' ? 'advance' : 'base';
  const voices = await Promise.race([
    services.tts.forKey(apiKey).voices(model),
    services.clock.sleep(ANSWER_WITHIN_MS).then(() => []),
  ]);
  await interaction.respond(
    voiceChoices(voices, interaction.options.getFocused(), translatorFor(interaction.locale)),
  );
}
