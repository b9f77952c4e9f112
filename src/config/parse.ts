import { z } from 'zod';
import { parseSecretKey } from '../store/secrets.ts';
import { API_PRIOR, type EstimatorPrior, priorFor } from '../tts/estimator.ts';
import { DEFAULT_LIMITS, type Limits, parseLimits, V3_DEFAULT_LIMITS } from '../tts/limits.ts';

/** Which of the vendor's APIs the bot speaks, and how (`TTS_API_VERSION`, `TTS_STREAMING`). */
export interface TtsApiChoice {
  readonly version: 'v2' | 'v3';
  /** Voice items stream live over v3's WebSocket; only with v3. */
  readonly streaming: boolean;
  /** The key's cap on concurrent generations (v3 only). */
  readonly concurrentJobs: number;
}

/** What any user of the TTS API needs: the bot, and the admin CLI. */
export interface TtsConfig {
  readonly ttsApi: TtsApiChoice;
  readonly ttsApiUrl: string;
  readonly ttsMediaOrigins: readonly string[];
  readonly ttsLimits: Limits;
  readonly pollDeadlineMs: number;
}

/** Where the bot keeps its records and the secrets that seal them (the bot, `secrets:rotate`). */
export interface StoreConfig {
  readonly storeUrl: string;
  readonly dataDir: string;
  readonly secretKey: Buffer | undefined;
  /** Older secrets that may still open stored records (`SECRET_KEY_PREVIOUS`), newest first. */
  readonly previousSecretKeys: readonly Buffer[];
}

/** The bot's configuration, parsed once at start. */
export interface Config extends TtsConfig, StoreConfig {
  readonly discordToken: string;
  readonly discordApiUrl: string | undefined;
  readonly devGuildId: string | undefined;
  readonly logLevel: string;
  readonly prettyLogs: boolean;
  readonly ffmpegPath: string | undefined;
  readonly voiceIdleMs: number;
  readonly queueMaxLength: number;
  /** Most voice items one member may have waiting or generating (the playing one not counted). */
  readonly queueMaxPerMember: number;
  /**
   * Shortest text sent to the API (`TTS_MIN_TEXT_LENGTH`): a shorter `/say` is refused and a
   * shorter chat turn opens with a preface. Default the API's own minimum: 30 on v2, 1 on v3
   * (which bills a short text as 30 characters anyway: padding it only adds tokens).
   */
  readonly minTextLength: number;
  /** How long identical speech is reused (0: never); below the audio address's 24 h lifetime. */
  readonly cacheTtlMs: number;
  /** Port of `/healthz`, `/readyz` and `/metrics`; undefined: no such endpoint. */
  readonly httpPort: number | undefined;
  readonly httpHost: string;
  /** Shards for `npm run start:sharded`: a number, or `auto` (Discord's recommendation). */
  readonly shardCount: number | 'auto';
  /** The shards this host's manager runs (`SHARD_LIST`), or undefined for all of them. */
  readonly shardList: readonly number[] | undefined;
  /** Twitch chat's WebSocket address (`ws://` for a local test server). */
  readonly twitchChatUrl: string;
  /**
   * A busy chat read with choruses, chatter shares and speed-ups (issue 19); off reads it as
   * before them, for benchmarks that compare the two. Blocked words and new members apply either way.
   */
  readonly readerBusyChat: boolean;
  /**
   * Hold a quiet chat's messages for merging too, as before issue 30 (benchmarks and tests that
   * compare); off reads a quiet chat's message at once and holds only a busy chat's.
   */
  readonly readerHoldQuietChat: boolean;
  /** How long a removed server's data is kept in case the bot is added back (0: deleted at once). */
  readonly dataRetentionMs: number;
  /** What generations are expected to take before the bot learned them for a key. */
  readonly generationPrior: EstimatorPrior;
}

