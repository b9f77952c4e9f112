import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Command } from './command.ts';

const COMMANDS_DIR = fileURLToPath(new URL('../../commands/', import.meta.url));

/**
 * Loads every command in `commands/` and indexes it by name: a file is one command (default
 * export), and so is a folder, through its `index.ts`; the folder's other files are its parts.
 */
export async function loadCommands(dir = COMMANDS_DIR): Promise<Map<string, Command>> {
  const files = (await readdir(dir, { withFileTypes: true }))
    .flatMap((entry) => {
      if (entry.isDirectory()) return [`${entry.name}/index.ts`];
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [entry.name] : [];
    })
    .sort();
  const commands = new Map<string, Command>();
  for (const file of files) {
    const module = (await import(pathToFileURL(`${dir}/${file}`).href)) as { default?: Command };
    const command = module.default;
    if (command === undefined) throw new Error(`commands/${file} has no default export`);
    if (commands.has(command.data.name))
      throw new Error(`two commands are named ${command.data.name}`);
    commands.set(command.data.name, command);
  }
  return commands;
}
