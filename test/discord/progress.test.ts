import { expect, test } from 'vitest';
import { ThrottledReply } from '../../src/discord/index.ts';
import { FakeClock } from '../support/fake-clock.ts';

test('edits at most once per interval, latest wins, finish lands last', async () => {
  const clock = new FakeClock(0);
  const edits: { at: number; payload: string }[] = [];
  const reply = new ThrottledReply<string>(
    async (payload) => {
      edits.push({ at: clock.now(), payload });
    },
    clock,
    2500,
  );
  reply.update('a');
  await clock.advance(0);
  reply.update('b');
  reply.update('c');
  await clock.advance(1000);
  reply.update('d');
  await clock.advance(2000);
  reply.update('e');
  await reply.finish('done');
  reply.update('late');
  await clock.advance(10_000);
  expect(edits.map((e) => e.payload)).toEqual(['a', 'd', 'done']);
  expect(edits[1]?.at).toBe(2500);
  const gaps = edits.slice(0, 2).map((e, i) => e.at - (edits[i - 1]?.at ?? -Infinity));
  expect(gaps.every((gap) => gap >= 2500)).toBe(true);
});
