/**
 * One key's learned generation times, kept in a real store (keyv in memory): read once on first
 * use, written back at most every 10 s, at once on flush; a store away leaves the prior.
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KeyvLearnedTimesStore } from '../../src/store/index.ts';
import { API_PRIOR, type LearnedState } from '../../src/tts/estimator.ts';
import { keyId } from '../../src/tts/key.ts';
import {
  LEARNED_SAVE_EVERY_MS,
  LearnedTimes,
  type LearnedTimesStore,
} from '../../src/tts/learned-times.ts';
import { type Emulator, startEmulator, USER_ONE, USER_TWO } from '../../tools/emulator/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { clientsFor, sentence, TIME_SCALE } from './emulated.ts';

const API_KEY = 'adx_learned_times_secret_0001';
const KEY_ID = keyId(API_KEY);

/** The real keyv store, with its reads and writes counted (and made to fail on demand). */
function countedStore(keyv = new Keyv()) {
  const store = new KeyvLearnedTimesStore(keyv);
  const calls = { loads: 0, saves: [] as { at: number; learned: LearnedState }[], fail: false };
  return {
    keyv,
    calls,
    store: (clock: FakeClock): LearnedTimesStore => ({
      load: (id) => {
        calls.loads++;
        return calls.fail ? Promise.reject(new Error('store away')) : store.load(id);
      },
      save: async (id, learned) => {
        if (calls.fail) throw new Error('store away');
        calls.saves.push({ at: clock.now(), learned });
        await store.save(id, learned);
      },
    }),
  };
}

function learnedTimes(clock: FakeClock, store: LearnedTimesStore, errors: unknown[] = []) {
  return new LearnedTimes(KEY_ID, {
    prior: API_PRIOR,
    store,
    clock,
    onError: (error) => errors.push(error),
  });
}

const bracket = (ms: number) => ({ afterMs: ms - 100, byMs: ms + 100 });

describe('LearnedTimes', () => {
  test('a restart starts from what the last run learned; the store names the key by its id only', async () => {
    const clock = new FakeClock(0);
    const shared = countedStore();
    const first = learnedTimes(clock, shared.store(clock));
    await first.restored();
    for (const length of [40, 120, 250])
      first.estimator.observe('base', length, bracket(3000 + 20 * length));
    first.estimator.firstPollResult('base', false);
    await first.flush();

    const second = learnedTimes(clock, shared.store(clock));
    expect(second.estimator.estimate('base', 100)).toBeCloseTo(800 + 15 * 100, 6); // the prior
    await second.restored();
    for (const length of [30, 100, 400]) {
      expect(second.estimator.estimate('base', length)).toBeCloseTo(
        first.estimator.estimate('base', length),
        6,
      );
      expect(second.estimator.firstPollAfter('base', length)).toBeCloseTo(
        first.estimator.firstPollAfter('base', length),
        6,
      );
    }
    const stored = JSON.stringify(await shared.keyv.get(`poll-times:${KEY_ID}`));
    expect(stored).toContain('"samples"');
    expect(stored).not.toContain(API_KEY);
  });

  test('read lazily, once, on first use', async () => {
    const clock = new FakeClock(0);
    const shared = countedStore();
    const times = learnedTimes(clock, shared.store(clock));
    expect(shared.calls.loads).toBe(0);
    await Promise.all([times.restored(), times.restored()]);
    await times.restored();
    expect(shared.calls.loads).toBe(1);
  });

  test(`written when it learns, at most every ${LEARNED_SAVE_EVERY_MS / 1000} s, the latest state each time`, async () => {
    const clock = new FakeClock(0);
    const shared = countedStore();
    const times = learnedTimes(clock, shared.store(clock));
    await times.restored();
    times.estimator.observe('base', 50, bracket(1550));
    await clock.advance(1000);
    times.estimator.observe('base', 60, bracket(1700));
    await clock.advance(1000);
    times.estimator.firstPollResult('base', true);
    await clock.advance(30_000);
    expect(shared.calls.saves.map((s) => s.at)).toEqual([0, LEARNED_SAVE_EVERY_MS]);
    expect(shared.calls.saves[1]?.learned.base?.samples).toHaveLength(2);
    // Nothing new: nothing written.
    await clock.advance(60_000);
    expect(shared.calls.saves).toHaveLength(2);
  });

  test('flush writes what is pending at once (at shutdown)', async () => {
    const clock = new FakeClock(0);
    const shared = countedStore();
    const times = learnedTimes(clock, shared.store(clock));
    await times.restored();
    times.estimator.observe('base', 50, bracket(1550));
    await clock.advance(100);
    times.estimator.observe('base', 80, bracket(2000));
    await times.flush();
    expect(shared.calls.saves.map((s) => s.at)).toEqual([0, 100]);
    expect(shared.calls.saves[1]?.learned.base?.samples).toHaveLength(2);
  });

  test('a store that is away: the prior serves, errors are told, and a later change is written', async () => {
    const clock = new FakeClock(0);
    const shared = countedStore();
    const errors: unknown[] = [];
    shared.calls.fail = true;
    const times = learnedTimes(clock, shared.store(clock), errors);
    await times.restored();
    expect(times.estimator.estimate('base', 100)).toBeCloseTo(2300, 6);
    times.estimator.observe('base', 100, bracket(2300));
    await clock.advance(100);
    expect(errors).toHaveLength(2);
    shared.calls.fail = false;
    times.estimator.observe('base', 100, bracket(2300));
    await clock.advance(LEARNED_SAVE_EVERY_MS);
    expect(shared.calls.saves).toHaveLength(1);
    expect(shared.calls.saves[0]?.learned.base?.samples).toHaveLength(2);
  });

  test('without a store it only learns in memory', async () => {
    const clock = new FakeClock(0);
    const times = new LearnedTimes(KEY_ID, { prior: API_PRIOR, clock, onError: () => undefined });
    await times.restored();
    times.estimator.observe('base', 100, bracket(2300));
    await times.flush();
    expect(clock.pending).toBe(0);
  });
});

