import { describe, expect, test } from 'vitest';
import {
  type QueueTransition,
  SpeechQueue,
  type SpeechQueueOptions,
} from '../../src/queue/index.ts';

interface Request {
  readonly text: string;
}

// Ids are the request texts ('A1' by requester 'A'), so expectations read as play orders.
function setup(options: Partial<SpeechQueueOptions<Request>> = {}) {
  let clock = 1000;
  const changes: QueueTransition<Request>[] = [];
  let pendingId = '';
  const queue = new SpeechQueue<Request>({
    now: () => clock,
    newId: () => pendingId,
    onTransition: (change) => changes.push(change),
    ...options,
  });
  const add = (spec: string) =>
    spec
      .split(' ')
      .filter(Boolean)
      .map((text) => {
        pendingId = text;
        return queue.enqueue({ requesterId: text.slice(0, 1), payload: { text } });
      });
  const order = () =>
    queue
      .order()
      .map(({ item }) => item.id)
      .join(' ');
  // Generates every window item that should generate, as the caller would.
  const generateAll = () => {
    for (const item of queue.toGenerate()) {
      expect(queue.markGenerating(item.id).ok).toBe(true);
      expect(queue.markReady(item.id).ok).toBe(true);
    }
  };
  const tick = (ms: number) => {
    clock += ms;
  };
  return { queue, add, order, generateAll, changes, tick };
}

describe('enqueue and order', () => {
  test('round-robin by requester, FIFO within a requester', () => {
    const { queue, add, order } = setup();
    const results = add('A1 A2 A3 B1 C1');
    expect(results.map((result) => result.ok && result.position)).toEqual([1, 2, 3, 2, 3]);
    expect(order()).toBe('A1 B1 C1 A2 A3');
    expect(queue.positionOf('A2')).toBe(4);
    expect(queue.positionOf('nope')).toBeUndefined();
    expect(queue.order().map(({ position }) => position)).toEqual([1, 2, 3, 4, 5]);
  });

  test('items carry payload, requester and timestamps', () => {
    const { queue, add, tick } = setup();
    add('A1');
    tick(50);
    const [result] = add('B1');
    expect(result).toMatchObject({
      ok: true,
      position: 2,
      item: {
        id: 'B1',
        requesterId: 'B',
        payload: { text: 'B1' },
        state: 'queued',
        enqueuedAt: 1050,
      },
    });
    expect(queue.get('A1')?.enqueuedAt).toBe(1000);
  });

  test('default ids count up per queue', () => {
    const queue = new SpeechQueue<string>({ now: () => 0 });
    const ids = ['x', 'y'].map((payload) => {
      const result = queue.enqueue({ requesterId: 'A', payload });
      return result.ok ? result.item.id : undefined;
    });
    expect(ids).toEqual(['1', '2']);
  });

  test('a requester who joins later plays in the round being played, before second turns', () => {
    const { queue, add, order, generateAll } = setup({ lookahead: 1 });
    add('A1 A2 A3 B1 B2');
    generateAll();
    expect(queue.next()?.id).toBe('A1');
    expect(order()).toBe('B1 A2 B2 A3');
    add('C1 C2');
    expect(order()).toBe('B1 C1 A2 B2 C2 A3');
  });

  test('bob queues three, carol one a moment later: carol plays second', () => {
    const { queue, add, order } = setup({ lookahead: 2 });
    add('B1 B2 B3');
    for (const id of ['B1', 'B2']) queue.markGenerating(id);
    queue.markReady('B1');
    expect(queue.next()?.id).toBe('B1');
    queue.markReady('B2'); // generated early: it still waits for its fair turn
    add('C1');
    expect(order()).toBe('C1 B2 B3');
    // The window follows the fair order: carol generates now, bob's third waits.
    expect(queue.toGenerate().map((item) => item.id)).toEqual(['C1']);
    expect(queue.finish('B1').ok).toBe(true);
    expect(queue.next()).toBeUndefined(); // C1 is up and not ready; B2 waits though ready
    expect(queue.markGenerating('C1').ok).toBe(true);
    expect(queue.markReady('C1').ok).toBe(true);
    expect(queue.next()?.id).toBe('C1');
    expect(queue.finish('C1').ok).toBe(true);
    expect(queue.next()?.id).toBe('B2');
  });

  test('an item pushed out of the window by a newcomer keeps generating and is not started twice', () => {
    const { queue, add, order } = setup({ lookahead: 2 });
    add('A1 A2 A3');
    expect(queue.toGenerate().map((item) => item.id)).toEqual(['A1', 'A2']);
    queue.markGenerating('A2');
    add('B1');
    expect(order()).toBe('A1 B1 A2 A3');
    expect(queue.toGenerate().map((item) => item.id)).toEqual(['A1', 'B1']);
    expect(queue.markReady('A2').ok).toBe(true); // outside the window now: still accepted
    expect(queue.markGenerating('A3')).toMatchObject({ ok: false, reason: 'notInWindow' });
  });

  test('items not started yet make room for a newcomer', () => {
    const { add, order } = setup({ lookahead: 2 });
    add('A1 A2 A3');
    add('B1');
    expect(order()).toBe('A1 B1 A2 A3');
  });

  test.each([
    [{ maxLength: 3 }, 'A1 B1 C1 D1', { ok: false, reason: 'full', maxLength: 3 }],
    [
      { maxPerRequester: 2 },
      'A1 A2 A3',
      { ok: false, reason: 'requesterFull', maxPerRequester: 2 },
    ],
    [
      { maxLength: 3, maxPerRequester: 2 },
      'A1 A2 B1 B2',
      { ok: false, reason: 'full', maxLength: 3 },
    ],
  ])('limits %j: %j → last refused', (limits, spec, refusal) => {
    const { queue, add } = setup(limits);
    const results = add(spec);
    expect(results.at(-1)).toEqual(refusal);
    expect(results.slice(0, -1).every((result) => result.ok)).toBe(true);
    expect(queue.length).toBe(results.length - 1);
  });

  test('the playing item does not count towards the limits', () => {
    const { queue, add, generateAll } = setup({ maxLength: 1, maxPerRequester: 1 });
    add('A1');
    generateAll();
    queue.next();
    expect(add('A2')[0]?.ok).toBe(true);
    expect(add('A3')[0]).toMatchObject({ ok: false, reason: 'full' });
  });

  test.each([{ lookahead: 0 }, { maxLength: 0 }, { maxPerRequester: 1.5 }])(
    'rejects options %j',
    (options) => {
      expect(() => new SpeechQueue({ now: () => 0, ...options })).toThrow(RangeError);
    },
  );

  test('a duplicate id from newId is refused', () => {
    const queue = new SpeechQueue({ now: () => 0, newId: () => 'same' });
    queue.enqueue({ requesterId: 'A', payload: 1 });
    expect(() => queue.enqueue({ requesterId: 'B', payload: 2 })).toThrow(/duplicate/);
  });
});

