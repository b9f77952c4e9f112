/**
 * Nothing lost on a crash: the bot process is killed (SIGKILL) with five /say generations in
 * flight, started again on the same store, and delivers all five to their original replies
 * without a second POST /tts.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openKeyv } from '../../src/store/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import type { InteractionHandle } from '../fake-discord/index.ts';
import { api, submissionCount } from '../support/api-under-test.ts';
import { type ProcessWorld, startProcessWorld } from '../support/process-world.ts';

let world: ProcessWorld;
beforeAll(async () => {
  // Long enough that all five are still generating when the process dies.
  world = await startProcessWorld({ emulator: { generationMs: () => 8000 } });
});
afterAll(() => world?.close());

const generating = (handle: InteractionHandle) =>
  handle.waitFor((e) => e.kind === 'edit' && /Generating/.test(JSON.stringify(e.data)), 20_000);

test('SIGKILL with five /say in flight: after a restart all five reach their original replies, with five POST /tts in all', async () => {
  const first = await world.start();
  await world.configureKey(USER_ONE.apiKey);
  const handles = Array.from({ length: 5 }, (_, i) =>
    world.discord.slash({
      user: 'member',
      name: 'say',
      options: { text: `Request number ${i + 1} must survive a crash of the bot.`, output: 'file' },
    }),
  );
  await Promise.all(handles.map(generating));
  expect(submissionCount(world.emulator)).toBe(5);

  first.child.kill('SIGKILL');
  expect((await first.exited).signal).toBe('SIGKILL');
  expect(handles.every((handle) => handle.files().length === 0)).toBe(true);

  const second = await world.start();
  await second.waitForLog(/"count":5,"msg":"resuming pending speech"/);
  for (const handle of handles) {
    await handle.waitFor((e) => e.kind === 'edit' && e.original && e.files.length > 0, 30_000);
    const [file] = handle.files();
    const generationId = api
      .polled(world.emulator)
      .find((id) => file?.filename.includes(id.slice(-8)));
    expect(generationId, `no generation for ${file?.filename}`).toBeDefined();
    expect(file?.data.equals(world.emulator.audioOf(generationId ?? '') ?? Buffer.alloc(0))).toBe(
      true,
    );
    expect(handle.lastMessage()?.content).toContain('Request number');
  }
  expect(submissionCount(world.emulator)).toBe(5);
  // Every generation was delivered once, to a different reply.
  const names = handles.map((handle) => handle.files()[0]?.filename);
  expect(new Set(names).size).toBe(5);

  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
  const keyv = await openKeyv(`sqlite://${world.dataDir}/bot.sqlite`);
  expect(await keyv.get('pending:index')).toEqual([]);
  await keyv.disconnect();
}, 120_000);

test('SIGKILL with voice items queued: after a restart they are played once the bot is back in that channel', async () => {
  const first = await world.start();
  await world.configureKey(USER_ONE.apiKey);
  const voiceChannelId = world.discord.guild.voiceChannelId;
  world.discord.moveMember({ userId: 'member', channelId: voiceChannelId });
  const join = () => world.discord.slash({ user: 'member', name: 'join' });
  await join().waitFor(
    (e) => e.kind === 'edit' && /Joined|already/.test(JSON.stringify(e.data)),
    15_000,
  );
  const posts = () => submissionCount(world.emulator);
  const before = posts();
  // Two generate at once (the queue's lookahead); the third waits for its turn, never submitted.
  const handles = Array.from({ length: 3 }, (_, i) =>
    world.discord.slash({
      user: 'member',
      name: 'say',
      options: { text: `Voice item ${i + 1} must be played after the crash.`, output: 'voice' },
    }),
  );
  for (const handle of handles) {
    await handle.waitFor(
      (e) => e.kind === 'edit' && /position/.test(JSON.stringify(e.data)),
      20_000,
    );
  }
  while (posts() < before + 2) await new Promise((resolve) => setTimeout(resolve, 50));
  // The journal has the three, two of them with their generation ids.
  const store = await openKeyv(`sqlite://${world.dataDir}/bot.sqlite`);
  const submitted = async () => {
    const ids = ((await store.get('pending:index')) ?? []) as string[];
    const entries = await Promise.all(ids.map((id) => store.get(`pending:${id}`)));
    return entries.filter((entry) => (entry as { generationId?: string }).generationId).length;
  };
  while ((await submitted()) < 2) await new Promise((resolve) => setTimeout(resolve, 50));
  await store.disconnect();
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await world.start();
  await second.waitForLog(/"count":3,"msg":"resuming pending speech"/);
  await join().waitFor(
    (e) => e.kind === 'edit' && /Joined|already/.test(JSON.stringify(e.data)),
    15_000,
  );
  for (const handle of handles) {
    await handle.waitFor(
      (e) => e.kind === 'edit' && /Played after a restart/.test(JSON.stringify(e.data)),
      // Generous: three items are generated and played in real time, and a full suite on
      // two cores made the first take over 40 s (18 s alone).
      90_000,
    );
  }
  // The two submitted before the crash were polled, not submitted again; the third once.
  expect(posts()).toBe(before + 3);
  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
}, 240_000);
