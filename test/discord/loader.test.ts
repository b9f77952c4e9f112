import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { definitionOf, loadCommands } from '../../src/discord/index.ts';

const FIXTURE = fileURLToPath(new URL('./loader-fixture/', import.meta.url));

type Definition = ReturnType<typeof definitionOf>;
type Option = NonNullable<Definition['options']>[number];

/** Every option of a definition, as `group sub option` paths. */
function optionPaths(definition: Definition): string[] {
  const walk = (options: readonly Option[], prefix: string): string[] =>
    options.flatMap((o) => {
      const path = prefix === '' ? o.name : `${prefix} ${o.name}`;
      return 'options' in o && o.options !== undefined
        ? [path, ...walk(o.options as readonly Option[], path)]
        : [path];
    });
  return walk(definition.options ?? [], '');
}

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

  // TTS_API_VERSION is process-wide: each version is offered only what it can use (v3 has no
  // emotions; v2 bills no money and takes no speech language), in its own words (v3 has no
  // daily quota); `data` has every option of either, for references.
  test('each API version is offered what it can use, and nothing else differs', async () => {
    const commands = await loadCommands();
    const away: Record<string, Record<'v2' | 'v3', string[]>> = {
      say: { v2: [], v3: ['emotion'] },
      config: { v2: ['defaults language', 'limits daily-budget'], v3: [] },
    };
    for (const command of commands.values()) {
      const all = optionPaths(command.data.toJSON());
      for (const api of ['v2', 'v3'] as const) {
        const offered = optionPaths(definitionOf(command, api));
        const missing = away[command.data.name]?.[api] ?? [];
        expect(offered, `${command.data.name} on ${api}`).toEqual(
          all.filter((path) => !missing.includes(path)),
        );
      }
      const [v2, v3] = [definitionOf(command, 'v2'), definitionOf(command, 'v3')];
      if (command.data.name === 'usage') {
        expect(v2.description).toContain('quota');
        expect(v3.description).not.toContain('quota');
        expect(v3.description).toContain('budget');
        const v2Words: Record<string, string | null | undefined> =
          v2.description_localizations ?? {};
        for (const [locale, text] of Object.entries(v3.description_localizations ?? {}))
          expect(text, locale).not.toBe(v2Words[locale]);
      } else expect(v3.description).toBe(v2.description);
    }
  });
});