/** A configuration variable that is missing or wrong; the message names it (never its value). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const url = z.url({ protocol: /^https?$/ });
const snowflake = z.string().regex(/^\d{17,20}$/, 'must be a numeric Discord id');
const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `1500` → `1500ms`, `60000` → `1m`: a bound as the variable would be written. */
function formatDuration(ms: number): string {
  // Days only from a week up, where hours would be hard to read (a day's bound stays `24h`).
  if (ms >= 7 * UNITS.d && ms % UNITS.d === 0) return `${ms / UNITS.d}d`;
  for (const unit of ['h', 'm', 's'] as const) {
    if (ms % UNITS[unit] === 0) return `${ms / UNITS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * A duration like `500ms`, `30s`, `5m` or `1h`, in ms, between `min` and `max`
 * (every duration has bounds: a timer longer than ~24.8 days fires at once).
 */
function duration(bounds: { min: number; max: number }) {
  const range = `must be between ${formatDuration(bounds.min)} and ${formatDuration(bounds.max)}`;
  return z
    .string()
    .regex(/^\d+(ms|s|m|h|d)$/, 'must be a duration like 500ms, 30s, 5m or 1h')
    .transform((text) => {
      const [, amount, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(text) ?? [];
      return Number(amount) * UNITS[unit as keyof typeof UNITS];
    })
    .refine((ms) => ms >= bounds.min && ms <= bounds.max, range);
}
/** A bounded {@link duration}, or `0` for off. */
function durationOrOff(bounds: { min: number; max: number }) {
  const on = duration(bounds);
  return z
    .string()
    .regex(/^(0|\d+(ms|s|m|h|d))$/, 'must be a duration like 500ms, 30s, 5m or 1h, or 0 for off')
    .pipe(z.union([z.literal('0').transform(() => 0), on]));
}
/** Longest `DATA_RETENTION`: a removed server's data is never kept longer than this. */
const MAX_RETENTION_MS = 365 * UNITS.d;
/**
 * What a base generation is expected to take, like `800ms+15ms/char` (a fixed part and a part
 * per character; advance takes twice as long), within the given bounds.
 */
function generationTime(bounds: { maxFixedMs: number; maxPerCharMs: number }) {
  const shape = /^(\d+(?:\.\d+)?)(ms|s)\+(\d+(?:\.\d+)?)ms\/char$/;
  return z
    .string()
    .transform((text) => text.replaceAll(' ', ''))
    .pipe(z.string().regex(shape, 'must look like 800ms+15ms/char'))
    .transform((text) => {
      const [, fixed = '0', unit = 'ms', perChar = '0'] = shape.exec(text) ?? [];
      return { intercept: Number(fixed) * (unit === 's' ? 1000 : 1), slope: Number(perChar) };
    })
    .refine(
      (line) => line.intercept <= bounds.maxFixedMs && line.slope <= bounds.maxPerCharMs,
      `must be at most ${formatDuration(bounds.maxFixedMs)} plus ${bounds.maxPerCharMs}ms/char`,
    )
    .transform(priorFor);
}
const secret = z.string().transform((text, context) => {
  const key = parseSecretKey(text);
  if (typeof key === 'string') {
    context.addIssue({ code: 'custom', message: key });
    return z.NEVER;
  }
  return key;
});
/** Comma-separated secrets, each read as {@link secret}; a bad one is named by its position only. */
const secretList = z.string().transform((text, context) => {
  const keys: Buffer[] = [];
  for (const [index, part] of text.split(',').entries()) {
    const key = parseSecretKey(part);
    if (typeof key === 'string') {
      context.addIssue({ code: 'custom', message: `entry ${index + 1} of the list ${key}` });
      continue;
    }
    keys.push(key);
  }
  return keys;
});

/** The vendor's address of each API version, when `TTS_API_URL` names none. */
const API_URLS = { v2: 'https://api.audixa.ai/v2', v3: 'https://api.audixa.ai/v3' } as const;

const ttsSchema = z.object({
  TTS_API_VERSION: z.enum(['v2', 'v3']).default('v2'),
  TTS_STREAMING: z.enum(['on', 'off']).optional(),
  TTS_CONCURRENT_JOBS: z.coerce.number().int().min(1).max(1000).default(5),
  TTS_API_URL: url.optional(),
  TTS_MEDIA_ORIGINS: z
    .string()
    .default('https://media.audixa.ai,https://cdn.audixa.ai')
    .transform((text) =>
      text
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(url).min(1)),
  TTS_LIMITS: z.string().optional(),
  TTS_POLL_DEADLINE: duration({ min: 1000, max: 3_600_000 }).default(300_000),
});

const storeSchema = z.object({
  STORE_URL: z
    .string()
    .regex(/^(sqlite|redis|rediss):\/\//, 'must start with sqlite:// or redis://')
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  SECRET_KEY: secret.optional(),
  SECRET_KEY_PREVIOUS: secretList.default([]),
});

const schema = ttsSchema.extend({
  ...storeSchema.shape,
  DISCORD_TOKEN: z.string({
    error: 'is required: the bot token from the Discord developer portal',
  }),
  DISCORD_API_URL: url.optional(),
  DISCORD_DEV_GUILD_ID: snowflake.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.string().default('development'),
  FFMPEG_PATH: z.string().min(1).optional(),
  VOICE_IDLE_TIMEOUT: duration({ min: 1000, max: 86_400_000 }).default(300_000),
  QUEUE_MAX_LENGTH: z.coerce.number().int().min(1).max(1000).default(25),
  QUEUE_MAX_PER_MEMBER: z.coerce.number().int().min(1).max(1000).default(3),
  TTS_MIN_TEXT_LENGTH: z.coerce.number().int().min(1).max(5000).optional(),
  TTS_CACHE_TTL: durationOrOff({ min: 1000, max: 24 * 3_600_000 })
    .default(12 * 3_600_000)
    .refine(
      (ms) => ms < 24 * 3_600_000,
      'must be below 24h, the lifetime of an audio address (0 turns the cache off)',
    ),
  HTTP_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  HTTP_HOST: z.string().min(1).default('0.0.0.0'),
  SHARD_COUNT: z
    .string()
    .regex(/^(auto|[1-9]\d{0,4})$/, 'must be auto or a whole number of shards (1 or more)')
    .transform((text) => (text === 'auto' ? 'auto' : Number(text)))
    .default('auto'),
  SHARD_LIST: z
    .string()
    .regex(/^\s*\d{1,5}\s*(,\s*\d{1,5}\s*)*$/, 'must be shard ids separated by commas, like 0,1')
    .transform((text) => [...new Set(text.split(',').map(Number))])
    .optional(),
  READER_BUSY_CHAT: z.enum(['on', 'off']).default('on'),
  READER_HOLD_QUIET_CHAT: z.enum(['on', 'off']).default('off'),
  TWITCH_CHAT_URL: z.url({ protocol: /^wss?$/ }).default('wss://irc-ws.chat.twitch.tv:443'),
  DATA_RETENTION: z
    .string()
    .regex(/^(0|\d+(ms|s|m|h|d))$/, 'must be a duration like 12h or 7d, or 0 to delete at once')
    .pipe(
      z.union([z.literal('0').transform(() => 0), duration({ min: 1000, max: MAX_RETENTION_MS })]),
    )
    .default(7 * UNITS.d),
  TTS_GENERATION_TIME: generationTime({ maxFixedMs: 60_000, maxPerCharMs: 1000 }).default(
    API_PRIOR,
  ),
});

type Env = Readonly<Record<string, string | undefined>>;

/** Validates `env` against `shape`, or throws a ConfigError naming every bad variable. */
function validate<T>(shape: z.ZodType<T>, env: Env): T {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = shape.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${String(issue.path[0] ?? 'environment')} ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}

function ttsConfig(e: z.infer<typeof ttsSchema>): TtsConfig {
  const version = e.TTS_API_VERSION;
  if (version === 'v2' && e.TTS_STREAMING === 'on') {
    throw new ConfigError(
      'Invalid configuration:\n  TTS_STREAMING can only be on with TTS_API_VERSION=v3 (v2 does not stream)',
    );
  }
  let ttsLimits: Limits;
  try {
    ttsLimits = parseLimits(e.TTS_LIMITS, version === 'v3' ? V3_DEFAULT_LIMITS : DEFAULT_LIMITS);
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  TTS_LIMITS ${(error as Error).message}`);
  }
  return {
    ttsApi: {
      version,
      streaming: version === 'v3' && e.TTS_STREAMING !== 'off',
      concurrentJobs: e.TTS_CONCURRENT_JOBS,
    },
    ttsApiUrl: e.TTS_API_URL ?? API_URLS[version],
    ttsMediaOrigins: e.TTS_MEDIA_ORIGINS,
    ttsLimits,
    pollDeadlineMs: e.TTS_POLL_DEADLINE,
  };
}

