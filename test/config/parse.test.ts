import { describe, expect, test } from 'vitest';
import { ConfigError, parseConfig, parseStoreConfig } from '../../src/config/index.ts';

const minimal = { DISCORD_TOKEN: 'token-value-that-must-stay-secret' };

describe('parseConfig', () => {
  test('defaults: the vendor API, media origins and the embedded SQLite store', () => {
    const config = parseConfig(minimal);
    expect(config).toMatchObject({
      ttsApiUrl: 'https://api.audixa.ai/v2',
      ttsMediaOrigins: ['https://media.audixa.ai', 'https://cdn.audixa.ai'],
      storeUrl: 'sqlite://./data/bot.sqlite',
      pollDeadlineMs: 300_000,
      logLevel: 'info',
      secretKey: undefined,
      httpPort: undefined,
      httpHost: '0.0.0.0',
      shardCount: 'auto',
    });
    expect(config.ttsLimits.generate).toEqual([
      { count: 20, windowMs: 60_000 },
      { count: 500, windowMs: 86_400_000 },
    ]);
  });

  test('reads every variable', () => {
    const config = parseConfig({
      ...minimal,
      DISCORD_API_URL: 'http://127.0.0.1:9/api',
      DISCORD_DEV_GUILD_ID: '123456789012345678',
      TTS_API_URL: 'http://127.0.0.1:8/v2',
      TTS_MEDIA_ORIGINS: 'http://127.0.0.1:7, http://127.0.0.1:6',
      STORE_URL: 'redis://127.0.0.1:6379',
      SECRET_KEY: 'ab'.repeat(32),
      TTS_LIMITS: 'generate=2/1s',
      TTS_POLL_DEADLINE: '30s',
      VOICE_IDLE_TIMEOUT: '2m',
      NODE_ENV: 'production',
      HTTP_PORT: '9464',
      HTTP_HOST: '127.0.0.1',
      SHARD_COUNT: '3',
    });
    expect(config).toMatchObject({
      httpPort: 9464,
      httpHost: '127.0.0.1',
      shardCount: 3,
      discordApiUrl: 'http://127.0.0.1:9/api',
      devGuildId: '123456789012345678',
      ttsMediaOrigins: ['http://127.0.0.1:7', 'http://127.0.0.1:6'],
      storeUrl: 'redis://127.0.0.1:6379',
      pollDeadlineMs: 30_000,
      voiceIdleMs: 120_000,
      prettyLogs: false,
    });
    expect(config.secretKey?.length).toBe(32);
    expect(config.ttsLimits.generate).toEqual([{ count: 2, windowMs: 1000 }]);
  });

  test.each([
    [{}, /DISCORD_TOKEN is required/],
    [{ ...minimal, TTS_API_URL: 'not a url' }, /TTS_API_URL/],
    [{ ...minimal, STORE_URL: 'mysql://x' }, /STORE_URL must start with sqlite:\/\/ or redis:\/\//],
    [{ ...minimal, SECRET_KEY: 'short' }, /SECRET_KEY must be 32 bytes/],
    [{ ...minimal, TTS_LIMITS: 'generate=lots' }, /TTS_LIMITS "lots" is not a limit/],
    [
      { ...minimal, DISCORD_DEV_GUILD_ID: 'abc' },
      /DISCORD_DEV_GUILD_ID must be a numeric Discord id/,
    ],
    [{ ...minimal, TTS_POLL_DEADLINE: '5 minutes' }, /TTS_POLL_DEADLINE must be a duration/],
    [{ ...minimal, TTS_CACHE_TTL: '24h' }, /TTS_CACHE_TTL must be below 24h/],
    [{ ...minimal, TTS_CACHE_TTL: '2000m' }, /TTS_CACHE_TTL must be below 24h/],
    [{ ...minimal, TTS_CACHE_TTL: 'forever' }, /TTS_CACHE_TTL must be a duration/],
    [{ ...minimal, HTTP_PORT: 'eighty' }, /HTTP_PORT/],
    [{ ...minimal, HTTP_PORT: '70000' }, /HTTP_PORT/],
    [{ ...minimal, SHARD_COUNT: 'many' }, /SHARD_COUNT must be auto or a whole number/],
    [{ ...minimal, SHARD_COUNT: '0' }, /SHARD_COUNT must be auto or a whole number/],
  ])('%j is refused, naming the variable', (env, message) => {
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(message);
  });

  test.each([
    [undefined, 12 * 3_600_000],
    ['0', 0],
    ['30m', 1_800_000],
    ['23h', 23 * 3_600_000],
  ])('TTS_CACHE_TTL %s is %d ms', (value, ms) => {
    const env = value === undefined ? minimal : { ...minimal, TTS_CACHE_TTL: value };
    expect(parseConfig(env).cacheTtlMs).toBe(ms);
  });

  test.each([
    [undefined, 7 * 86_400_000],
    ['0', 0],
    ['12h', 12 * 3_600_000],
    ['30d', 30 * 86_400_000],
    ['365d', 365 * 86_400_000],
  ])('DATA_RETENTION %s is %d ms (0: a removed server is forgotten at once)', (value, ms) => {
    const env = value === undefined ? minimal : { ...minimal, DATA_RETENTION: value };
    expect(parseConfig(env).dataRetentionMs).toBe(ms);
  });

  test.each([
    ['366d', /DATA_RETENTION must be between 1s and 365d/],
    ['1 week', /DATA_RETENTION must be a duration like 12h or 7d, or 0 to delete at once/],
    ['-1d', /DATA_RETENTION must be a duration/],
  ])('DATA_RETENTION=%s is refused, naming the variable', (value, message) => {
    expect(() => parseConfig({ ...minimal, DATA_RETENTION: value })).toThrow(message);
  });

  test.each([
    ['VOICE_IDLE_TIMEOUT', '600h', /VOICE_IDLE_TIMEOUT must be between 1s and 24h/],
    ['VOICE_IDLE_TIMEOUT', '99999999999999999999h', /VOICE_IDLE_TIMEOUT must be between/],
    ['VOICE_IDLE_TIMEOUT', '0ms', /VOICE_IDLE_TIMEOUT must be between 1s and 24h/],
    ['TTS_POLL_DEADLINE', '500ms', /TTS_POLL_DEADLINE must be between 1s and 1h/],
    ['TTS_POLL_DEADLINE', '2h', /TTS_POLL_DEADLINE must be between 1s and 1h/],
  ])('%s=%s is out of bounds and refused at start, naming the variable', (name, value, message) => {
    expect(() => parseConfig({ ...minimal, [name]: value })).toThrow(message);
  });

  test.each([
    ['VOICE_IDLE_TIMEOUT', '1s', 'voiceIdleMs', 1000],
    ['VOICE_IDLE_TIMEOUT', '24h', 'voiceIdleMs', 86_400_000],
    ['TTS_POLL_DEADLINE', '1h', 'pollDeadlineMs', 3_600_000],
  ] as const)('%s=%s is at a bound and accepted', (name, value, field, ms) => {
    expect(parseConfig({ ...minimal, [name]: value })[field]).toBe(ms);
  });

  // DATA_RETENTION is no timer: removed servers are swept at least hourly (src/privacy).
  test.each([
    [undefined, { intercept: 800, slope: 15 }],
    ['150ms+0ms/char', { intercept: 150, slope: 0 }],
    ['1.5s + 20ms/char', { intercept: 1500, slope: 20 }],
    ['60s+1000ms/char', { intercept: 60_000, slope: 1000 }],
  ])('TTS_GENERATION_TIME %s: the prior of base, and twice it for advance', (value, base) => {
    const env = value === undefined ? minimal : { ...minimal, TTS_GENERATION_TIME: value };
    expect(parseConfig(env).generationPrior).toEqual({
      base,
      advance: { intercept: 2 * base.intercept, slope: 2 * base.slope },
    });
  });

  test.each([
    ['800ms', /TTS_GENERATION_TIME must look like 800ms\+15ms\/char/],
    ['800+15', /TTS_GENERATION_TIME must look like/],
    ['-1ms+15ms/char', /TTS_GENERATION_TIME must look like/],
    ['61s+0ms/char', /TTS_GENERATION_TIME must be at most 1m plus 1000ms\/char/],
    ['0ms+1001ms/char', /TTS_GENERATION_TIME must be at most/],
  ])('TTS_GENERATION_TIME=%s is refused, naming the variable', (value, message) => {
    expect(() => parseConfig({ ...minimal, TTS_GENERATION_TIME: value })).toThrow(message);
  });

  test('every duration the bot reads fits a Node timer at its maximum', () => {
    const longest = parseConfig({ ...minimal, VOICE_IDLE_TIMEOUT: '24h', TTS_POLL_DEADLINE: '1h' });
    for (const ms of [longest.voiceIdleMs, longest.pollDeadlineMs]) {
      expect(ms).toBeLessThanOrEqual(2 ** 31 - 1);
    }
  });

  const insert = (text: string, at: number, what: string) =>
    `${text.slice(0, at)}${what}${text.slice(at)}`;
  const zero = Buffer.alloc(32);
  const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1));
  test.each([
    ['64 hex characters', key.toString('hex')],
    ['64 upper-case hex characters', key.toString('hex').toUpperCase()],
    ['base64 with padding', key.toString('base64')],
    ['base64 without padding', key.toString('base64').replace(/=$/, '')],
    ['base64url', key.toString('base64url')],
    ['surrounded by whitespace', ` ${key.toString('base64')}\n`],
  ])('SECRET_KEY as %s is read exactly', (_name, text) => {
    expect(parseConfig({ ...minimal, SECRET_KEY: text }).secretKey).toEqual(key);
  });

  test.each([
    ['base64 with a character outside the alphabet', insert(key.toString('base64'), 10, '!')],
    ['base64 with a space inside', insert(key.toString('base64'), 10, ' ')],
    ['base64 with a line break inside', insert(key.toString('base64'), 20, '\n')],
    ['base64 mixing both alphabets', `${'+'.repeat(21)}${'_'.repeat(21)}A`],
    ['base64 of 33 bytes', Buffer.alloc(33, 1).toString('base64')],
    ['base64 of 31 bytes', Buffer.alloc(31, 1).toString('base64')],
    ['non-canonical base64 (stray low bits)', `${key.toString('base64').slice(0, 42)}B=`],
    ['hex with a non-hex character', `${key.toString('hex').slice(0, 63)}g`],
    ['63 hex characters', key.toString('hex').slice(1)],
    ['all-zero, hex', zero.toString('hex')],
    ['all-zero, base64', zero.toString('base64')],
  ])('SECRET_KEY as %s is refused, naming the variable', (_name, text) => {
    expect(() => parseConfig({ ...minimal, SECRET_KEY: text })).toThrow(/SECRET_KEY /);
  });

  test('errors never echo secret values', () => {
    const secret = 'zz-not-base64-secret-value!!';
    try {
      parseConfig({ ...minimal, SECRET_KEY: secret });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain(secret);
      expect(String(error)).not.toContain(minimal.DISCORD_TOKEN);
    }
  });
});

