import { describe, expect, test } from 'vitest';
import { gapsInside } from '../../bench/many-voices-gaps.ts';

/** Arrivals every 20 ms for items of `lengths` packets, with `pauseMs` between items. */
function spoken(lengths: readonly number[], pauseMs: number, stutter?: { at: number; ms: number }) {
  const arrivals: number[] = [];
  let t = 0;
  for (const [item, length] of lengths.entries()) {
    if (item > 0) t += pauseMs;
    for (let p = 0; p < length; p++) {
      if (stutter !== undefined && arrivals.length === stutter.at) t += stutter.ms;
      arrivals.push(t);
      t += 20;
    }
  }
  return arrivals;
}

describe('gapsInside', () => {
  test('the pauses between items are left out when items are as long as expected', () => {
    const gaps = gapsInside(spoken([96, 120, 90, 108], 2000), [96, 120, 90, 108]);
    expect(gaps.filter((g) => g > 60)).toEqual([]);
    expect(gaps).toHaveLength(96 + 120 + 90 + 108 - 1 - 3);
  });

  test('items decoded a few packets longer than expected (MP3) still leave their pauses out', () => {
    // Each item 5 packets longer than its text: by the last boundary, 15 packets off.
    const gaps = gapsInside(spoken([101, 125, 95, 113], 2000), [96, 120, 90, 108]);
    expect(gaps.filter((g) => g > 60)).toEqual([]);
  });

  test('a stutter inside an item counts, away from the boundaries', () => {
    const gaps = gapsInside(spoken([101, 125, 95], 1500, { at: 160, ms: 300 }), [96, 120, 90]);
    expect(gaps.filter((g) => g > 60)).toEqual([320]);
  });

  test('one item: every gap counts', () => {
    const gaps = gapsInside(spoken([50], 0, { at: 10, ms: 100 }), [50]);
    expect(gaps.filter((g) => g > 60)).toEqual([120]);
  });
});
