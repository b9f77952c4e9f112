import { describe, expect, test } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.ts';

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
    });
    expect(config).toMatchObject({
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
