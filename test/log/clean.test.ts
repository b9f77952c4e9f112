import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { maskSecrets } from '../../src/log/index.ts';
import { capture } from './capture.ts';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const base64url = (length: number) =>
  fc
    .array(fc.constantFrom(...BASE64URL), { minLength: length, maxLength: length })
    .map((chars) => chars.join(''));

/** A bot token as Discord issues them: the bot's id in base64, a timestamp, an HMAC. */
const botToken = fc
  .tuple(fc.bigInt({ min: 10n ** 16n, max: 10n ** 19n }), base64url(6), base64url(38))
  .map(([id, time, hmac]) => `${Buffer.from(String(id)).toString('base64url')}.${time}.${hmac}`);
/** An opaque bearer credential (OAuth access token, API token). */
const bearer = fc
  .tuple(base64url(12), fc.array(fc.constantFrom('.', '~', '+', '/', ''), { maxLength: 3 }))
  .map(([head, tail]) => `${head}${tail.join('')}Zq9`);

/** Field names nobody would flag as secret: the value alone must give the secret away. */
const fieldName = fc
  .string({ minLength: 1, maxLength: 10 })
  .filter((name) => name !== '__proto__' && !/^(key|token|secret|body|files)$/i.test(name));
const words = fc.string({ maxLength: 12 }).map((text) => text.replace(/[A-Za-z0-9_-]+$/, ''));

/** Puts `value` at the end of `path`, through objects and lists. */
function nestAt(path: readonly string[], value: unknown, inList: readonly boolean[]): unknown {
  return path.reduceRight<unknown>(
    (inner, name, index) => (inList[index] ? [{ [name]: inner }] : { [name]: inner }),
    value,
  );
}

test.each([
  ['a bot token', 'MTEwMDAwMDAwMDAwMDAwMDAwOQ.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB'],
  ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6y'],
  ['Bearer', 'Bearer 0123456789abcdef.ghij~kl+mn/op=='],
  ['bearer in lower case', 'authorization: bearer abcdEFGH1234'],
])('maskSecrets masks %s', (_label, text) => {
  const masked = maskSecrets(`before ${text} after`);
  expect(masked).toContain('[redacted]');
  expect(masked).toMatch(/^before .*after$/);
  expect(masked).not.toMatch(/abcdefghijklmnop|SflKxwRJ|0123456789abcdef|abcdEFGH1234/);
});

test.each([
  'speech.wav',
  'file:///work/node_modules/discord.js/src/client/Client.js:215:11',
  'generation base_4f7c1f4e-93a1-4c4e-9b8e-6d0c1f2a3b4c finished',
  'Bearer',
  'v24.21.0',
])('maskSecrets leaves %j alone', (text) => {
  expect(maskSecrets(text)).toBe(text);
});

describe('secrets by value, under any name', () => {
  test('a bot token or Bearer credential in a string at any depth, any field name, is masked', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          botToken.map((secret) => ({ secret, text: secret })),
          bearer.map((secret) => ({ secret, text: `Bearer ${secret}` })),
        ),
        fc.array(fieldName, { minLength: 1, maxLength: 4 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        words,
        words,
        ({ secret, text }, path, inList, before, after) => {
          const { logger, lines } = capture();
          logger.info(nestAt(path, `${before} ${text} ${after}`, inList) as object, 'logged');
          expect(lines).toHaveLength(1);
          expect(lines[0]).not.toContain(secret);
          expect(lines[0]).toContain('[redacted]');
        },
      ),
      { numRuns: 300 },
    );
  });

  test('in an error message, a cause, or the log message itself, it is masked too', () => {
    fc.assert(
      fc.property(botToken, bearer, fieldName, (token, credential, name) => {
        const { logger, lines } = capture();
        const cause = new Error(`Discord refused Bot ${token}`);
        const error = new Error(`GET /me with Authorization: Bearer ${credential} failed`, {
          cause,
        });
        logger.error({ [name]: error }, 'request failed');
        logger.error(error);
        logger.warn(`login with ${token} failed`);
        logger.child({ [name]: `Bearer ${credential}` }).info('child bindings');
        expect(lines).toHaveLength(4);
        for (const line of lines) {
          expect(line).not.toContain(token);
          expect(line).not.toContain(credential);
        }
      }),
      { numRuns: 100 },
    );
  });
});
