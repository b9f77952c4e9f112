import { describe, expect, test } from 'vitest';
import { TtsError } from '../../src/tts/index.ts';
import type { Model, Voice } from '../../src/tts/types.ts';
import { VoiceCache } from '../../src/tts/voice-cache.ts';
import { FakeClock } from '../support/fake-clock.ts';

const voice: Voice = {
  voiceId: 'am_2riuownnf',
  name: 'Ethan',
  gender: 'Male',
  accent: 'American',
  free: true,
  description: '',
};

/** A loader that fails while `failing` is set, counting its calls per model. */
function loader() {
  const calls: Model[] = [];
  const state = { failing: true, calls };
  const load = async (model: Model): Promise<Voice[]> => {
    calls.push(model);
    if (state.failing) throw new TtsError('server_error', 'the voices are unavailable');
    return [voice];
  };
  return { state, load };
}

describe('VoiceCache failure back-off', () => {
  test('a failed fetch is remembered per model: no request during the back-off, then one retry', async () => {
    const clock = new FakeClock(0);
    const { state, load } = loader();
    const cache = new VoiceCache({
      load,
      clock,
      ttlMs: 60_000,
      failureBackoffMs: 30_000,
      onRefreshError: () => undefined,
    });
    const first = await cache.get('base').catch((error: unknown) => error);
    expect(first).toMatchObject({ kind: 'server_error' });
    // Autocomplete keystrokes during the back-off: the same error, no request.
    for (let i = 0; i < 5; i++) {
      await clock.advance(5_000);
      await expect(cache.get('base')).rejects.toBe(first);
    }
    await expect(cache.refresh('base')).rejects.toBe(first);
    expect(state.calls).toEqual(['base']);
    // Another model is not affected.
    await expect(cache.get('advance')).rejects.toMatchObject({ kind: 'server_error' });
    expect(state.calls).toEqual(['base', 'advance']);
    // After the back-off one request goes out; success clears the memory.
    state.failing = false;
    await clock.advance(5_000);
    await expect(cache.get('base')).resolves.toEqual([voice]);
    expect(state.calls).toEqual(['base', 'advance', 'base']);
  });

  test('the back-off defaults to 30 s', async () => {
    const clock = new FakeClock(0);
    const { state, load } = loader();
    const cache = new VoiceCache({ load, clock, ttlMs: 60_000, onRefreshError: () => undefined });
    await expect(cache.get('base')).rejects.toMatchObject({ kind: 'server_error' });
    await clock.advance(29_999);
    await expect(cache.get('base')).rejects.toMatchObject({ kind: 'server_error' });
    expect(state.calls).toHaveLength(1);
    await clock.advance(1);
    await expect(cache.get('base')).rejects.toMatchObject({ kind: 'server_error' });
    expect(state.calls).toHaveLength(2);
  });

  test('a stale list is served during the back-off without refreshing or reporting each time', async () => {
    const clock = new FakeClock(0);
    const { state, load } = loader();
    state.failing = false;
    const reported: unknown[] = [];
    const cache = new VoiceCache({
      load,
      clock,
      ttlMs: 60_000,
      failureBackoffMs: 30_000,
      onRefreshError: (error) => reported.push(error),
    });
    await cache.get('base');
    state.failing = true;
    await clock.advance(60_000);
    // Stale: served, and one background refresh fails.
    await expect(cache.get('base')).resolves.toEqual([voice]);
    await clock.advance(0);
    expect(state.calls).toHaveLength(2);
    expect(reported).toHaveLength(1);
    for (let i = 0; i < 5; i++) {
      await clock.advance(1_000);
      await expect(cache.get('base')).resolves.toEqual([voice]);
    }
    expect(state.calls).toHaveLength(2);
    expect(reported).toHaveLength(1);
  });
});
