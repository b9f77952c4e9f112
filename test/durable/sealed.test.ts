import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  INTERACTION_TOKEN_LIFETIME_MS,
  type PendingSpeech,
  REPLY_EDIT_MARGIN_MS,
} from '../../src/durable/pending.ts';
import {
  openEntry,
  replyContext,
  type StoredPending,
  sealEntry,
  storedPendingSchema,
} from '../../src/durable/sealed.ts';

const T0 = 1_700_000_000_000;
const key = Buffer.alloc(32, 3);
const otherKey = Buffer.alloc(32, 4);
const TOKEN = 'aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDpzZWNyZXQ';

const entry: PendingSpeech = {
  id: 'e1',
  guildId: '111',
  channelId: 'c',
  requesterId: 'u',
  requesterName: 'member',
  output: 'file',
  request: { text: 'x'.repeat(40), voiceId: 'am_2riuownnf', model: 'base' },
  reply: { applicationId: 'app', token: TOKEN, expiresAt: T0 + INTERACTION_TOKEN_LIFETIME_MS },
  generationId: 'base_1',
  submittedAt: T0,
  recordedAt: T0,
};
const { reply: _reply, ...withoutReply } = entry;

/** The stored form as it goes through a JSON store and back. */
function stored(value: PendingSpeech, now = T0, secretKey = key): StoredPending {
  return storedPendingSchema.parse(JSON.parse(JSON.stringify(sealEntry(value, secretKey, now))));
}

describe('round trip', () => {
  test('any token, guild, entry and application: sealed at rest, the same entry back', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9_.-]{16,120}$/),
        fc.stringMatching(/^[0-9]{1,20}$/),
        fc.string({ minLength: 1 }),
        fc.stringMatching(/^[0-9]{1,20}$/),
        fc.integer({ min: REPLY_EDIT_MARGIN_MS + 1, max: INTERACTION_TOKEN_LIFETIME_MS }),
        (token, guildId, id, applicationId, left) => {
          const value: PendingSpeech = {
            ...entry,
            id,
            guildId,
            reply: { applicationId, token, expiresAt: T0 + left },
          };
          const at = stored(value);
          expect(JSON.stringify(at)).not.toContain(token);
          expect(at.reply?.token).toBeUndefined();
          expect(openEntry(at, key, T0)).toEqual({
            entry: value,
            rewrite: false,
            unreadable: false,
          });
        },
      ),
    );
  });

  test('an entry without a reply (chat reader) is stored and read as it is', () => {
    expect(sealEntry(withoutReply as PendingSpeech, key, T0)).toEqual(withoutReply);
    expect(openEntry(stored(withoutReply as PendingSpeech), key, T0)).toEqual({
      entry: withoutReply,
      rewrite: false,
      unreadable: false,
    });
  });
});

describe('tokens that do not open: the entry resumes without its reply (channel fallback)', () => {
  const good = stored(entry);
  const goodReply = good.reply ?? { applicationId: 'app', expiresAt: 0 };
  const sealedToken = goodReply.sealedToken ?? '';
  const withSealed = (text: string): StoredPending => ({
    ...good,
    reply: { ...goodReply, sealedToken: text },
  });
  test.each<[string, StoredPending, Buffer]>([
    ['another SECRET_KEY', good, otherKey],
    ['moved to another entry', { ...good, id: 'e2' }, key],
    ['moved to another guild', { ...good, guildId: '222' }, key],
    ['another application', { ...good, reply: { ...goodReply, applicationId: 'other' } }, key],
    ['truncated', withSealed(sealedToken.slice(0, 30)), key],
    ['empty', withSealed(''), key],
    ['not base64', withSealed(`${sealedToken.slice(0, -2)}!!`), key],
    // Another first character, whatever the random IV made it (a fixed 'A' matched 1 time in 64).
    [
      'a character changed',
      withSealed(`${sealedToken.startsWith('A') ? 'B' : 'A'}${sealedToken.slice(1)}`),
      key,
    ],
  ])('%s', (_, value, secretKey) => {
    const opened = openEntry(value, secretKey, T0);
    expect(opened.entry.reply).toBeUndefined();
    expect(opened.unreadable).toBe(true);
    expect(opened.rewrite).toBe(false);
  });

  test('a sealed token copied into another entry of the same guild does not open there', () => {
    const other = stored({ ...entry, id: 'e2' });
    const copied = { ...other, reply: good.reply };
    expect(openEntry(copied, key, T0).entry.reply).toBeUndefined();
  });

  test('any single changed character of the sealed token is refused', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: sealedToken.length - 1 }),
        fc.constantFrom(...'ABCabc012+/='),
        (at, c) => {
          fc.pre(sealedToken[at] !== c);
          const changed = sealedToken.slice(0, at) + c + sealedToken.slice(at + 1);
          expect(openEntry(withSealed(changed), key, T0).entry.reply).toBeUndefined();
        },
      ),
    );
  });
});

describe('expiry and the format before sealing', () => {
  const expiresAt = entry.reply?.expiresAt ?? 0;
  const legacy: StoredPending = {
    ...withoutReply,
    reply: { applicationId: 'app', token: TOKEN, expiresAt },
  };
  test.each<[string, StoredPending, number, boolean, boolean]>([
    // name, stored, now, keeps the reply, rewrite
    ['a clear token (earlier version), still valid: used, then rewritten', legacy, T0, true, true],
    ['a clear token that expired: dropped and rewritten', legacy, expiresAt, false, true],
    ['a sealed token that is fresh: used as it is', stored(entry), T0, true, false],
    [
      'a sealed token within the edit margin: dropped, rewritten without it',
      stored(entry),
      expiresAt - REPLY_EDIT_MARGIN_MS,
      false,
      true,
    ],
  ])('%s', (_, value, now, keeps, rewrite) => {
    const opened = openEntry(value, key, now);
    expect(opened.entry.reply).toEqual(keeps ? entry.reply : undefined);
    expect(opened.rewrite).toBe(rewrite);
    expect(opened.unreadable).toBe(false);
  });

  test('a token that can no longer be used is not written at all', () => {
    for (const now of [expiresAt - REPLY_EDIT_MARGIN_MS, expiresAt, expiresAt + 1]) {
      expect(sealEntry(entry, key, now)).toEqual(withoutReply);
    }
  });

  test('rewriting a clear-token entry seals it: the rewritten form opens to the same entry', () => {
    const { entry: opened } = openEntry(legacy, key, T0);
    const again = stored(opened);
    expect(JSON.stringify(again)).not.toContain(TOKEN);
    expect(openEntry(again, key, T0)).toEqual({ entry, rewrite: false, unreadable: false });
  });

  test('the binding names guild, entry and application, unambiguously', () => {
    expect(replyContext({ guildId: '1:2', id: '3' }, 'a')).not.toBe(
      replyContext({ guildId: '1', id: '2:3' }, 'a'),
    );
  });
});
