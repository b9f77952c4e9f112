import { describe, expect, test } from 'vitest';
import {
  deliveryRoute,
  GENERATION_LIFETIME_MS,
  INTERACTION_TOKEN_LIFETIME_MS,
  type PendingSpeech,
  pendingSpeechSchema,
  REPLY_EDIT_MARGIN_MS,
  resumePlan,
} from '../../src/durable/pending.ts';

const T0 = 1_700_000_000_000;
const entry: PendingSpeech = {
  id: 't1',
  guildId: 'g',
  channelId: 'c',
  requesterId: 'u',
  requesterName: 'member',
  output: 'file',
  request: { text: 'x'.repeat(40), voiceId: 'am_2riuownnf', model: 'base' },
  reply: { applicationId: 'app', token: 'tok', expiresAt: T0 + INTERACTION_TOKEN_LIFETIME_MS },
  generationId: 'base_1',
  submittedAt: T0,
  recordedAt: T0,
};
const { generationId: _g, submittedAt: _s, ...queued } = entry;

test('the journal keeps a request’s language, so resumed speech is read in it (issue 31)', () => {
  const withLanguage = { ...entry, request: { ...entry.request, language: 'ja' } };
  expect(pendingSpeechSchema.parse(withLanguage).request).toMatchObject({ language: 'ja' });
});

describe('resumePlan', () => {
  test.each<[string, PendingSpeech, number, ReturnType<typeof resumePlan>]>([
    [
      'submitted: poll, never submit again',
      entry,
      T0 + 1000,
      { kind: 'poll', generationId: 'base_1', submittedAt: T0 },
    ],
    [
      'just before the id expires: still poll',
      entry,
      T0 + GENERATION_LIFETIME_MS - 1,
      { kind: 'poll', generationId: 'base_1', submittedAt: T0 },
    ],
    ['the generation id has expired', entry, T0 + GENERATION_LIFETIME_MS, { kind: 'expired' }],
    ['never submitted: submit now', queued, T0 + GENERATION_LIFETIME_MS * 2, { kind: 'submit' }],
  ])('%s', (_, pending, now, plan) => {
    expect(resumePlan(pending, now)).toEqual(plan);
  });
});

describe('deliveryRoute', () => {
  const expiry = T0 + INTERACTION_TOKEN_LIFETIME_MS;
  const { reply: _r, ...noReply } = entry;
  const { channelId: _c, ...neither } = noReply;
  test.each<[string, PendingSpeech, number, ReturnType<typeof deliveryRoute>['kind']]>([
    ['the token is fresh: edit the reply', entry, T0 + 60_000, 'reply'],
    ['too close to the expiry: the channel', entry, expiry - REPLY_EDIT_MARGIN_MS, 'channel'],
    ['expired: the channel', entry, expiry + 1, 'channel'],
    ['no reply (chat reader): the channel', noReply, T0, 'channel'],
    ['neither: nowhere', neither, T0, 'nowhere'],
  ])('%s', (_, pending, now, kind) => {
    expect(deliveryRoute(pending, now).kind).toBe(kind);
  });

  test('a reply route carries what an edit needs', () => {
    expect(deliveryRoute(entry, T0)).toEqual({ kind: 'reply', applicationId: 'app', token: 'tok' });
  });
});
