/** How a refusal is logged: one line by its id at the default level, its stack only at debug. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot();
});
afterAll(async () => {
  await t?.stop();
});

const INFO = 30;
const DEBUG = 20;

test('a refusal is one info line naming its id and command, with no stack; the stack is at debug', async () => {
  // No key is set yet, so /say is refused with what to do: an expected failure, not an incident.
  const handle = t.discord.slash({
    user: 'member',
    name: 'say',
    options: { text: 'Hello, this is long enough to say.' },
  });
  await handle.waitFor((event) => event.kind === 'followUp');
  const records = t.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => String(record.msg).startsWith('user-facing failure'));
  const info = records.filter((record) => record.level === INFO);
  expect(info).toHaveLength(1);
  expect(info[0]).toMatchObject({ refusal: 'no_api_key_member', command: 'say' });
  expect(JSON.stringify(info[0])).not.toMatch(/stack|"err"/);
  const debug = records.filter((record) => record.level === DEBUG);
  expect(debug).toHaveLength(1);
  expect(JSON.stringify(debug[0])).toContain('stack');
});
