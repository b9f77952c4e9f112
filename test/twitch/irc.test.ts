import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  escapeTagValue,
  formatLine,
  nickOf,
  parseLine,
  unescapeTagValue,
} from '../../src/twitch/irc.ts';
import { escapeTag } from '../fake-twitch/index.ts';

describe('parseLine', () => {
  test.each([
    {
      line: 'PING :tmi.twitch.tv',
      command: 'PING',
      prefix: undefined,
      params: ['tmi.twitch.tv'],
    },
    {
      line: ':tmi.twitch.tv 001 justinfan12345 :Welcome, GLHF!\r\n',
      command: '001',
      prefix: 'tmi.twitch.tv',
      params: ['justinfan12345', 'Welcome, GLHF!'],
    },
    {
      line: ':justinfan1!justinfan1@justinfan1.tmi.twitch.tv JOIN #bar',
      command: 'JOIN',
      prefix: 'justinfan1!justinfan1@justinfan1.tmi.twitch.tv',
      params: ['#bar'],
    },
    {
      line: ':tmi.twitch.tv CAP * ACK :twitch.tv/tags twitch.tv/commands',
      command: 'CAP',
      prefix: 'tmi.twitch.tv',
      params: ['*', 'ACK', 'twitch.tv/tags twitch.tv/commands'],
    },
    {
      line: ':tmi.twitch.tv RECONNECT',
      command: 'RECONNECT',
      prefix: 'tmi.twitch.tv',
      params: [],
    },
    {
      line: '@room-id=12345678;tmi-sent-ts=1642715695392 :tmi.twitch.tv CLEARCHAT #dallas',
      command: 'CLEARCHAT',
      prefix: 'tmi.twitch.tv',
      params: ['#dallas'],
    },
    {
      line: ':ronni!ronni@ronni.tmi.twitch.tv PRIVMSG #ronni ::) trailing colon kept',
      command: 'PRIVMSG',
      prefix: 'ronni!ronni@ronni.tmi.twitch.tv',
      params: ['#ronni', ':) trailing colon kept'],
    },
    {
      line: ':a PRIVMSG #c :',
      command: 'PRIVMSG',
      prefix: 'a',
      params: ['#c', ''],
    },
  ])('$line', ({ line, command, prefix, params }) => {
    const parsed = parseLine(line);
    expect(parsed).toMatchObject({ command, prefix, params });
  });

  test('tags of a real Twitch PRIVMSG, escaped values unescaped, valueless tags empty', () => {
    const line =
      '@badge-info=;badges=broadcaster/1,subscriber/0;color=#FF0000;display-name=Ronni\\sthe\\:Great;' +
      'emotes=25:0-4;first-msg=0;flags;id=b34ccfc7-4977-403a-8a94-33c6bac34fb8;mod=0;' +
      'room-id=1337;tmi-sent-ts=1507246572675;user-id=1337 ' +
      ':ronni!ronni@ronni.tmi.twitch.tv PRIVMSG #ronni :Kappa Keepo Kappa';
    const parsed = parseLine(line);
    expect(parsed?.tags.get('display-name')).toBe('Ronni the;Great');
    expect(parsed?.tags.get('badge-info')).toBe('');
    expect(parsed?.tags.get('flags')).toBe('');
    expect(parsed?.tags.get('badges')).toBe('broadcaster/1,subscriber/0');
    expect(parsed?.params).toEqual(['#ronni', 'Kappa Keepo Kappa']);
  });

  test.each(['', '   ', '@a=b', ':prefix.only'])('%j is not a message', (line) => {
    expect(parseLine(line)).toBeUndefined();
  });
});

describe('tag escaping', () => {
  test.each([
    ['a;b', 'a\\:b'],
    ['a b', 'a\\sb'],
    ['a\\b', 'a\\\\b'],
    ['a\r\nb', 'a\\r\\nb'],
    ['\\s', '\\\\s'],
    ['plain', 'plain'],
  ])('%j ↔ %j', (value, wire) => {
    expect(escapeTagValue(value)).toBe(wire);
    expect(unescapeTagValue(wire)).toBe(value);
  });

  test.each([
    ['a\\', 'a'],
    ['\\x', 'x'],
    ['\\', ''],
  ])('lenient unescape of %j is %j', (wire, value) => {
    expect(unescapeTagValue(wire)).toBe(value);
  });

  test('round trip: any value survives escaping, ours and the spec table alike', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        expect(unescapeTagValue(escapeTagValue(value))).toBe(value);
        expect(escapeTagValue(value)).toBe(escapeTag(value));
        expect(escapeTagValue(value)).not.toMatch(/[; \r\n]/);
      }),
    );
  });

  test('round trip through a whole line', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
    const text = fc.string().filter((s) => !/[\r\n\0]/.test(s));
    fc.assert(
      fc.property(fc.dictionary(key, fc.string({ minLength: 1 })), text, (tags, trailing) => {
        const line = formatLine({
          tags: new Map(Object.entries(tags)),
          prefix: 'tmi.twitch.tv',
          command: 'PRIVMSG',
          params: ['#chan', trailing],
        });
        const parsed = parseLine(line);
        expect(Object.fromEntries(parsed?.tags ?? [])).toEqual(tags);
        expect(parsed?.params).toEqual(['#chan', trailing]);
      }),
    );
  });
});

describe('nickOf', () => {
  test.each([
    ['ronni!ronni@ronni.tmi.twitch.tv', 'ronni'],
    ['tmi.twitch.tv', 'tmi.twitch.tv'],
    [undefined, undefined],
  ])('%j → %j', (prefix, nick) => {
    expect(nickOf(prefix)).toBe(nick);
  });
});
