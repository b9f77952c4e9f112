/**
 * What changing a server's configuration means, apart from Discord: its API key (checked,
 * stored, removed, with queued speech told), its defaults (validated against the voice list)
 * and the summary `/config show` renders. Every settings change goes through the store API.
 */
import { limitText, type Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import { UserError } from '../refusal/index.ts';
import { codeSpan, findVoice } from '../speech/index.ts';
import {
  type ApiKeyVault,
  type GuildDefaults,
  guildDefaultsSchema,
  type SettingsStore,
  UnreadableKeyError,
} from '../store/index.ts';
import {
  type LimitUsage,
  type Model,
  maskKey,
  type TtsClient,
  type TtsClients,
  TtsError,
} from '../tts/index.ts';
import type { VoiceService } from '../voice/index.ts';

/** What a server's configuration is changed through; of voice, only the news that the key changed. */
export interface ConfigServices {
  readonly settings: Pick<SettingsStore, 'guild' | 'updateGuild'>;
  readonly apiKeys: Pick<ApiKeyVault, 'get' | 'set' | 'remove'>;
  readonly tts: Pick<TtsClients, 'verify' | 'forget' | 'forKey'>;
  readonly voice: Pick<VoiceService, 'keyChanged'>;
}

/** `/config defaults` as typed: each option given changes its default, the others stay. */
export interface DefaultsInput {
  readonly voiceId?: string | undefined;
  readonly model?: Model | undefined;
  readonly speed?: number | undefined;
  /** The server's speech language (ISO 639-1), one the model speaks. */
  readonly language?: string | undefined;
}

/** What `/config show` shows. */
export interface ConfigSummary {
  /** The key as people may see it (`maskKey`); undefined when none is set. */
  readonly maskedKey: string | undefined;
  readonly defaults: GuildDefaults;
  /** The key's generation budget per window (none without a key; none with v3). */
  readonly generations: readonly LimitUsage[];
  /** The key's allowance for every call per window (v3's `request`; none with v2 or without a key). */
  readonly requests: readonly LimitUsage[];
}

/** The defaults after applying the options given; validated (throws on a value out of bounds). */
export function mergeDefaults(current: GuildDefaults, input: DefaultsInput): GuildDefaults {
  return guildDefaultsSchema.parse({
    ...current,
    ...(input.voiceId === undefined ? {} : { voiceId: input.voiceId }),
    ...(input.model === undefined ? {} : { model: input.model }),
    ...(input.speed === undefined ? {} : { speed: input.speed }),
    ...(input.language === undefined ? {} : { language: input.language }),
  });
}

/**
 * Refuses a speech language `model` does not speak (`languagesOf`, the API's list): on an API
 * that takes none (v2) saying so, rather than keep a setting that changes nothing.
 */
export function checkLanguage(
  language: string,
  model: Model,
  languagesOf: (model: Model) => readonly string[],
): void {
  const languages = languagesOf(model);
  if (languages.length === 0) throw new UserError('language_needs_v3', {});
  if (!languages.includes(language))
    throw new UserError('language_not_spoken', {
      language: codeSpan(language, 20),
      model,
      languages: languages.join(', '),
    });
}

/**
 * Saves the server's defaults; a voice must exist for the model chosen (else the server's
 * model, else `base`), checked with the key `clientOf` gives, and a language must be one that
 * model speaks (`languagesOf`). Resolves with what was saved.
 */
export async function saveDefaults(
  services: ConfigServices,
  guildId: string,
  input: DefaultsInput,
  clientOf: () => Promise<TtsClient>,
  languagesOf: (model: Model) => readonly string[] = () => [],
): Promise<GuildDefaults> {
  const modelOf = async () =>
    input.model ?? (await services.settings.guild(guildId)).defaults.model ?? 'base';
  if (input.language !== undefined) checkLanguage(input.language, await modelOf(), languagesOf);
  if (input.voiceId !== undefined) {
    const model = await modelOf();
    const client = await clientOf();
    if (findVoice(await client.voices(model), input.voiceId) === undefined)
      throw new UserError('voice_not_found', { voice: codeSpan(input.voiceId, 50), model });
  }
  const saved = await services.settings.updateGuild(guildId, (settings) => ({
    ...settings,
    defaults: mergeDefaults(settings.defaults, input),
  }));
  return saved.defaults;
}

/** The server's key (masked), defaults and budget (generations, or v3's requests), for `/config show`. */
export async function configSummary(
  services: ConfigServices,
  guildId: string,
): Promise<ConfigSummary> {
  const settings = await services.settings.guild(guildId);
  const apiKey = await services.apiKeys.get(guildId);
  const client = apiKey === undefined ? undefined : services.tts.forKey(apiKey);
  const [generations, requests] = await Promise.all([
    client?.usage('generate') ?? [],
    client?.usage('request') ?? [],
  ]);
  return {
    maskedKey: apiKey === undefined ? undefined : maskKey(apiKey),
    defaults: settings.defaults,
    generations,
    requests,
  };
}

/** The server's defaults in words (`/config defaults` and `show`), in the member's language. */
export function describeDefaults({ t }: Translator, defaults: GuildDefaults): string {
  const described = t('config.defaults', {
    voice: defaults.voiceId === undefined ? t('config.not_set') : codeSpan(defaults.voiceId, 60),
    model: defaults.model ?? 'base',
    speed: defaults.speed ?? 1,
  });
  return defaults.language === undefined
    ? described
    : described + t('config.defaults_language', { language: defaults.language });
}

/**
 * `/config show`'s text: the key as people may see it, the defaults and the key's budget: v2's
 * generations per window, v3's requests per window (v3 counts every call in one allowance).
 */
export function describeSummary(translator: Translator, summary: ConfigSummary): string {
  const { t } = translator;
  return [
    summary.maskedKey === undefined
      ? t('config.show_no_key')
      : t('config.show_key', { key: `\`${summary.maskedKey}\`` }),
    t('config.show_defaults', { defaults: describeDefaults(translator, summary.defaults) }),
    ...summary.generations.map((usage) =>
      t('config.show_generations', { used: usage.used, limit: limitText(translator, usage.limit) }),
    ),
    ...summary.requests.map((usage) =>
      t('config.show_requests', { used: usage.used, limit: limitText(translator, usage.limit) }),
    ),
  ].join('\n');
}

/**
 * Checks `apiKey` against the API and stores it for the server; queued speech goes on with it.
 * `rejected` when the API calls the key invalid: then nothing is stored or kept.
 */
export async function saveApiKey(
  services: ConfigServices,
  guildId: string,
  apiKey: string,
  logger: Logger,
): Promise<'saved' | 'rejected'> {
  try {
    // A key that fails the check, for any reason, leaves nothing behind.
    await services.tts.verify(apiKey, 'base');
  } catch (error) {
    if (error instanceof TtsError && error.kind === 'invalid_key') return 'rejected';
    throw error;
  }
  const previous = await readableKey(services, guildId);
  await services.apiKeys.set(guildId, apiKey);
  if (previous !== apiKey) {
    if (previous !== undefined) services.tts.forget(previous);
    // Queued speech goes on with the new key, never the old one.
    services.voice.keyChanged(guildId, 'replaced');
  }
  logger.info({ keyId: services.tts.forKey(apiKey).keyId }, 'API key configured');
  return 'saved';
}

/** Forgets the server's key and its client; queued speech stops. True when there was a key. */
export async function removeApiKey(services: ConfigServices, guildId: string): Promise<boolean> {
  const previous = await readableKey(services, guildId);
  const removed = await services.apiKeys.remove(guildId);
  if (previous !== undefined) services.tts.forget(previous);
  // Queued speech must not go on with the removed key.
  if (removed) services.voice.keyChanged(guildId, 'removed');
  return removed;
}

/** The server's stored key, or undefined when there is none or it can no longer be decrypted. */
async function readableKey(services: ConfigServices, guildId: string): Promise<string | undefined> {
  try {
    return await services.apiKeys.get(guildId);
  } catch (error) {
    if (error instanceof UnreadableKeyError) return undefined;
    throw error;
  }
}
