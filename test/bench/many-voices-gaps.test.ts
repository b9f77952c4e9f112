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

describe('gapsInside with items heard shorter than expected', () => {
  test('a first item cut short after a stall (a player stopping it) still leaves its pause out', () => {
    // As heard at 24 servers on MP3: 6 packets, a 181 ms stall, 68, a 162 ms stall, 8, then the pause.
    const arrivals: number[] = [];
    let t = 0;
    const play = (packets: number, before = 0) => {
      t += before;
      for (let p = 0; p < packets; p++) {
        arrivals.push(t);
        t += 20;
      }
    };
    play(6);
    play(68, 161);
    play(8, 142);
    play(125, 1700);
    play(94, 1715);
    play(112, 195);
    const gaps = gapsInside(arrivals, [96, 120, 90, 108]).filter((g) => g > 60);
    expect(gaps.map(Math.round)).toEqual([181, 162]);
  });
});

describe('gapsInside with items that follow each other without a pause', () => {
  test('an item ready before the one before it ends: the next pause is still left out', () => {
    // The second item runs into the third (no pause); a 25 ms gap 25 packets before that boundary
    // (receiver jitter) is the longest near it, but the third item starts where the second ends.
    const arrivals: number[] = [];
    let t = 0;
    const play = (packets: number, before = 0, jitterAt = -1) => {
      t += before;
      for (let p = 0; p < packets; p++) {
        if (p === jitterAt) t += 5;
        arrivals.push(t);
        t += 20;
      }
    };
    play(96);
    play(120, 2000, 95);
    play(90);
    play(108, 1500);
    const gaps = gapsInside(arrivals, [96, 120, 90, 108]).filter((g) => g > 60);
    expect(gaps).toEqual([]);
  });
});
