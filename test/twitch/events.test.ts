import { describe, expect, test } from 'vitest';
import { mayControl } from '../../src/twitch/commands.ts';
import { chatEventOf, parseBadges, parseEmotes } from '../../src/twitch/events.ts';
import { parseLine } from '../../src/twitch/irc.ts';

const RECEIVED = 1_700_000_000_000;

function eventOf(line: string) {
  const message = parseLine(line);
  if (message === undefined) throw new Error(`not a line: ${line}`);
  return chatEventOf(message, RECEIVED);
}

describe('chatEventOf', () => {
  test('who may !tts comes from the badges tag of that very line: not the login, display name, text or other tags', () => {
    const spoofs = [
      // A chatter named "moderator", styled "Broadcaster", saying it, with mod-looking other tags.
      '@badge-info=moderator/1;badges=subscriber/6;display-name=Broadcaster;id=a1;user-id=7;user-type=;mod=0 ' +
        ':moderator!moderator@moderator.tmi.twitch.tv PRIVMSG #chan :!tts skip badges=moderator/1',
      '@badges=;display-name=moderator;id=a2;user-id=8 :broadcaster!broadcaster@b.tmi.twitch.tv PRIVMSG #chan :!tts pause',
      '@badges=vip/1;id=a3;user-id=9 :x!x@x.tmi.twitch.tv PRIVMSG #chan :@badges=moderator/1 !tts skip',
    ];
    for (const line of spoofs) {
      const event = eventOf(line);
      expect(event?.kind, line).toBe('message');
      if (event?.kind !== 'message') continue;
      expect(mayControl(event.badges), line).toBe(false);
    }
    const mod = eventOf(
      '@badges=moderator/1;id=a4;user-id=10 :somebody!somebody@s.tmi.twitch.tv PRIVMSG #chan :!tts skip',
    );
    expect(mod?.kind === 'message' && mayControl(mod.badges)).toBe(true);
  });

  test('a PRIVMSG as Twitch sends it', () => {
    const event = eventOf(
      '@badge-info=subscriber/8;badges=moderator/1,subscriber/6;color=#0000FF;display-name=Ronni\\sR;' +
        'emotes=25:0-4,12-16/1902:6-10;first-msg=1;flags=;id=b34ccfc7;mod=1;room-id=1337;' +
        'subscriber=1;tmi-sent-ts=1507246572675;turbo=0;user-id=42;user-type=mod ' +
        ':ronni!ronni@ronni.tmi.twitch.tv PRIVMSG #Dallas :Kappa Keepo Kappa',
    );
    expect(event).toEqual({
      kind: 'message',
      channel: 'dallas',
      roomId: '1337',
      id: 'b34ccfc7',
      userId: '42',
      login: 'ronni',
      displayName: 'Ronni R',
      text: 'Kappa Keepo Kappa',
      isAction: false,
      badges: new Set(['moderator', 'subscriber']),
      emotes: [
        { id: '25', word: 'Kappa', start: 0, end: 4 },
        { id: '1902', word: 'Keepo', start: 6, end: 10 },
        { id: '25', word: 'Kappa', start: 12, end: 16 },
      ],
      firstMessage: true,
      sentAt: 1507246572675,
    });
  });

  test('/me: the CTCP wrapper goes, emote positions count in the inner text', () => {
    const event = eventOf(
      '@badges=;display-name=;emotes=25:6-10;id=a1;tmi-sent-ts=x;user-id=7 ' +
        ':bob!bob@bob.tmi.twitch.tv PRIVMSG #c :\u0001ACTION waves Kappa\u0001',
    );
    expect(event).toMatchObject({
      text: 'waves Kappa',
      isAction: true,
      displayName: 'bob',
      emotes: [{ word: 'Kappa' }],
      firstMessage: false,
      sentAt: RECEIVED,
      roomId: undefined,
    });
  });

  test.each([
    ['no id', '@user-id=1 :a!a@a PRIVMSG #c :hi'],
    ['no user id', '@id=1 :a!a@a PRIVMSG #c :hi'],
    ['not a channel', '@id=1;user-id=1 :a!a@a PRIVMSG someone :hi'],
    ['other commands', '@room-id=1 :tmi.twitch.tv ROOMSTATE #c'],
    ['CLEARMSG without target', '@login=a :tmi.twitch.tv CLEARMSG #c :x'],
    ['CLEARCHAT of a user without id', ':tmi.twitch.tv CLEARCHAT #c :ronni'],
  ])('%s: no event', (_, line) => {
    expect(eventOf(line)).toBeUndefined();
  });

  test('CLEARMSG names the deleted message', () => {
    expect(
      eventOf(
        '@login=ronni;room-id=;target-msg-id=abc-123-def;tmi-sent-ts=1642720582342 ' +
          ':tmi.twitch.tv CLEARMSG #dallas :HeyGuys',
      ),
    ).toEqual({ kind: 'deleted', channel: 'dallas', messageId: 'abc-123-def', login: 'ronni' });
  });

  test('CLEARCHAT with a user purges that user, without one the whole channel', () => {
    expect(
      eventOf(
        '@ban-duration=350;room-id=12345678;target-user-id=87654321;tmi-sent-ts=1642719320727 ' +
          ':tmi.twitch.tv CLEARCHAT #dallas :Ronni',
      ),
    ).toEqual({
      kind: 'cleared',
      scope: 'user',
      channel: 'dallas',
      userId: '87654321',
      login: 'ronni',
    });
    expect(
      eventOf('@room-id=12345678;tmi-sent-ts=1642715695392 :tmi.twitch.tv CLEARCHAT #dallas'),
    ).toEqual({ kind: 'cleared', scope: 'channel', channel: 'dallas' });
  });
});

describe('parseBadges', () => {
  test.each([
    ['broadcaster/1,subscriber/12', ['broadcaster', 'subscriber']],
    ['', []],
    [undefined, []],
    ['vip/1', ['vip']],
  ])('%j', (raw, names) => {
    expect(parseBadges(raw)).toEqual(new Set(names));
  });
});

describe('parseEmotes', () => {
  test.each([
    { raw: '', text: 'hi', words: [] },
    { raw: '25:0-4', text: 'Kappa', words: ['Kappa'] },
    // Positions count code points: the emoji before the emote is one, not two.
    { raw: '25:3-7', text: '😀 ' + ' Kappa', words: ['Kappa'] },
    { raw: '25:0-4,99-120', text: 'Kappa', words: ['Kappa'] },
    { raw: '25:4-0/:1-2/x', text: 'Kappa', words: [] },
    { raw: 'emotesv2_abc:6-8/25:0-4', text: 'Kappa LUL', words: ['Kappa', 'LUL'] },
  ])('$raw over $text', ({ raw, text, words }) => {
    expect(parseEmotes(raw, text).map((emote) => emote.word)).toEqual(words);
  });
});