describe('TWITCH_CHAT_URL', () => {
  test.each([
    [undefined, 'wss://irc-ws.chat.twitch.tv:443'],
    ['ws://127.0.0.1:4567', 'ws://127.0.0.1:4567'],
  ])('%j gives %j', (value, url) => {
    expect(parseConfig({ ...minimal, TWITCH_CHAT_URL: value }).twitchChatUrl).toBe(url);
  });

  test.each(['https://irc-ws.chat.twitch.tv', 'irc-ws.chat.twitch.tv:443'])(
    '%j is refused, naming the variable',
    (value) => {
      expect(() => parseConfig({ ...minimal, TWITCH_CHAT_URL: value })).toThrow(/TWITCH_CHAT_URL/);
    },
  );
});

describe('SECRET_KEY_PREVIOUS', () => {
  const a = Buffer.alloc(32, 1);
  const b = Buffer.alloc(32, 2);

  test('absent: no previous secrets', () => {
    expect(parseConfig(minimal).previousSecretKeys).toEqual([]);
  });

  test('a comma-separated list, hex or base64, spaces ignored, in order', () => {
    const config = parseConfig({
      ...minimal,
      SECRET_KEY_PREVIOUS: ` ${a.toString('hex')} , ${b.toString('base64')}`,
    });
    expect(config.previousSecretKeys).toEqual([a, b]);
  });

  test('also for tools that need no Discord token (secrets:rotate)', () => {
    expect(
      parseStoreConfig({ SECRET_KEY: b.toString('hex'), SECRET_KEY_PREVIOUS: a.toString('hex') }),
    ).toMatchObject({ secretKey: b, previousSecretKeys: [a], dataDir: './data' });
  });

  test.each([
    ['a short entry', `${a.toString('hex')},short-secret-value`, /entry 2 of the list must be 32/],
    ['an empty entry', `${a.toString('hex')},,${b.toString('hex')}`, /entry 2 of the list/],
    ['an all-zero entry', Buffer.alloc(32).toString('hex'), /entry 1 of the list must not be all/],
  ])(
    '%s is refused, naming the variable and the entry, never its value',
    (_name, text, message) => {
      const error = (() => {
        try {
          parseConfig({ ...minimal, SECRET_KEY_PREVIOUS: text });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect(String(error)).toMatch(/SECRET_KEY_PREVIOUS /);
      expect(String(error)).toMatch(message);
      for (const part of text.split(',').filter(Boolean)) expect(String(error)).not.toContain(part);
    },
  );
});

describe('SHARD_LIST', () => {
  test('absent: every shard', () => {
    expect(parseConfig(minimal).shardList).toBeUndefined();
  });

  test('this host’s shards of SHARD_COUNT, repeats dropped', () => {
    expect(parseConfig({ ...minimal, SHARD_COUNT: '4', SHARD_LIST: '3, 1,3' }).shardList).toEqual([
      3, 1,
    ]);
  });

  test.each([
    [{ SHARD_LIST: '0' }, /SHARD_LIST needs a number in SHARD_COUNT/],
    [
      { SHARD_COUNT: '2', SHARD_LIST: '2' },
      /SHARD_LIST must list shard ids below SHARD_COUNT \(2\)/,
    ],
    [{ SHARD_COUNT: '2', SHARD_LIST: 'one' }, /SHARD_LIST must be shard ids separated by commas/],
    [{ SHARD_COUNT: '2', SHARD_LIST: '0,' }, /SHARD_LIST must be shard ids separated by commas/],
  ])('%j is refused, naming the variable', (env, message) => {
    expect(() => parseConfig({ ...minimal, ...env })).toThrow(ConfigError);
    expect(() => parseConfig({ ...minimal, ...env })).toThrow(message);
  });
});

describe('TTS_API_VERSION and TTS_STREAMING', () => {
  test.each([
    [{}, { version: 'v2', streaming: false }, 'https://api.audixa.ai/v2'],
    [{ TTS_API_VERSION: 'v3' }, { version: 'v3', streaming: true }, 'https://api.audixa.ai/v3'],
    [
      { TTS_API_VERSION: 'v3', TTS_STREAMING: 'off' },
      { version: 'v3', streaming: false },
      'https://api.audixa.ai/v3',
    ],
    [
      { TTS_API_VERSION: 'v3', TTS_API_URL: 'http://127.0.0.1:4000/v3' },
      { version: 'v3', streaming: true },
      'http://127.0.0.1:4000/v3',
    ],
  ])('%j', (env, api, url) => {
    const config = parseConfig({ ...minimal, ...env });
    expect(config.ttsApi).toMatchObject({ ...api, concurrentJobs: 5 });
    expect(config.ttsApiUrl).toBe(url);
  });

  test('the shortest text is the API’s own: 30 on v2, 1 on v3 (which bills a short text as 30 anyway); TTS_MIN_TEXT_LENGTH overrides', () => {
    expect(parseConfig(minimal).minTextLength).toBe(30);
    expect(parseConfig({ ...minimal, TTS_API_VERSION: 'v3' }).minTextLength).toBe(1);
    expect(
      parseConfig({ ...minimal, TTS_API_VERSION: 'v3', TTS_MIN_TEXT_LENGTH: '30' }).minTextLength,
    ).toBe(30);
    expect(parseConfig({ ...minimal, TTS_MIN_TEXT_LENGTH: '40' }).minTextLength).toBe(40);
  });

  test('v3 limits every call in one allowance, 120 a minute unless told', () => {
    const v3 = parseConfig({ ...minimal, TTS_API_VERSION: 'v3' });
    expect(v3.ttsLimits.request).toEqual([{ count: 120, windowMs: 60_000 }]);
    expect(v3.ttsLimits.generate).toEqual([]);
    const paid = parseConfig({ ...minimal, TTS_API_VERSION: 'v3', TTS_LIMITS: 'request=240/1m' });
    expect(paid.ttsLimits.request).toEqual([{ count: 240, windowMs: 60_000 }]);
    expect(parseConfig(minimal).ttsLimits.request).toEqual([]);
  });

  test.each([
    [{ TTS_STREAMING: 'on' }, /TTS_STREAMING can only be on with TTS_API_VERSION=v3/],
    [{ TTS_API_VERSION: 'v4' }, /TTS_API_VERSION/],
    [{ TTS_API_VERSION: 'v3', TTS_STREAMING: 'yes' }, /TTS_STREAMING/],
    [{ TTS_API_VERSION: 'v3', TTS_CONCURRENT_JOBS: '0' }, /TTS_CONCURRENT_JOBS/],
  ])('%j is refused, naming the variable', (env, message) => {
    expect(() => parseConfig({ ...minimal, ...env })).toThrow(ConfigError);
    expect(() => parseConfig({ ...minimal, ...env })).toThrow(message);
  });
});
