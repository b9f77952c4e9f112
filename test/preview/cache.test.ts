import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { PREVIEW_TEXT, type PreviewAudio, PreviewCache } from '../../src/preview/cache.ts';

const id = { keyId: 'k1', model: 'base', voiceId: 'af_Lily' };

function maker() {
  let calls = 0;
  const make = async (): Promise<PreviewAudio> => {
    calls += 1;
    await new Promise((resolve) => setImmediate(resolve));
    return {
      generationId: `g${calls}`,
      bytes: Buffer.from([1, 2, calls]),
      mime: 'audio/wav',
      extension: 'wav',
    };
  };
  return { make, calls: () => calls };
}

describe('PreviewCache', () => {
  test('the sample sentence meets the API’s 30-character minimum', () => {
    expect(PREVIEW_TEXT.length).toBeGreaterThanOrEqual(30);
  });

  test('generates once per key and voice; later previews come from the store, also after a restart', async () => {
    const keyv = new Keyv();
    const { make, calls } = maker();
    const first = await new PreviewCache(keyv).get(id, make);
    expect(first.cached).toBe(false);
    const again = await new PreviewCache(keyv).get({ ...id, voiceId: 'AF_LILY' }, make);
    expect(again.cached).toBe(true);
    expect(again.audio).toEqual(first.audio);
    expect(calls()).toBe(1);
  });

  test('other keys, models and voices get their own sample', async () => {
    const cache = new PreviewCache(new Keyv());
    const { make, calls } = maker();
    await cache.get(id, make);
    await cache.get({ ...id, keyId: 'k2' }, make);
    await cache.get({ ...id, model: 'advance' }, make);
    await cache.get({ ...id, voiceId: 'bf_other' }, make);
    expect(calls()).toBe(4);
  });

  test('concurrent previews of one voice share one generation', async () => {
    const cache = new PreviewCache(new Keyv());
    const { make, calls } = maker();
    const results = await Promise.all([
      cache.get(id, make),
      cache.get(id, make),
      cache.get(id, make),
    ]);
    expect(calls()).toBe(1);
    expect(results.filter((r) => !r.cached)).toHaveLength(1);
  });

  test('a failed generation is not stored: the next preview tries again', async () => {
    const cache = new PreviewCache(new Keyv());
    await expect(cache.get(id, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const { make, calls } = maker();
    expect((await cache.get(id, make)).cached).toBe(false);
    expect(calls()).toBe(1);
  });
});
