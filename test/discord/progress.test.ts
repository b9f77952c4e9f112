import { expect, test } from 'vitest';
import { ThrottledReply } from '../../src/discord/index.ts';
import { FakeClock } from '../support/fake-clock.ts';

function recorder(clock: FakeClock, fail: (payload: string) => boolean = () => false) {
  const edits: { at: number; payload: string }[] = [];
  const errors: unknown[] = [];
  const reply = new ThrottledReply<string>(
    async (payload) => {
      if (fail(payload)) throw new Error(`edit ${payload} failed`);
      edits.push({ at: clock.now(), payload });
    },
    clock,
    { intervalMs: 2500, onError: (error) => errors.push(error) },
  );
  return { reply, edits, errors };
}

test('edits at most once per interval, latest wins, finish lands last', async () => {
  const clock = new FakeClock(0);
  const { reply, edits } = recorder(clock);
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
});

test('a failed intermediate edit is reported, not thrown, and later edits still land', async () => {
  const clock = new FakeClock(0);
  const { reply, edits, errors } = recorder(clock, (payload) => payload === 'a');
  reply.update('a');
  await clock.advance(0);
  reply.update('b');
  await clock.advance(3000);
  await reply.finish('done');
  expect(edits.map((e) => e.payload)).toEqual(['b', 'done']);
  expect(String(errors[0])).toContain('edit a failed');
});

test('cancel drops a scheduled edit so another writer’s message is not overwritten', async () => {
  const clock = new FakeClock(0);
  const { reply, edits } = recorder(clock);
  reply.update('progress 1');
  await clock.advance(0);
  reply.update('progress 2');
  await reply.cancel();
  await clock.advance(10_000);
  expect(edits.map((e) => e.payload)).toEqual(['progress 1']);
});

test('finish propagates its own failure to the caller', async () => {
  const clock = new FakeClock(0);
  const { reply } = recorder(clock, (payload) => payload === 'done');
  await expect(reply.finish('done')).rejects.toThrow('edit done failed');
});
