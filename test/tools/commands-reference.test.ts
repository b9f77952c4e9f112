import { readFile } from 'node:fs/promises';
import type { APIApplicationCommandOption } from 'discord.js';
import { describe, expect, test } from 'vitest';
import { commandDefinitions, loadCommands } from '../../src/discord/index.ts';
import {
  commandsReference,
  type DefinitionsByApi,
  perVersion,
  REGENERATE,
  VERSIONS,
} from '../../tools/commands-reference/render.ts';

const REFERENCE = new URL('../../docs/reference/commands.md', import.meta.url);
const commands = await loadCommands();
const byApi = perVersion((api) => commandDefinitions(commands, api));

/** Every subcommand group, subcommand and option under `options`, with its path. */
function walk(
  options: readonly APIApplicationCommandOption[],
  path: string,
): Array<{ path: string; option: APIApplicationCommandOption }> {
  return options.flatMap((option) => [
    { path: `${path} ${option.name}`, option },
    ...('options' in option && option.options !== undefined
      ? walk(option.options as APIApplicationCommandOption[], `${path} ${option.name}`)
      : []),
  ]);
}

describe('docs/reference/commands.md', () => {
  test(`is what the bot registers (when this fails, run \`${REGENERATE}\` and commit the file)`, async () => {
    const onDisk = await readFile(REFERENCE, 'utf8').catch(() => '');
    expect(
      onDisk === commandsReference(byApi),
      `docs/reference/commands.md differs from the registered commands: run \`${REGENERATE}\``,
    ).toBe(true);
  });

  test.each(VERSIONS)(
    'names every command, subcommand and option registered on %s, with its English description',
    (api) => {
      const text = commandsReference(byApi);
      for (const command of byApi[api]) {
        expect(text).toContain(`## /${command.name}\n`);
        expect(text).toContain(command.description);
        for (const { path, option } of walk(command.options ?? [], `/${command.name}`)) {
          const name = option.name;
          const listed =
            text.includes(`# ${path}\n\n${option.description}`) || text.includes(`| \`${name}\` |`);
          expect(listed, path).toBe(true);
          expect(text, path).toContain(option.description);
        }
      }
    },
  );

  test('the same definitions give the same file, whatever order the commands come in', () => {
    const reversed = perVersion((api) => [...byApi[api]].reverse());
    expect(commandsReference(reversed)).toBe(commandsReference(byApi));
  });

  test('what one API version lacks or words differently is marked with its version', () => {
    const say = (options: object[]) => ({ name: 'say', description: 'Say', options });
    const text = (description: string) => ({ type: 3, name: 'text', description });
    const extra = { type: 3, name: 'emotion', description: 'Emotion' };
    const reference = commandsReference({
      v2: [say([text('What to say')])],
      v3: [say([text('What to say, in any language'), extra])],
    } as unknown as DefinitionsByApi);
    expect(reference).toContain('| `text` | text | no | *On the v2 API:* What to say |');
    expect(reference).toContain(
      '| `text` | text | no | *On the v3 API:* What to say, in any language |',
    );
    expect(reference).toContain('| `emotion` | text | no | *Only on the v3 API:* Emotion |');
  });
});
