import { describe, expect, test } from 'vitest';
import {
  movedNote,
  newHomeOf,
  READER_OPTIONS,
  readerOptionsAt,
} from '../../src/discord/reader-options.ts';
import { english } from '../../src/i18n/index.ts';
import { changeReaderList, type ReaderList } from '../../src/reader/config.ts';
import { UserError } from '../../src/refusal/index.ts';
import { defaultReaderSettings, READER_BOUNDS } from '../../src/store/index.ts';

describe('the reader options', () => {
  test('the old /config reader keeps all 19, in their order, then forwards and chat-voices', () => {
    expect(READER_OPTIONS.map((o) => o.name)).toEqual([
      'said-prefix',
      'read-bots',
      'ignore-prefixes',
      'ignore-member',
      'ignore-role',
      'voice-members-only',
      'auto-join',
      'voice-chat',
      'silent',
      'max-length',
      'max-age',
      'emoji',
      'spoilers',
      'blocked',
      'priority-role',
      'max-speed',
      'new-member-delay',
      'twitch-badges',
      'voices',
      'forwards',
      'chat-voices',
    ]);
  });

  test('each lives in one short subcommand now', () => {
    for (const home of ['who', 'sound', 'pace'] as const)
      expect(readerOptionsAt(home).length, home).toBeLessThanOrEqual(7);
    const homes = READER_OPTIONS.map((o) => newHomeOf(o));
    expect(new Set(homes).size).toBe(READER_OPTIONS.length);
  });

  test.each([
    ['max-age', '/config read pace max-age'],
    ['silent', '/config read who silent'],
    ['emoji', '/config read sound emoji'],
    ['ignore-member', '/config read ignore-member action:add|remove'],
    ['twitch-badges', '/config twitch read badges'],
    ['forwards', '/config read who forwards'],
    ['chat-voices', '/config twitch read chat-voices'],
  ])('%s went to %s', (name, home) => {
    const option = READER_OPTIONS.find((o) => o.name === name);
    expect(option && newHomeOf(option)).toBe(home);
  });

  test('the old command says where the options given went, or where all did', () => {
    const given = READER_OPTIONS.filter((o) => o.name === 'max-age' || o.name === 'voices');
    expect(movedNote(english, given)).toBe(
      'These options now live elsewhere: `max-age` → `/config read pace max-age`, `voices` → `/config read sound voices`. `/config reader` goes away in a later version.',
    );
    expect(movedNote(english, [])).toContain('`/config show` shows every setting');
  });
});

describe('changeReaderList', () => {
  const lists: ReaderList[] = ['ignoredMembers', 'ignoredRoles', 'priorityRoles'];

  test.each(lists)('%s: added twice stays added once; removed twice stays removed', (list) => {
    const once = changeReaderList(defaultReaderSettings(), list, 'add', '1');
    const twice = changeReaderList(once, list, 'add', '1');
    expect(twice[list]).toEqual(['1']);
    const removed = changeReaderList(twice, list, 'remove', '1');
    expect(changeReaderList(removed, list, 'remove', '1')[list]).toEqual([]);
  });

  test.each([
    ['ignoredMembers', READER_BOUNDS.ignored, 'reader_ignored_members'],
    ['ignoredRoles', READER_BOUNDS.ignored, 'reader_ignored_roles'],
    ['priorityRoles', READER_BOUNDS.priorityRoles, 'reader_priority_roles'],
  ] as const)('%s is capped at %i (%s); one already there is no new entry', (list, max, id) => {
    const full = {
      ...defaultReaderSettings(),
      [list]: Array.from({ length: max }, (_, n) => `${n}`),
    };
    expect(() => changeReaderList(full, list, 'add', 'new')).toThrow(
      expect.objectContaining({ id }),
    );
    expect(() => changeReaderList(full, list, 'add', 'new')).toThrow(UserError);
    expect(changeReaderList(full, list, 'add', '0')).toBe(full);
  });
});
