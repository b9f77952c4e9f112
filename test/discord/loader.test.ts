import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { definitionOf, loadCommands } from '../../src/discord/index.ts';

const FIXTURE = fileURLToPath(new URL('./loader-fixture/', import.meta.url));

describe('loadCommands', () => {
  test('a file is a command, and so is a folder through its index.ts (its parts are not)', async () => {
    const commands = await loadCommands(FIXTURE);
    expect([...commands.keys()]).toEqual(['alpha', 'beta']);
    expect(commands.get('beta')?.data.toJSON()).toEqual({ name: 'beta', description: 'a folder' });
  });

  test('finds every command in commands/, in name order', async () => {
    const commands = await loadCommands();
    expect([...commands.keys()]).toEqual([
      'config',
      'help',
      'join',
      'leave',
      'myvoice',
      'preview',
      'queue',
      'say',
      'skip',
      'stop',
      'usage',
      'voices',
    ]);
  });

  // What Discord receives (names, options, choices, localizations) only changes on purpose:
  // the registration hash is taken over this JSON, so any change re-registers every command.
  test('the registered definitions are what they were', async () => {
    const commands = await loadCommands();
    const definitions = [...commands.values()].map((command) => command.data.toJSON());
    expect(JSON.stringify(definitions, null, 1)).toMatchSnapshot();
  });

  // TTS_API_VERSION is process-wide: on v3 only what v3 can use is offered (it has no emotions),
  // in its own words (it bills money, it has no daily quota).
  test('on v3 the definitions leave out what v3 cannot use, and say what it has', async () => {
    const commands = await loadCommands();
    for (const command of commands.values()) {
      const v2 = definitionOf(command, 'v2');
      const v3 = definitionOf(command, 'v3');
      const names = (d: typeof v2) => (d.options ?? []).map((o) => o.name);
      if (command.data.name === 'say') {
        expect(names(v2)).toContain('emotion');
        expect(names(v3)).toEqual(names(v2).filter((name) => name !== 'emotion'));
      } else if (command.data.name === 'usage') {
        expect(v2.description).toContain('quota');
        expect(v3.description).not.toContain('quota');
        expect(v3.description).toContain('budget');
        const v2Words: Record<string, string | null | undefined> = v2.description_localizations ?? {};
        for (const [locale, text] of Object.entries(v3.description_localizations ?? {}))
          expect(text, locale).not.toBe(v2Words[locale]);
        expect(names(v3)).toEqual(names(v2));
      } else expect(v3).toEqual(v2);
    }
  });
});
