import { describe, expect, test } from 'vitest';
import type { FinishedGeneration } from '../../src/tts/index.ts';
import { type GenerateOptions, SharedGenerations } from '../../src/tts/shared-generation.ts';

/** A generation the test drives by hand: submit it, finish it or fail it. */
function manual() {
  const starts: {
    options: GenerateOptions;
    finish: (id: string) => void;
    fail: (e: unknown) => void;
  }[] = [];
  const start = (options: GenerateOptions) =>
    new Promise<FinishedGeneration>((resolve, reject) => {
      starts.push({
        options,
        finish: (id) => resolve({ generationId: id, audioUrl: `http://media/${id}.wav` }),
        fail: reject,
      });
      options.signal?.addEventListener('abort', () => reject(options.signal?.reason));
    });
  return { starts, start };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SharedGenerations', () => {
  test('identical requests under way share one generation, and each hears its id', async () => {
    const shared = new SharedGenerations();
    const { starts, start } = manual();
    const heard: string[] = [];
    const onSubmitted = (id: string) => void heard.push(id);
    const runs = [1, 2, 3].map(() => shared.run('k', { onSubmitted }, start));
    await tick();
    expect(starts).toHaveLength(1);
    await starts[0]?.options.onSubmitted?.('gen-1');
    starts[0]?.finish('gen-1');
    const results = await Promise.all(runs);
    expect(results.map((r) => [r.generationId, r.cached])).toEqual([
      ['gen-1', undefined],
      ['gen-1', true],
      ['gen-1', true],
    ]);
    expect(heard).toEqual(['gen-1', 'gen-1', 'gen-1']);
  });

  test('different keys, or one after the other finished, each generate', async () => {
    const shared = new SharedGenerations();
    const { starts, start } = manual();
    const a = shared.run('a', {}, start);
    const b = shared.run('b', {}, start);
    await tick();
    starts[0]?.finish('a1');
    starts[1]?.finish('b1');
    await Promise.all([a, b]);
    const again = shared.run('a', {}, start);
    await tick();
    expect(starts).toHaveLength(3);
    starts[2]?.finish('a2');
    expect((await again).generationId).toBe('a2');
  });

  test('the first caller cancelled: the others generate on their own', async () => {
    const shared = new SharedGenerations();
    const { starts, start } = manual();
    const leader = new AbortController();
    const first = shared.run('k', { signal: leader.signal }, start);
    const second = shared.run('k', {}, start);
    await tick();
    leader.abort(new Error('skipped'));
    await expect(first).rejects.toThrow('skipped');
    await tick();
    expect(starts).toHaveLength(2);
    starts[1]?.finish('own');
    expect((await second).generationId).toBe('own');
  });

  test('a waiting caller cancelled leaves the generation to the others', async () => {
    const shared = new SharedGenerations();
    const { starts, start } = manual();
    const follower = new AbortController();
    const first = shared.run('k', {}, start);
    const second = shared.run('k', { signal: follower.signal }, start);
    await tick();
    follower.abort(new Error('left'));
    await expect(second).rejects.toThrow('left');
    starts[0]?.finish('gen');
    expect((await first).generationId).toBe('gen');
    expect(starts).toHaveLength(1);
  });

  test('a failure of the shared generation is everyone’s failure', async () => {
    const shared = new SharedGenerations();
    const { starts, start } = manual();
    const runs = [shared.run('k', {}, start), shared.run('k', {}, start)];
    await tick();
    starts[0]?.fail(new Error('voice model crashed'));
    for (const run of runs) await expect(run).rejects.toThrow('voice model crashed');
    expect(starts).toHaveLength(1);
  });
});
