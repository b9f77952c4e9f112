/** Writes `docs/reference/commands.md` from the command definitions the bot registers (`npm run docs:commands`). */
import { mkdir, writeFile } from 'node:fs/promises';
import { commandDefinitions, loadCommands } from '../../src/discord/index.ts';
import { commandsReference } from './render.ts';

const out = new URL('../../docs/reference/commands.md', import.meta.url);
await mkdir(new URL('.', out), { recursive: true });
await writeFile(out, commandsReference(commandDefinitions(await loadCommands())));
console.log(`wrote ${out.pathname}`);