describe('TtsClients keep each key’s times in the store', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({
      synth: 'tone',
      timeScale: TIME_SCALE,
      generationMs: () => 30,
    });
  });
  afterAll(() => emulator?.close());

  test('per key id, written at shutdown, read by the next start on the key’s first generation', async () => {
    const keyv = new Keyv();
    const loads: string[] = [];
    const store = new KeyvLearnedTimesStore(keyv);
    const counted: LearnedTimesStore = {
      load: (id) => {
        loads.push(id);
        return store.load(id);
      },
      save: (id, learned) => store.save(id, learned),
    };
    const request = { text: sentence(), voiceId: 'am_2riuownnf', model: 'base' } as const;
    const first = clientsFor(emulator, { learning: { store: counted } }).clients;
    await first.forKey(USER_ONE.apiKey).generate(request);
    await first.forKey(USER_TWO.apiKey).generate(request);
    await first.saveLearned();
    const ids = [keyId(USER_ONE.apiKey), keyId(USER_TWO.apiKey)];
    for (const id of ids) {
      const saved = (await keyv.get(`poll-times:${id}`)) as { learned: LearnedState };
      expect(saved.learned.base?.samples).toHaveLength(1);
    }
    const everything = JSON.stringify(
      await Promise.all(ids.map((id) => keyv.get(`poll-times:${id}`))),
    );
    expect(everything).not.toContain(USER_ONE.apiKey);
    expect(everything).not.toContain(USER_TWO.apiKey);

    const second = clientsFor(emulator, { learning: { store: counted } }).clients;
    const client = second.forKey(USER_ONE.apiKey);
    expect(loads).toEqual(ids);
    await client.generate(request);
    await client.generate(request);
    expect(loads).toEqual([...ids, ids[0]]);
    await second.saveLearned();
    const saved = (await keyv.get(`poll-times:${ids[0]}`)) as { learned: LearnedState };
    expect(saved.learned.base?.samples).toHaveLength(3);
  });
});