/** Parses only the TTS variables (for tools that talk to the API but not to Discord). */
export function parseTtsConfig(env: Env): TtsConfig {
  return ttsConfig(validate(ttsSchema, env));
}

function storeConfig(e: z.infer<typeof storeSchema>): StoreConfig {
  return {
    storeUrl: e.STORE_URL ?? `sqlite://${e.DATA_DIR.replace(/\/+$/, '')}/bot.sqlite`,
    dataDir: e.DATA_DIR,
    secretKey: e.SECRET_KEY,
    previousSecretKeys: e.SECRET_KEY_PREVIOUS,
  };
}

/** Parses only the store's variables (for `npm run secrets:rotate`, which needs no Discord token). */
export function parseStoreConfig(env: Env): StoreConfig {
  return storeConfig(validate(storeSchema, env));
}

/** SHARD_LIST checked against SHARD_COUNT: every host must agree on one total, and ids lie below it. */
function shardList(e: z.infer<typeof schema>): readonly number[] | undefined {
  const { SHARD_LIST: list, SHARD_COUNT: count } = e;
  if (list === undefined) return undefined;
  let problem: string | undefined;
  if (count === 'auto') {
    problem = 'needs a number in SHARD_COUNT (every host must run the same total), not auto';
  } else if (list.some((id) => id >= count)) {
    problem = `must list shard ids below SHARD_COUNT (${count}): shards count from 0`;
  }
  if (problem !== undefined)
    throw new ConfigError(`Invalid configuration:\n  SHARD_LIST ${problem}`);
  return list;
}

