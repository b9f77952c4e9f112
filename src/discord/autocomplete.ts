import type { AutocompleteInteraction } from 'discord.js';
import { translatorFor } from '../i18n/index.ts';
import type { Services } from '../services.ts';
import {
  filterVoices,
  languageChoices,
  speakableLanguages,
  traitChoices,
  voiceChoices,
} from '../speech/index.ts';
import type { Model, Voice } from '../tts/index.ts';
import type { CommandContext } from './command.ts';

/** Discord drops an autocomplete answer after 3 s; answer with nothing rather than late. */
const ANSWER_WITHIN_MS = 2500;
const LATE: unique symbol = Symbol('late');

/**
 * Answers a voice autocomplete from the server's cached voice lists: those of `models` when
 * given (`/myvoice` offers every model), else of the option the member chose or the server's
 * default; a late lookup is answered with no choices.
 */
export async function answerVoiceAutocomplete(
  interaction: AutocompleteInteraction,
  { services, logger }: Pick<CommandContext, 'services' | 'logger'>,
  models?: readonly Model[],
): Promise<void> {
  const found = await inTime(serverVoices(interaction, services, models), { services, logger });
  await interaction.respond(
    voiceChoices(found, interaction.options.getFocused(), translatorFor(interaction.locale)),
  );
}

/**
 * Answers `/voices`' gender or accent: the values the server key's own voices of the model
 * chosen (else `base`) have, among those of the other trait when it is chosen already.
 */
export async function answerVoiceTraitAutocomplete(
  interaction: AutocompleteInteraction,
  { services, logger }: Pick<CommandContext, 'services' | 'logger'>,
): Promise<void> {
  const focused = interaction.options.getFocused(true);
  const trait = focused.name === 'gender' ? 'gender' : 'accent';
  const model = interaction.options.getString('model') === 'advance' ? 'advance' : 'base';
  const voices = await inTime(serverVoices(interaction, services, [model]), { services, logger });
  const other =
    trait === 'gender'
      ? { accent: interaction.options.getString('accent') }
      : { gender: interaction.options.getString('gender') };
  await interaction.respond(
    traitChoices(filterVoices(voices, other), trait, String(focused.value)),
  );
}

/**
 * The voices `lookup` finds, or none when it outlasts the deadline. An autocomplete cannot be
 * deferred, so the whole lookup (store reads included) races one deadline.
 */
async function inTime(
  lookup: Promise<readonly Voice[]>,
  { services, logger }: Pick<CommandContext, 'services' | 'logger'>,
): Promise<readonly Voice[]> {
  const deadline = new AbortController();
  let found: readonly Voice[] | typeof LATE;
  try {
    found = await Promise.race([
      lookup,
      services.clock.sleep(ANSWER_WITHIN_MS, deadline.signal).then((): typeof LATE => LATE),
    ]);
  } finally {
    deadline.abort();
  }
  if (found !== LATE) return found;
  // Nobody waits for it any more; a failure is still worth a line.
  lookup.catch((error: unknown) => logger.warn({ err: error }, 'late voice lookup failed'));
  return [];
}

/**
 * Answers a speech-language autocomplete: the languages the model chosen (else the server's)
 * speaks on the bot's API, named in the member's locale; none on v2, which takes no language.
 */
export async function answerLanguageAutocomplete(
  interaction: AutocompleteInteraction,
  { services }: Pick<CommandContext, 'services'>,
): Promise<void> {
  const guildId = interaction.guildId;
  const model = guildId === null ? 'base' : await chosenModel(interaction, services, guildId);
  const codes = speakableLanguages(services.config.ttsApi.version, model);
  await interaction.respond(
    languageChoices(codes, interaction.options.getFocused(), interaction.locale),
  );
}

/** The voices a server's key offers for the wanted models, each once; none without a key. */
async function serverVoices(
  interaction: AutocompleteInteraction,
  services: Services,
  models: readonly Model[] | undefined,
): Promise<readonly Voice[]> {
  const guildId = interaction.guildId;
  const apiKey = guildId === null ? undefined : await services.apiKeys.get(guildId);
  if (guildId === null || apiKey === undefined) return [];
  const client = services.tts.forKey(apiKey);
  const wanted = models ?? [await chosenModel(interaction, services, guildId)];
  const voices = (await Promise.all(wanted.map((model) => client.voices(model)))).flat();
  return [...new Map(voices.map((voice) => [voice.voiceId, voice])).values()];
}

/** The `model` option the member chose, else the server's default model. */
async function chosenModel(
  interaction: AutocompleteInteraction,
  services: Services,
  guildId: string,
): Promise<Model> {
  const chosen =
    interaction.options.getString('model') ??
    (await services.settings.guild(guildId)).defaults.model;
  return chosen === 'advance' ? 'advance' : 'base';
}
