import { expect, test, vi } from 'vitest';
import type { QueuePosition } from '../../src/queue/index.ts';
import type { SpeakUpdate } from '../../src/voice/index.ts';
import { ItemUpdates } from '../../src/voice/updates.ts';

const at = (id: string, state: string, position: number) =>
  ({ item: { id, state }, position }) as unknown as QueuePosition<unknown>;

function follow(updates: ItemUpdates, id: string): SpeakUpdate[] {
  const seen: SpeakUpdate[] = [];
  updates.add(id, (update) => seen.push(update));
  return seen;
}

test('sends a position update only when the state or the position changed', () => {
  const updates = new ItemUpdates({ warn: () => undefined });
  const one = follow(updates, '1');
  const two = follow(updates, '2');
  updates.publish([at('1', 'generating', 1), at('2', 'queued', 2)]);
  updates.publish([at('1', 'generating', 1), at('2', 'queued', 2)]);
  updates.publish([at('1', 'ready', 1), at('2', 'generating', 2)]);
  updates.playing('1');
  updates.publish([at('2', 'generating', 1)]);
  expect(one).toEqual([
    { state: 'generating', position: 1 },
    { state: 'ready', position: 1 },
    { state: 'playing' },
  ]);
  expect(two).toEqual([
    { state: 'queued', position: 2 },
    { state: 'generating', position: 2 },
    { state: 'generating', position: 1 },
  ]);
});

test('exactly one terminal update; nothing after it', () => {
  const updates = new ItemUpdates({ warn: () => undefined });
  const seen = follow(updates, '1');
  updates.end('1', { state: 'played', durationMs: 1200 });
  updates.end('1', { state: 'cancelled' });
  updates.playing('1');
  updates.publish([at('1', 'queued', 1)]);
  expect(seen).toEqual([{ state: 'played', durationMs: 1200 }]);
  expect(updates.pending()).toEqual([]);
});

test('a throwing onUpdate is logged and does not stop the others', () => {
  const warn = vi.fn();
  const updates = new ItemUpdates({ warn });
  updates.add('1', () => {
    throw new Error('reply gone');
  });
  const two = follow(updates, '2');
  updates.publish([at('1', 'queued', 1), at('2', 'queued', 2)]);
  expect(two).toEqual([{ state: 'queued', position: 2 }]);
  expect(warn).toHaveBeenCalledOnce();
});
