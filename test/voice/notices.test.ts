import { expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { type LeaveReason, leaveNotice } from '../../src/voice/index.ts';

const context = { channelId: '42', idleMs: 300_000, detail: 'disconnected from the voice channel' };

test.each<[LeaveReason, RegExp | undefined]>([
  ['command', undefined],
  ['shutdown', undefined],
  ['join-failed', undefined],
  ['idle', /^👋 Left <#42> after 5 min with nothing to say\. Use `\/join`/],
  ['alone', /^👋 Left <#42>: nobody is listening/],
  ['disconnected', /disconnected from <#42>, so the queue was cleared/],
  ['channel-deleted', /voice channel was deleted/],
  ['lost', /Lost the voice connection to <#42> \(disconnected from the voice channel\)/],
])('%s → %s', (reason, expected) => {
  const notice = leaveNotice(reason, context);
  if (expected === undefined) expect(notice).toBeUndefined();
  else expect(notice).toMatch(expected);
});

test('short idle times are said in seconds', () => {
  expect(leaveNotice('idle', { channelId: '1', idleMs: 45_000 })).toContain('after 45 s');
});

test('no notice mentions anyone', () => {
  const reasons: LeaveReason[] = ['idle', 'alone', 'disconnected', 'channel-deleted', 'lost'];
  for (const reason of reasons) {
    expect(leaveNotice(reason, context)).not.toMatch(/<@|@everyone|@here/);
  }
});

test.each([
  [
    'de',
    '👋 <#42> nach 5 min ohne etwas zu sagen verlassen. Nutze `/join`, um mich zurückzuholen.',
  ],
  [
    'fr',
    '👋 J’ai quitté <#42> après 5 min sans rien à dire. Utilise `/join` pour me faire revenir.',
  ],
  ['ja', '👋 5 min の間、話すことがなかったので <#42> から退出しました。`/join` で呼び戻せます。'],
])('in the server’s language: %s', (locale, text) => {
  expect(leaveNotice('idle', context, translatorFor(locale))).toBe(text);
});

test('a lost connection without a reason says so in the server’s language', () => {
  expect(leaveNotice('lost', { channelId: '1', idleMs: 0 }, translatorFor('es-ES'))).toContain(
    '(sin motivo indicado)',
  );
});

test.each([
  ['en', 'rate_limited', 'Discord rate-limited the bot’s voice connections (code 4021)'],
  ['de', 'call_terminated', 'Discord hat den Anruf beendet (Code 4022)'],
  ['ja', 'rate_limited', 'コード4021'],
] as const)(
  'a close that is not retried is said in the server’s language: %s %s',
  (locale, lost, text) => {
    const notice = leaveNotice('lost', { channelId: '1', idleMs: 0, lost }, translatorFor(locale));
    expect(notice).toContain(text);
  },
);
