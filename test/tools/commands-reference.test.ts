import { readFile } from 'node:fs/promises';
import type { APIApplicationCommandOption } from 'discord.js';
import { describe, expect, test } from 'vitest';
import { commandDefinitions, loadCommands } from '../../src/discord/index.ts';
import { commandsReference, REGENERATE } from '../../tools/commands-reference/render.ts';

const REFERENCE = new URL('../../docs/reference/commands.md', import.meta.url);
const definitions = commandDefinitions(await loadCommands());

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
      onDisk === commandsReference(definitions),
      `docs/reference/commands.md differs from the registered commands: run \`${REGENERATE}\``,
    ).toBe(true);
  });

  test('names every command, subcommand and option with its English description', () => {
    const text = commandsReference(definitions);
    for (const command of definitions) {
      expect(text).toContain(`## /${command.name}\n\n${command.description}\n`);
      for (const { path, option } of walk(command.options ?? [], `/${command.name}`)) {
        const name = option.name;
        const listed =
          text.includes(`# ${path}\n\n${option.description}`) || text.includes(`| \`${name}\` |`);
        expect(listed, path).toBe(true);
        expect(text, path).toContain(option.description);
      }
    }
  });

  test('the same definitions give the same file, whatever order they come in', () => {
    const reversed = [...definitions].reverse();
    expect(commandsReference(reversed)).toBe(commandsReference(definitions));
  });
});
