import { describe, expect, test } from 'vitest';
import { english, translatorFor } from '../../src/i18n/index.ts';
import {
  addDictionaryEntry,
  addReadChannel,
  applyReaderOptions,
  describeReader,
  formatDuration,
  parseDuration,
  removeReadChannel,
  toggleNotes,
} from '../../src/reader/config.ts';
import { errorText, UserError } from '../../src/refusal/index.ts';
import { defaultReaderSettings, READER_BOUNDS } from '../../src/store/index.ts';

const defaults = defaultReaderSettings();

describe('durations', () => {
  test.each([
    ['2m', 120_000],
    ['90s', 90_000],
    ['1h', 3_600_000],
    [' 500ms ', 500],
    ['2 M', 120_000],
    ['soon', undefined],
    ['1m30s', undefined],
    ['-5s', undefined],
  ])('%j → %j', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test.each([
    [120_000, '2m'],
    [90_000, '90s'],
    [3_600_000, '1h'],
    [1500, '1500ms'],
  ])('%i ms is written %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('applyReaderOptions', () => {
  test('options left out keep their values; given ones change', () => {
    const next = applyReaderOptions(
      { ...defaults, saidPrefix: false },
      { readBots: 'webhooks', maxAge: '90s', maxLength: 120, emoji: 'drop', spoilers: 'read' },
    );
    expect(next).toEqual({
      ...defaults,
      saidPrefix: false,
      readBots: 'webhooks',
      maxAgeMs: 90_000,
      maxLength: 120,
      emoji: 'drop',
      spoilers: 'read',
    });
    expect(applyReaderOptions(next, {})).toEqual(next);
  });

  test('forwards (off by default) and chat-voices (automatic by default) are set like the others', () => {
    expect(defaults).toMatchObject({ forwards: false, chatVoices: 'automatic' });
    expect(applyReaderOptions(defaults, { forwards: true, chatVoices: 'any' })).toEqual({
      ...defaults,
      forwards: true,
      chatVoices: 'any',
    });
  });

  test.each([
    ['! ? $', ['!', '?', '$']],
    ['none', []],
    ['!  !', ['!']],
  ])('ignore-prefixes %j → %j', (text, prefixes) => {
    expect(applyReaderOptions(defaults, { ignorePrefixes: text }).ignorePrefixes).toEqual(prefixes);
  });

  test('ignore-member and ignore-role toggle, and say so', () => {
    const once = applyReaderOptions(defaults, { ignoreMember: '7', ignoreRole: '8' });
    expect(once.ignoredMembers).toEqual(['7']);
    expect(once.ignoredRoles).toEqual(['8']);
    expect(toggleNotes(english, defaults, { ignoreMember: '7' })).toEqual(['<@7> is now ignored.']);
    const twice = applyReaderOptions(once, { ignoreMember: '7', ignoreRole: '8' });
    expect(twice.ignoredMembers).toEqual([]);
    expect(twice.ignoredRoles).toEqual([]);
    expect(toggleNotes(english, once, { ignoreRole: '8' })).toEqual([
      'Members with <@&8> are read again.',
    ]);
    expect(toggleNotes(translatorFor('de'), defaults, { ignoreMember: '7' })).toEqual([
      '<@7> wird jetzt ignoriert.',
    ]);
  });

  test('a refusal carries its id and bounds, so it reads in the member’s language', () => {
    let caught: unknown;
    try {
      applyReaderOptions(defaults, { maxAge: 'soon' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UserError);
    const { id, context } = caught as UserError<'reader_max_age'>;
    expect(id).toBe('reader_max_age');
    expect(errorText(translatorFor('fr').t, id, context)).toBe(
      'max-age doit être une durée comme `90s`, `2m` ou `1h`, de 5s à 1h.',
    );
  });

  test.each([
    [{ maxAge: 'soon' }, 'max-age must be a duration'],
    [{ maxAge: '1s' }, 'from 5s to 1h'],
    [{ maxAge: '2h' }, 'from 5s to 1h'],
    [{ maxLength: 10 }, 'max-length must be'],
    [{ maxLength: 5000 }, 'max-length must be'],
    [{ ignorePrefixes: 'x'.repeat(21) }, 'prefixes of up to 20'],
  ])('%j is refused: %s', (input, message) => {
    expect(() => applyReaderOptions(defaults, input)).toThrow(message);
  });
});

describe('read channels and the dictionary', () => {
  test('channels are added once, removed, and capped', () => {
    const one = addReadChannel(defaults, '1');
    expect(addReadChannel(one, '1').channels).toEqual(['1']);
    expect(removeReadChannel(one, '1').channels).toEqual([]);
    const full = {
      ...defaults,
      channels: Array.from({ length: READER_BOUNDS.channels }, (_, i) => String(i)),
    };
    expect(() => addReadChannel(full, '999')).toThrow('At most');
  });

  test('dictionary entries are checked', () => {
    expect(addDictionaryEntry([], ' gg ', ' good game ')).toEqual([
      { word: 'gg', replacement: 'good game' },
    ]);
    expect(() => addDictionaryEntry([], 'x'.repeat(101), 'y')).toThrow('A word has');
  });

  test('the description names every option', () => {
    const text = describeReader(english, { ...defaults, channels: ['5'], ignoredMembers: ['6'] });
    for (const part of [
      '<#5>',
      '<@6>',
      'said-prefix',
      'read-bots',
      'ignore-prefixes',
      'voice-members-only',
      'auto-join',
      'max-length',
      'max-age:** 1m',
      'emoji',
      'spoilers',
    ])
      expect(text).toContain(part);
  });

  test('with a Twitch channel read, it says which options pass Twitch chatters by', () => {
    const note = english.t('reader.show_twitch_chatters');
    for (const option of ['ignore-member', 'voice-members-only', 'auto-join'])
      expect(note).toContain(`\`${option}\``);
    expect(describeReader(english, defaults)).not.toContain(note);
    const twitch = describeReader(english, { ...defaults, twitchChannels: ['ronni_tv'] });
    expect(twitch.split('\n')).toContain(note);
    expect(describeReader(translatorFor('de'), { ...defaults, twitchChannels: ['a'] })).toContain(
      'Twitch-Chatter sind keine Discord-Mitglieder',
    );
  });

  test('the description is in the member’s language; option names and values stay as typed', () => {
    const text = describeReader(translatorFor('ja'), defaults);
    expect(text).toContain('**読み上げるチャンネル:** なし');
    expect(text).toContain('**said-prefix:** オン');
    expect(text).toContain('**max-length:** 300 文字');
    expect(text).toContain('**emoji:** names');
    expect(text).not.toMatch(/:\*\* (on|off)$|characters|Ignored/m);
  });
});