/** Parses the environment into a {@link Config}, or throws a ConfigError naming every bad variable. */
export function parseConfig(env: Env): Config {
  const e = validate(schema, env);
  return {
    ...ttsConfig(e),
    ...storeConfig(e),
    discordToken: e.DISCORD_TOKEN,
    discordApiUrl: e.DISCORD_API_URL,
    devGuildId: e.DISCORD_DEV_GUILD_ID,
    logLevel: e.LOG_LEVEL,
    prettyLogs: e.NODE_ENV !== 'production',
    ffmpegPath: e.FFMPEG_PATH,
    voiceIdleMs: e.VOICE_IDLE_TIMEOUT,
    queueMaxLength: e.QUEUE_MAX_LENGTH,
    queueMaxPerMember: e.QUEUE_MAX_PER_MEMBER,
    minTextLength: e.TTS_MIN_TEXT_LENGTH ?? (e.TTS_API_VERSION === 'v3' ? 1 : 30),
    cacheTtlMs: e.TTS_CACHE_TTL,
    httpPort: e.HTTP_PORT,
    httpHost: e.HTTP_HOST,
    shardCount: e.SHARD_COUNT,
    shardList: shardList(e),
    twitchChatUrl: e.TWITCH_CHAT_URL,
    readerBusyChat: e.READER_BUSY_CHAT === 'on',
    readerHoldQuietChat: e.READER_HOLD_QUIET_CHAT === 'on',
    dataRetentionMs: e.DATA_RETENTION,
    generationPrior: e.TTS_GENERATION_TIME,
  };
}
