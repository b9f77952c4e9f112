/** Writes `docs/reference/commands.md` from the command definitions the bot registers (`npm run docs:commands`). */
import { mkdir, writeFile } from 'node:fs/promises';
import { commandDefinitions, loadCommands } from '../../src/discord/index.ts';
import { commandsReference, perVersion } from './render.ts';

const out = new URL('../../docs/reference/commands.md', import.meta.url);
await mkdir(new URL('.', out), { recursive: true });
const commands = await loadCommands();
await writeFile(out, commandsReference(perVersion((api) => commandDefinitions(commands, api))));
console.log(`wrote ${out.pathname}`);