describe('generation window', () => {
  test.each([
    [1, 'A1'],
    [2, 'A1 B1'],
    [3, 'A1 B1 C1'],
  ])('lookahead %d generates %j of A1 B1 C1 A2', (lookahead, expected) => {
    const { queue, add } = setup({ lookahead });
    add('A1 A2 B1 C1');
    expect(
      queue
        .toGenerate()
        .map((item) => item.id)
        .join(' '),
    ).toBe(expected);
  });

  test('only still-queued window items are to generate; the window moves on when one plays', () => {
    const { queue, add } = setup();
    add('A1 B1 C1 D1');
    expect(queue.markGenerating('A1').ok).toBe(true);
    expect(queue.toGenerate().map((item) => item.id)).toEqual(['B1']);
    expect(queue.markReady('A1').ok).toBe(true);
    expect(queue.next()?.id).toBe('A1');
    expect(queue.toGenerate().map((item) => item.id)).toEqual(['B1', 'C1']);
  });

  test.each([
    [
      'outside the window',
      'C1',
      'markGenerating',
      { ok: false, reason: 'notInWindow', state: 'queued' },
    ],
    ['unknown', 'Z9', 'markGenerating', { ok: false, reason: 'unknown' }],
    [
      'ready before generating',
      'A1',
      'markReady',
      { ok: false, reason: 'illegal', state: 'queued' },
    ],
    [
      'failed before generating',
      'A1',
      'markFailed',
      { ok: false, reason: 'illegal', state: 'queued' },
    ],
  ] as const)('refuses a report on an item %s', (_name, id, method, expected) => {
    const { queue, add } = setup();
    add('A1 B1 C1');
    const result = method === 'markFailed' ? queue.markFailed(id, 'x') : queue[method](id);
    expect(result).toEqual(expected);
    expect(queue.order().map(({ item }) => item.state)).toEqual(['queued', 'queued', 'queued']);
  });

  test('a failed generation leaves the queue and the next item enters the window', () => {
    const { queue, add, order } = setup();
    add('A1 B1 C1');
    queue.markGenerating('A1');
    const result = queue.markFailed('A1', 'insufficient balance');
    expect(result).toMatchObject({
      ok: true,
      previous: 'generating',
      item: { state: 'failed', failureReason: 'insufficient balance' },
    });
    expect(order()).toBe('B1 C1');
    expect(queue.toGenerate().map((item) => item.id)).toEqual(['B1', 'C1']);
    expect(queue.get('A1')).toBeUndefined();
  });
});

