import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { loadCommands } from '../../src/discord/index.ts';

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
});
