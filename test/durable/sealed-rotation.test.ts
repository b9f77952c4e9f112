/**
 * Journalled reply tokens across a SECRET_KEY rotation: a token sealed with a previous secret
 * opens and is sealed again with the current one, on listing (the start) or at once (`reseal`,
 * for `npm run secrets:rotate`); one no secret opens sends the result to the channel.
 */
import Keyv from 'keyv';
import pino from 'pino';
import { describe, expect, test } from 'vitest';
import { PendingJournal } from '../../src/durable/journal.ts';
import { INTERACTION_TOKEN_LIFETIME_MS, type PendingSpeech } from '../../src/durable/pending.ts';
import { openEntry, sealEntry, storedPendingSchema } from '../../src/durable/sealed.ts';
import { FakeClock } from '../support/fake-clock.ts';

const OLD = Buffer.alloc(32, 0x11);
const CURRENT = Buffer.alloc(32, 0x33);
const STRANGER = Buffer.alloc(32, 0x44);
const T0 = 1_700_000_000_000;

function pending(id: string, withReply = true): PendingSpeech {
  return {
    id,
    guildId: '111',
    channelId: 'c',
    requesterId: 'u',
    requesterName: 'member',
    output: 'file',
    request: { text: 'x'.repeat(40), voiceId: 'am_2riuownnf', model: 'base' },
    ...(withReply
      ? {
          reply: {
            applicationId: 'app',
            token: `interaction-token-${id}-secret`,
            expiresAt: T0 + INTERACTION_TOKEN_LIFETIME_MS,
          },
        }
      : {}),
    generationId: `base_${id}`,
    submittedAt: T0,
    recordedAt: T0,
  };
}

/** Writes `entry` as a journal sealing with `secretKey` would. */
async function recordWith(keyv: Keyv, entry: PendingSpeech, secretKey: Buffer): Promise<void> {
  await new PendingJournal(keyv, { secretKey, clock: new FakeClock(T0) }).record(entry);
}

describe('openEntry with previous secrets', () => {
  const stored = (secretKey: Buffer) =>
    storedPendingSchema.parse(JSON.parse(JSON.stringify(sealEntry(pending('e'), secretKey, T0))));

  test.each([
    ['the current secret', false, CURRENT],
    ['a previous secret', true, OLD],
  ])('a token sealed with %s opens; rewritten: %s', (_name, rewrite, sealedWith) => {
    const opened = openEntry(stored(sealedWith), { current: CURRENT, previous: [OLD] }, T0);
    expect(opened).toEqual({ entry: pending('e'), rewrite, unreadable: false });
  });

  test('a token no secret opens: unreadable, no reply, nothing rewritten', () => {
    const opened = openEntry(stored(STRANGER), { current: CURRENT, previous: [OLD] }, T0);
    expect(opened).toEqual({ entry: pending('e', false), rewrite: false, unreadable: true });
  });
});

describe('PendingJournal with previous secrets', () => {
  test('listing (the start) seals a token of a previous secret again with the current one', async () => {
    const keyv = new Keyv();
    await recordWith(keyv, pending('a'), OLD);
    const clock = new FakeClock(T0);
    const journal = new PendingJournal(keyv, {
      secretKey: CURRENT,
      previousSecretKeys: [OLD],
      clock,
    });
    expect(await journal.list()).toEqual([pending('a')]);
    const currentOnly = new PendingJournal(keyv, { secretKey: CURRENT, clock });
    expect(await currentOnly.list()).toEqual([pending('a')]);
  });

  test('reseal counts and rewrites every token at once; the current secret alone then opens them all', async () => {
    const keyv = new Keyv();
    await recordWith(keyv, pending('old'), OLD);
    await recordWith(keyv, pending('current'), CURRENT);
    await recordWith(keyv, pending('lost'), STRANGER);
    await recordWith(keyv, pending('no-reply', false), OLD);
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    const clock = new FakeClock(T0);
    const journal = new PendingJournal(keyv, {
      secretKey: CURRENT,
      previousSecretKeys: [OLD],
      clock,
      logger,
    });
    expect(await journal.reseal()).toEqual({ rewritten: 1, current: 1, unreadable: 1 });
    expect(await journal.reseal()).toEqual({ rewritten: 0, current: 2, unreadable: 1 });

    const currentOnly = new PendingJournal(keyv, { secretKey: CURRENT, clock, logger });
    const listed = await currentOnly.list();
    expect(listed.map((entry) => [entry.id, entry.reply?.token])).toEqual([
      ['old', 'interaction-token-old-secret'],
      ['current', 'interaction-token-current-secret'],
      ['lost', undefined],
      ['no-reply', undefined],
    ]);
    expect(lines.join('\n')).toContain('SECRET_KEY_PREVIOUS');
    expect(lines.join('\n')).not.toContain('-secret');
    expect(JSON.stringify(await keyv.get('pending:old'))).not.toContain('-secret');
  });

  test('an expired token is dropped by the rewrite, whatever sealed it', async () => {
    const keyv = new Keyv();
    await recordWith(keyv, pending('late'), OLD);
    const clock = new FakeClock(T0 + INTERACTION_TOKEN_LIFETIME_MS);
    const journal = new PendingJournal(keyv, { secretKey: CURRENT, clock });
    expect(await journal.reseal()).toEqual({ rewritten: 1, current: 0, unreadable: 0 });
    expect(await keyv.get('pending:late')).not.toHaveProperty('reply');
  });
});
