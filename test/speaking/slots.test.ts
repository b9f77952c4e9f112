import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Slots } from '../../src/speaking/index.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Slots', () => {
  test('the first ones go at once; the rest wait in arrival order, told their place', async () => {
    const slots = new Slots(2);
    const places = new Map<string, number[]>();
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      void slots
        .acquire('g', (place) => places.set(name, [...(places.get(name) ?? []), place]))
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
    await slots.acquire('other', () => undefined);
    expect(slots.active('other')).toBe(1);
  });

  test('leaving the line by abort moves those behind up and takes no slot', async () => {
    const slots = new Slots(1);
    const release = await slots.acquire('g', () => undefined);
    const gone = new AbortController();
    const places: number[] = [];
    const first = slots.acquire('g', () => undefined, gone.signal);
    const second = slots.acquire('g', (place) => places.push(place));
    gone.abort(new Error('reply deleted'));
    await expect(first).rejects.toThrow('reply deleted');
    expect(places).toEqual([2, 1]);
    release();
    const next = await second;
    next();
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
                .acquire('g', () => undefined)
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
