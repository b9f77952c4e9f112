/**
 * Nothing lost and nothing twice across shards: two shard processes on one Redis, 20 file /say in
 * flight on both, the shard manager killed outright (SIGKILL: the shards stop on losing it, and
 * nothing settles) and started again. Every request is delivered once, to its own reply, by the
 * shard that serves its guild, with 20 POST /tts in all.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisJournalIndex } from '../../src/durable/index.ts';
import { openKeyv, openRedis } from '../../src/store/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import type { InteractionHandle } from '../fake-discord/index.ts';
import { api, submissionCount } from '../support/api-under-test.ts';
import { type ShardedWorld, startShardedWorld } from '../support/sharded-world.ts';

/**
 * Long enough that every generation is still running when the manager dies (the kill comes about
 * 3 s after the first submission; the test checks it came before the first could complete), short
 * enough not to idle once the shards are back (their restart takes about 10 s).
 */
const GENERATION_MS = 15_000;

let world: ShardedWorld;
beforeAll(async () => {
  // Rate windows a tenth of real on both sides (a minute lasts 6 s): the 20 generations' polls
  // after the restart do not wait on v2's 60 status calls a minute, which is not what this is about.
  world = await startShardedWorld({
    emulator: { generationMs: () => GENERATION_MS, timeScale: 0.1 },
  });
}, 60_000);
afterAll(() => world?.close(), 60_000);

/** The journal's ids, read as another process would. */
async function journalIds(): Promise<string[]> {
  const [keyv, redis] = await Promise.all([
    openKeyv(world.redis.url),
    openRedis(world.redis.url, () => undefined),
  ]);
  try {
    return await new RedisJournalIndex(redis, keyv).ids();
  } finally {
    await Promise.all([keyv.disconnect(), redis.close()]);
  }
}

/** `count` of each "resuming pending speech" line, by shard, in a manager's output. */
function resumedCounts(output: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of output.split('\n')) {
    if (!line.includes('"msg":"resuming pending speech"')) continue;
    const { shard, count } = JSON.parse(line) as { shard: string; count: number };
    counts[shard] = (counts[shard] ?? 0) + count;
  }
  return counts;
}

const delivered = (handle: InteractionHandle) => handle.files().length;

test('SIGKILL of the manager with 20 /say generating on two shards: after a restart each is delivered exactly once, 20 POST /tts in all', async () => {
  const [zero, one] = world.guilds;
  const first = await world.startManager({ TTS_LIMITS: api.tenthLimits });
  for (const guild of world.guilds) await world.configureKey(guild, USER_ONE.apiKey);
  world.emulator.reset();

  const handles = Array.from({ length: 20 }, (_, i) =>
    world.discord.slash({
      user: 'member',
      name: 'say',
      channelId: (i % 2 === 0 ? zero : one).textChannelId,
      options: {
        text: `Request ${i + 1} of twenty must survive the manager's death.`,
        output: 'file',
      },
    }),
  );
  // "Generating" is shown once the journal holds the accepted request.
  await Promise.all(
    handles.map((handle) =>
      handle.waitFor((e) => e.kind === 'edit' && /Generating/.test(JSON.stringify(e.data)), 60_000),
    ),
  );
  expect(submissionCount(world.emulator)).toBe(20);

  // Every generation was still running when the manager died: none could have completed yet.
  const firstSubmitted = Math.min(...api.submissions(world.emulator).map((entry) => entry.at));
  first.process.child.kill('SIGKILL');
  expect(Date.now() - firstSubmitted).toBeLessThan(GENERATION_MS);
  expect(await first.process.exited).toBeNull();
  // The shards stop by themselves once their manager is gone.
  await expect.poll(() => world.botProcesses(), { timeout: 30_000 }).toEqual([]);
  expect(handles.map(delivered)).toEqual(Array(20).fill(0));

  const second = await world.startManager({ TTS_LIMITS: api.tenthLimits });
  await expect
    .poll(() => handles.filter((handle) => delivered(handle) > 0).length, {
      timeout: 240_000,
      interval: 500,
    })
    .toBe(20);
  // Each delivery removes its entry after sending: once the journal is empty, nothing is left to send.
  await expect.poll(journalIds, { timeout: 60_000, interval: 500 }).toEqual([]);
  expect(await second.process.stop()).toBe(0);
  await expect.poll(() => world.botProcesses(), { timeout: 30_000 }).toEqual([]);

  // Every shard resumed its own guild's ten, and nothing else.
  expect(resumedCounts(second.process.output())).toEqual({ '0': 10, '1': 10 });
  expect(handles.map(delivered)).toEqual(Array(20).fill(1));
  for (const guild of world.guilds) {
    const posted = world.discord.channelMessages(guild.textChannelId);
    expect(posted.filter((message) => (message.attachments ?? []).length > 0)).toEqual([]);
  }
  const files = handles.map((handle) => handle.files()[0]?.filename);
  expect(new Set(files).size).toBe(20);
  expect(submissionCount(world.emulator)).toBe(20);
}, 420_000);
