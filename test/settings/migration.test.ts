/**
 * Settings stored before `/config reader` was split read the same after: the fixture is a
 * record main stored (every setting changed, through main's own code), read back by today's
 * store, shown by the new sections with every value the old description had, and changed by
 * the new commands without the record's shape changing.
 */
import { readFile } from 'node:fs/promises';
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { english } from '../../src/i18n/index.ts';
import { changeReaderList, describeReader, readerSections } from '../../src/reader/config.ts';
import { KeyvSettingsStore } from '../../src/store/index.ts';

interface Fixture {
  readonly guildId: string;
  readonly key: string;
  readonly value: string;
  readonly read: unknown;
  readonly described: readonly string[];
}

const fixture = JSON.parse(
  await readFile(new URL('./fixtures/settings-stored-by-main.json', import.meta.url), 'utf8'),
) as Fixture;

/**
 * Reader settings added after the fixture was stored, at the defaults a stored record gets
 * (forwards are not read unless an admin turns them on; chatters pick only automatic voices).
 */
const ADDED_SINCE = { forwards: false, chatVoices: 'automatic' } as const;
const ADDED_LINES = ['**forwards:** off', '**chat-voices:** automatic'];
const ADDED_PATHS = Object.keys(ADDED_SINCE).map((key) => `reader.${key}`);

/** A store holding only main's record, as main wrote it. */
function storeOfMain() {
  const map = new Map<string, unknown>([[fixture.key, fixture.value]]);
  return { map, settings: new KeyvSettingsStore(new Keyv({ store: map })) };
}

/** Every key path of a JSON value (`reader.maxAgeMs`), for comparing shapes. */
function paths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([key, inner]) =>
    paths(inner, prefix === '' ? key : `${prefix}.${key}`),
  );
}

describe('settings stored by main', () => {
  test('read back the same', async () => {
    const { settings } = storeOfMain();
    const read = fixture.read as { reader: object };
    expect(await settings.guild(fixture.guildId)).toEqual({
      ...read,
      reader: { ...read.reader, ...ADDED_SINCE },
    });
  });

  test('are described with every line the old /config reader had, now grouped by command', async () => {
    const saved = await storeOfMain().settings.guild(fixture.guildId);
    const now = describeReader(english, saved.reader, saved.blockedWords.length).split('\n');
    expect([...now].sort()).toEqual([...fixture.described, ...ADDED_LINES].sort());
    const sections = readerSections(english, saved.reader, saved.blockedWords.length);
    expect(sections.pace).toContain('**max-age:** 90s');
    expect(sections.who).toContain('**silent:** read');
    expect(sections.lists).toContain('**Ignored members:** <@222222222222222222>');
  });

  test('keep their shape when changed through the new commands', async () => {
    const { map, settings } = storeOfMain();
    await settings.updateGuild(fixture.guildId, (stored) => ({
      ...stored,
      reader: changeReaderList(stored.reader, 'ignoredMembers', 'add', '999999999999999999'),
    }));
    const before = JSON.parse(fixture.value) as { value: unknown };
    const after = JSON.parse(String(map.get(fixture.key))) as {
      value: { reader: { ignoredMembers: string[] } };
    };
    expect(paths(after.value).sort()).toEqual([...paths(before.value), ...ADDED_PATHS].sort());
    expect(after.value.reader.ignoredMembers).toEqual(['222222222222222222', '999999999999999999']);
  });
});
