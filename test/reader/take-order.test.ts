import fc from 'fast-check';
import { expect, test } from 'vitest';
import { TakeOrder } from '../../src/reader/take-order.ts';
import { FakeClock, settle } from '../support/fake-clock.ts';

test('a later turn whose speech ahead fits waits for the earlier turn to take first', async () => {
  const clock = new FakeClock(0);
  const takes = new TakeOrder(clock);
  const order: string[] = [];
  const earlier = takes.take(
    new AbortController().signal,
    () => 3000 - clock.now(),
    () => order.push(`earlier at ${clock.now()}`),
  );
  const later = takes.take(
    new AbortController().signal,
    () => 0,
    () => order.push(`later at ${clock.now()}`),
  );
  await settle();
  expect(order).toEqual([]);
  await clock.advance(3000);
  await Promise.all([earlier, later]);
  expect(order).toEqual(['earlier at 3000', 'later at 3000']);
});

test('the delay is asked again after each wait, and a take comes once it is 0', async () => {
  const clock = new FakeClock(0);
  const takes = new TakeOrder(clock);
  // The speech ahead grows once while waiting (a turn before it took more than expected).
  const delays = [1000, 500, 0];
  let taken: number | undefined;
  const done = takes.take(
    new AbortController().signal,
    () => delays.shift() ?? 0,
    () => {
      taken = clock.now();
    },
  );
  await clock.advance(1000);
  expect(taken).toBeUndefined();
  await clock.advance(500);
  await done;
  expect(taken).toBe(1500);
});

test('a delay that never falls stops waiting after eight looks: the chat is never stuck', async () => {
  const clock = new FakeClock(0);
  const takes = new TakeOrder(clock);
  let taken = false;
  const done = takes.take(
    new AbortController().signal,
    () => 1000,
    () => {
      taken = true;
    },
  );
  await clock.advance(7999);
  expect(taken).toBe(false);
  await clock.advance(1);
  await done;
  expect(taken).toBe(true);
});

test('a wake (a turn ended sooner than forecast) makes the waiting take look again at once', async () => {
  const clock = new FakeClock(0);
  const takes = new TakeOrder(clock);
  let ahead = 5000;
  let taken: number | undefined;
  const done = takes.take(
    new AbortController().signal,
    () => ahead,
    () => {
      taken = clock.now();
    },
  );
  await clock.advance(1000);
  expect(taken).toBeUndefined();
  ahead = 0;
  takes.wake();
  await done;
  expect(taken).toBe(1000);
  // A wake with no take waiting changes nothing.
  takes.wake();
});

test('an earlier turn aborted while it waits lets the later one take, and never takes itself', async () => {
  const clock = new FakeClock(0);
  const takes = new TakeOrder(clock);
  const aborted = new AbortController();
  const order: string[] = [];
  const earlier = takes.take(
    aborted.signal,
    () => 5000,
    () => order.push('earlier'),
  );
  const later = takes.take(
    new AbortController().signal,
    () => 0,
    () => order.push('later'),
  );
  aborted.abort(new Error('skipped'));
  await expect(earlier).rejects.toThrow('skipped');
  await later;
  expect(order).toEqual(['later']);
});

test('a later turn aborted while an earlier one waits rejects at once, and the earlier one still takes', async () => {
  const clock = new FakeClock(0);
  const takes = new TakeOrder(clock);
  const aborted = new AbortController();
  const order: string[] = [];
  const earlier = takes.take(
    new AbortController().signal,
    () => 2000 - clock.now(),
    () => order.push('earlier'),
  );
  const later = takes.take(
    aborted.signal,
    () => 0,
    () => order.push('later'),
  );
  aborted.abort(new Error('cancelled'));
  await expect(later).rejects.toThrow('cancelled');
  await clock.advance(2000);
  await earlier;
  expect(order).toEqual(['earlier']);
});

test('property: takes happen in the order asked, whatever each one waits', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 8 }),
      async (waits) => {
        const clock = new FakeClock(0);
        const takes = new TakeOrder(clock);
        const order: number[] = [];
        const done = waits.map((wait, i) =>
          takes.take(
            new AbortController().signal,
            () => wait - clock.now(),
            () => order.push(i),
          ),
        );
        for (let i = 0; i < 12 && order.length < waits.length; i++) await clock.advance(1000);
        await Promise.all(done);
        expect(order).toEqual(waits.map((_, i) => i));
      },
    ),
  );
});
