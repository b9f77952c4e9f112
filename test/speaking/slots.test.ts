import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Slots } from '../../src/speaking/index.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Slots', () => {
  test('the first ones go at once; the rest wait in arrival order (one each), told their place', async () => {
    const slots = new Slots(2);
    const places = new Map<string, number[]>();
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      void slots
        .acquire('g', name, (place) => places.set(name, [...(places.get(name) ?? []), place]))
        .then((release) => {
          started.push(name);
          releases.set(name, release);
        });
    }
    await tick();
    expect(started).toEqual(['a', 'b']);
    expect(Object.fromEntries(places)).toEqual({ c: [1], d: [2], e: [3] });
    releases.get('b')?.();
    releases.get('b')?.(); // twice: still one slot
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(Object.fromEntries(places)).toEqual({ c: [1], d: [2, 1], e: [3, 2] });
    expect([slots.active('g'), slots.waiting('g')]).toEqual([2, 2]);
    // Another server has its own slots.
    await slots.acquire('other', 'a', () => undefined);
    expect(slots.active('other')).toBe(1);
  });

  test('leaving the line by abort moves those behind up and takes no slot', async () => {
    const slots = new Slots(1);
    const release = await slots.acquire('g', 'a', () => undefined);
    const gone = new AbortController();
    const places: number[] = [];
    const first = slots.acquire('g', 'b', () => undefined, gone.signal);
    const second = slots.acquire('g', 'c', (place) => places.push(place));
    gone.abort(new Error('reply deleted'));
    await expect(first).rejects.toThrow('reply deleted');
    expect(places).toEqual([2, 1]);
    release();
    const next = await second;
    next();
    expect([slots.active('g'), slots.waiting('g')]).toEqual([0, 0]);
  });

  test('members take turns: a flood of one member does not make the others wait behind all of it', async () => {
    const slots = new Slots(1);
    const release = await slots.acquire('g', 'bob', () => undefined);
    const order: string[] = [];
    const places = new Map<string, number[]>();
    const releases: (() => void)[] = [];
    for (const name of ['bob1', 'bob2', 'bob3', 'carol1', 'dave1', 'carol2']) {
      const member = name.replace(/\d$/, '');
      void slots
        .acquire('g', member, (place) => places.set(name, [...(places.get(name) ?? []), place]))
        .then((next) => {
          order.push(name);
          releases.push(next);
        });
    }
    await tick();
    // Told where they stand in the fair order as each newcomer arrives.
    // bob holds the slot: his next files wait behind carol's and dave's first.
    expect(places.get('carol1')).toEqual([1]);
    expect(places.get('bob1')).toEqual([1, 2, 3]);
    release();
    for (let i = 0; i < 6; i++) {
      await tick();
      releases.shift()?.();
    }
    await tick();
    expect(order).toEqual(['carol1', 'dave1', 'bob1', 'carol2', 'bob2', 'bob3']);
    expect([slots.active('g'), slots.waiting('g')]).toEqual([0, 0]);
  });

  test('never more than the maximum at once, and every request gets its turn', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }),
        async (max, steps) => {
          const slots = new Slots(max);
          const held: (() => void)[] = [];
          let active = 0;
          let peak = 0;
          let done = 0;
          const asked = steps.filter(Boolean).length;
          for (const ask of steps) {
            if (ask) {
              void slots
                .acquire('g', `m${held.length % 3}`, () => undefined)
                .then((release) => {
                  active += 1;
                  peak = Math.max(peak, active);
                  held.push(() => {
                    active -= 1;
                    done += 1;
                    release();
                  });
                });
            } else held.shift()?.();
            await tick();
          }
          while (done < asked) {
            held.shift()?.();
            await tick();
          }
          expect(peak).toBeLessThanOrEqual(max);
          expect(slots.active('g')).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });
});
