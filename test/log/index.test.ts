import { DiscordAPIError, HTTPError } from 'discord.js';
import { describe, expect, test } from 'vitest';
import { capture } from './capture.ts';

const TOKEN = 'aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OkxFQUtFRF9UT0tFTg';
const WEBHOOK_URL = `https://discord.com/api/v10/webhooks/123456789012345678/${TOKEN}/messages/@original`;
const INTERACTION_URL = `https://discord.com/api/v10/interactions/223456789012345678/${TOKEN}/callback`;
const AUDIO = Buffer.alloc(200 * 1024, 0x5a); // 'Z' bytes: easy to spot raw or in base64

/** A real discord.js error for a failed reply edit carrying a 200 KB attachment. */
function discordError(url = WEBHOOK_URL): DiscordAPIError {
  return new DiscordAPIError(
    { code: 40005, message: 'Request entity too large' },
    40005,
    413,
    'PATCH',
    url,
    {
      files: [{ name: 'speech.wav', data: AUDIO, contentType: 'audio/wav' }],
      body: { content: 'hello', attachments: [{ id: 0 }] },
    },
  );
}

function expectClean(line: string): void {
  expect(line).not.toContain(TOKEN);
  expect(line).not.toContain('ZZZZZZZZ');
  expect(line).not.toContain(AUDIO.subarray(0, 12).toString('base64'));
  expect(line.length).toBeLessThan(20_000);
}

describe('errors from discord.js', () => {
  test.each([
    ['as err', (e: Error) => ({ err: e })],
    ['as error', (e: Error) => ({ error: e })],
    ['nested', (e: Error) => ({ detail: { reply: { err: e } } })],
    ['as a cause', (e: Error) => ({ err: new Error('could not edit the reply', { cause: e }) })],
    ['in a list', (e: Error) => ({ failures: [e] })],
    ['in an AggregateError', (e: Error) => ({ err: new AggregateError([e], 'several failed') })],
  ])('a DiscordAPIError logged %s keeps what helps and drops the body and token', (_n, wrap) => {
    const { logger, lines } = capture();
    logger.warn(wrap(discordError()), 'could not update the /say reply');
    const line = lines[0] ?? '';
    expectClean(line);
    expect(line).toContain('Request entity too large');
    expect(line).toContain('40005');
    expect(line).toContain('/webhooks/123456789012345678/[redacted]/messages/@original');
    expect(line).toContain('DiscordAPIError');
  });

  test('an HTTPError to an interaction callback is logged with the token masked', () => {
    const { logger, lines } = capture();
    const error = new HTTPError(502, 'Bad Gateway', 'POST', INTERACTION_URL, {
      files: [{ name: 'a.wav', data: AUDIO }],
      body: { type: 4 },
    });
    logger.error({ err: error }, 'interaction handler failed');
    expectClean(lines[0] ?? '');
    expect(lines[0]).toContain('/interactions/223456789012345678/[redacted]/callback');
  });

  test('an error passed alone, and a token in the message text, are masked too', () => {
    const { logger, lines } = capture();
    logger.error(discordError());
    logger.warn(`request to ${WEBHOOK_URL} failed`);
    logger.child({ url: INTERACTION_URL }).info('child bindings are cleaned');
    for (const line of lines) expectClean(line);
    expect(lines).toHaveLength(3);
  });
});

describe('secrets by name, at any depth', () => {
  const SECRET = 'adx_live_0123456789_do_not_log';
  const NAMES = [
    'apiKey',
    'api_key',
    'API_KEY',
    'discordToken',
    'token',
    'secretKey',
    'sealedApiKey',
    'authorization',
    'Authorization',
    'AUTHORIZATION',
    'x-api-key',
    'X-Api-Key',
    'password',
    'secret',
    'key',
    'cookie',
  ];
  const nest = (name: string, depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { [name]: SECRET, visible: 'kept' };
    for (let level = 0; level < depth; level++) value = { [`level${level}`]: value };
    return value;
  };

  test.each(NAMES.flatMap((name) => [0, 1, 2, 5].map((depth) => [name, depth] as const)))(
    '%s at depth %i is redacted',
    (name, depth) => {
      const { logger, lines } = capture();
      logger.info(nest(name, depth), 'logged');
      expect(lines[0]).not.toContain(SECRET);
      expect(lines[0]).toContain('[redacted]');
      expect(lines[0]).toContain('kept');
    },
  );

  test('headers of a request, as an object or inside an error, are redacted', () => {
    const { logger, lines } = capture();
    const error = Object.assign(new Error('request failed'), {
      request: { headers: { 'x-api-key': SECRET, Authorization: `Bot ${SECRET}` } },
    });
    logger.warn({ err: error, headers: { 'X-API-KEY': SECRET } }, 'failed');
    expect(lines[0]).not.toContain(SECRET);
  });

  test('a config object logged whole shows neither the token nor the secret key', () => {
    const { logger, lines } = capture();
    logger.info(
      { config: { discordToken: SECRET, secretKey: Buffer.from(SECRET), logLevel: 'info' } },
      'config',
    );
    expect(lines[0]).not.toContain(SECRET);
    expect(lines[0]).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(lines[0]).toContain('"logLevel":"info"');
  });

  test('circular records are logged, not thrown on', () => {
    const { logger, lines } = capture();
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    const error = new Error('loop');
    (error as Error & { cause: unknown }).cause = error;
    logger.info({ a, err: error }, 'circular');
    expect(lines[0]).toContain('[circular]');
  });
});
