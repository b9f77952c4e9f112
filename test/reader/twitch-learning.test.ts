/** The reward learns under way and the recent logins of the Twitch source (pure, fake clock). */
import { describe, expect, test } from 'vitest';
import { RecentLogins, RewardLearning } from '../../src/reader/twitch-learning.ts';
import { FakeClock } from '../support/fake-clock.ts';

describe('RewardLearning', () => {
  test('taught ends the wait with the reward; a second learn replaces the first; time runs out', async () => {
    const clock = new FakeClock();
    const learning = new RewardLearning(clock);
    const first = learning.wait('g', 60_000);
    const second = learning.wait('g', 60_000);
    expect(await first).toBeUndefined();
    expect(learning.has('g')).toBe(true);
    const reward = { rewardId: 'r', channel: 'c', displayName: 'D' };
    learning.taught('g', reward);
    expect(await second).toEqual(reward);
    expect(learning.has('g')).toBe(false);
    const late = learning.wait('g', 1000);
    await clock.advance(1000);
    expect(await late).toBeUndefined();
    expect(learning.has('g')).toBe(false);
  });
});

describe('RecentLogins', () => {
  test('per channel, any case; the oldest goes past the capacity; a channel is forgotten', () => {
    const logins = new RecentLogins(2);
    logins.seen('a', 'Ronni', '1');
    logins.seen('b', 'ronni', '2');
    expect(logins.userId('a', 'RONNI')).toBe('1');
    logins.seen('a', 'other', '3');
    expect(logins.userId('a', 'ronni')).toBeUndefined();
    logins.forgetChannel('b');
    expect(logins.userId('b', 'ronni')).toBeUndefined();
    expect(logins.userId('a', 'other')).toBe('3');
  });
});