describe('playing', () => {
  test('next plays the head only when it is ready and nothing plays', () => {
    const { queue, add } = setup();
    add('A1 B1');
    expect(queue.next()).toBeUndefined();
    queue.markGenerating('A1');
    queue.markGenerating('B1');
    queue.markReady('B1');
    expect(queue.next()).toBeUndefined(); // B1 ready, but A1 plays first
    queue.markReady('A1');
    expect(queue.next()).toMatchObject({ id: 'A1', state: 'playing' });
    expect(queue.next()).toBeUndefined(); // A1 still playing
    expect(queue.current()?.id).toBe('A1');
    expect(queue.positionOf('A1')).toBeUndefined();
    expect(queue.finish('A1')).toMatchObject({
      ok: true,
      previous: 'playing',
      item: { state: 'played' },
    });
    expect(queue.current()).toBeUndefined();
    expect(queue.next()?.id).toBe('B1');
  });

  test('finish refuses an id that is not playing (a late end event)', () => {
    const { queue, add, generateAll } = setup();
    add('A1 B1');
    generateAll();
    queue.next();
    expect(queue.finish('B1')).toEqual({ ok: false, reason: 'illegal', state: 'ready' });
    queue.skip();
    expect(queue.finish('A1')).toEqual({ ok: false, reason: 'unknown' });
  });

  test('a playback failure ends the playing item as failed', () => {
    const { queue, add, generateAll } = setup();
    add('A1');
    generateAll();
    queue.next();
    expect(queue.markFailed('A1', 'ffmpeg exited')).toMatchObject({
      ok: true,
      previous: 'playing',
      item: { state: 'failed', failureReason: 'ffmpeg exited' },
    });
    expect(queue.current()).toBeUndefined();
  });
});

describe('skip, remove, clear', () => {
  test('skip ends only the playing item', () => {
    const { queue, add, order, generateAll } = setup();
    expect(queue.skip()).toEqual([]);
    add('A1 B1 C1');
    generateAll();
    queue.next();
    const skipped = queue.skip();
    expect(skipped).toMatchObject([{ previous: 'playing', item: { id: 'A1', state: 'skipped' } }]);
    expect(order()).toBe('B1 C1');
    expect(queue.current()).toBeUndefined();
  });

  test.each([
    ['queued', []],
    ['generating', ['A1']],
    ['ready', ['A1']],
  ] as const)('while nothing plays, skip ends position 1 when %s', (previous, prepared) => {
    const { queue, add, order } = setup({ lookahead: 1 });
    add('A1 A2 B1');
    for (const id of prepared) queue.markGenerating(id);
    if (previous === 'ready') queue.markReady('A1');
    expect(queue.skip()).toMatchObject([{ previous, item: { id: 'A1', state: 'skipped' } }]);
    expect(order()).toBe('B1 A2'); // it was A's turn, so B goes next
    expect(queue.toGenerate().map((item) => item.id)).toEqual(['B1']);
  });

  test.each([
    ['A1', 'playing', 'B1 C1 D1'],
    ['B1', 'ready', 'C1 D1'],
    ['C1', 'generating', 'B1 D1'],
    ['D1', 'queued', 'B1 C1'],
  ])('remove %s reports it was %s', (id, previous, rest) => {
    const { queue, add, order } = setup();
    add('A1 B1 C1 D1');
    for (const step of ['A1', 'B1']) {
      queue.markGenerating(step);
      queue.markReady(step);
    }
    queue.next(); // A1 plays, C1 enters the window
    queue.markGenerating('C1');
    expect(queue.remove(id)).toMatchObject([{ previous, item: { id, state: 'cancelled' } }]);
    expect(order()).toBe(rest);
    expect(queue.remove(id)).toEqual([]);
  });

  test('clear cancels the playing item and every pending one, reporting previous states', () => {
    const { queue, add, generateAll, changes } = setup();
    add('A1 A2 B1 C1');
    generateAll();
    queue.next();
    queue.markGenerating('C1');
    const cleared = queue.clear();
    expect(cleared.map(({ item, previous }) => `${item.id}:${previous}`)).toEqual([
      'A1:playing',
      'B1:ready',
      'C1:generating',
      'A2:queued',
    ]);
    expect(cleared.every(({ item }) => item.state === 'cancelled')).toBe(true);
    expect(queue.length).toBe(0);
    expect(queue.current()).toBeUndefined();
    expect(queue.markReady('C1')).toEqual({ ok: false, reason: 'unknown' });
    expect(changes.filter((change) => change.event === 'cancel')).toHaveLength(4);
  });
});

test('onTransition sees every change with its event and time', () => {
  const { queue, add, changes, tick } = setup();
  add('A1');
  tick(10);
  queue.markGenerating('A1');
  tick(10);
  queue.markReady('A1');
  queue.next();
  queue.finish('A1');
  expect(
    changes.map(({ from, event, item }) => `${from}-${event}->${item.state}@${item.updatedAt}`),
  ).toEqual([
    'queued-startGeneration->generating@1010',
    'generating-generated->ready@1020',
    'ready-startPlaying->playing@1020',
    'playing-finished->played@1020',
  ]);
});
