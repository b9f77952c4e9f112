/**
 * Nothing given up too early: a /say generating at a SIGTERM, resumed by a start that came
 * later than TTS_POLL_DEADLINE, is polled and delivered to its reply (its audio is ready and
 * its quota spent), never answered "taking too long" without a poll.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openKeyv } from '../../src/store/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { api, submissionCount } from '../support/api-under-test.ts';
import { type ProcessWorld, startProcessWorld } from '../support/process-world.ts';

let world: ProcessWorld;
beforeAll(async () => {
  // Long enough to be generating when the signal comes, short enough to be done at the restart.
  world = await startProcessWorld({ emulator: { generationMs: () => 4000 } });
});
afterAll(() => world?.close());

const statusPolls = () => world.emulator.requests.filter((r) => r.endpoint === api.status).length;

test('SIGTERM mid-generation, restarted after longer than TTS_POLL_DEADLINE: the reply gets the audio, with one POST /tts', async () => {
  const first = await world.start();
  await world.configureKey(USER_ONE.apiKey);
  const handle = world.discord.slash({
    user: 'member',
    name: 'say',
    options: { text: 'Generated before the restart, delivered after it.', output: 'file' },
  });
  await handle.waitFor(
    (e) => e.kind === 'edit' && /Generating/.test(JSON.stringify(e.data)),
    20_000,
  );
  first.child.kill('SIGTERM');
  expect(await first.exited).toEqual({ code: 0, signal: null });
  expect(handle.files()).toHaveLength(0);

  // Down for longer than the second run's deadline (1 s), until the task is done.
  const keyv = await openKeyv(`sqlite://${world.dataDir}/bot.sqlite`);
  const [pendingId] = ((await keyv.get('pending:index')) ?? []) as string[];
  const entry = (await keyv.get(`pending:${pendingId}`)) as { generationId?: string } | undefined;
  await keyv.disconnect();
  const generationId = entry?.generationId ?? '';
  expect(generationId.startsWith(api.idPrefix), generationId).toBe(true);
  const generation = () => api.generation(world.emulator, generationId);
  const downFor = () => Date.now() - (generation()?.createdAt ?? Date.now());
  while (generation()?.completed !== true || downFor() < 2000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const pollsBefore = statusPolls();
  const second = await world.start({ TTS_POLL_DEADLINE: '1s' });
  await second.waitForLog(/"count":1,"msg":"resuming pending speech"/);
  await handle.waitFor((e) => e.kind === 'edit' && e.original && e.files.length > 0, 30_000);
  const [file] = handle.files();
  expect(file?.data.equals(world.emulator.audioOf(generationId) ?? Buffer.alloc(0))).toBe(true);
  expect(handle.lastMessage()?.content).not.toMatch(/too long/);
  expect(statusPolls()).toBeGreaterThan(pollsBefore);
  expect(submissionCount(world.emulator)).toBe(1);

  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
}, 90_000);
