import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { batchCost } from '../../src/reader/backlog.ts';
import { ChatterShare } from '../../src/reader/chatter-share.ts';

interface Line {
  readonly id: number;
  readonly authorId: string;
  readonly authorName: string;
  readonly text: string;
  readonly at: number;
}
const line = (id: number, authorId: string, text = 'x'.repeat(22), at = 0): Line => ({
  id,
  authorId,
  authorName: authorId,
  text,
  at,
});
const ids = (lines: readonly Line[]) => lines.map((l) => `${l.authorId}${l.id}`);

describe('ChatterShare.order', () => {
  test('a flooder gets a turn, then waits while others are read; their rest goes to the back', () => {
    const share = new ChatterShare();
    const waiting = [1, 2, 3, 4].map((i) => line(i, 'f')).concat([line(5, 'a'), line(6, 'b')]);
    const { ordered, held } = share.order(0, waiting);
    expect(ids(ordered)).toEqual(['f1', 'a5', 'b6', 'f2', 'f3', 'f4']);
    expect(ids(held)).toEqual(['f2', 'f3', 'f4']);
  });

  test('alone in the chat, a chatter is read as fast as they write', () => {
    const share = new ChatterShare();
    share.record(0, [line(0, 'f'), line(0, 'f')]);
    expect(share.order(1000, [line(1, 'f'), line(2, 'f')]).held).toEqual([]);
  });

  test('what was read in the last minute counts; older reads do not', () => {
    const share = new ChatterShare();
    share.record(0, [line(0, 'f'), line(0, 'f'), line(0, 'a')]);
    const waiting = [line(1, 'f'), line(2, 'a')];
    expect(ids(share.order(30_000, waiting).held)).toEqual(['f1']);
    expect(share.order(60_000, waiting).held).toEqual([]);
  });

  test('priority messages are never held, and count towards the minute', () => {
    const share = new ChatterShare();
    share.record(0, [line(0, 'mod'), line(0, 'mod'), line(0, 'mod')]);
    const waiting = [line(1, 'mod'), line(2, 'a')];
    const { held } = share.order(1000, waiting, (m) => m.authorId === 'mod');
    expect(held).toEqual([]);
    expect(share.window(1000).total).toBe(3 * batchCost(line(0, 'mod')));
  });

  test('long messages count by their length, not as one message', () => {
    const share = new ChatterShare();
    share.record(0, [line(0, 'long', 'y'.repeat(400)), line(0, 'a'), line(0, 'b')]);
    const waiting = [line(1, 'long'), line(2, 'a')];
    expect(ids(share.order(0, waiting).ordered)).toEqual(['a2', 'long1']);
  });
});

/** A busy chat of a few chatters, one of them flooding, read in turns of at most 200 characters. */
const chat = fc.array(
  fc.record({
    at: fc.integer({ min: 0, max: 90_000 }),
    authorId: fc.constantFrom('flood', 'flood', 'flood', 'a', 'b', 'c'),
    text: fc.string({ minLength: 1, maxLength: 120 }),
  }),
  { minLength: 20, maxLength: 150 },
);

describe('properties', () => {
  test('with two others waiting, no chatter has more than a third of the minute when read', () => {
    fc.assert(
      fc.property(chat, fc.integer({ min: 3000, max: 10_000 }), (arrivals, turnMs) => {
        const share = new ChatterShare();
        const sorted = arrivals
          .map((a, id) => ({ ...a, id, authorName: a.authorId }))
          .sort((x, y) => x.at - y.at);
        const log: { at: number; authorId: string; chars: number }[] = [];
        let waiting: typeof sorted = [];
        let next = 0;
        for (let now = 0; now <= 180_000; now += turnMs) {
          while ((sorted[next]?.at ?? Number.POSITIVE_INFINITY) <= now) {
            const arrived = sorted[next++];
            if (arrived) waiting.push(arrived);
          }
          waiting = waiting.filter((m) => now - m.at <= 60_000);
          const { ordered, held } = share.order(now, waiting);
          if (waiting.length > 0) expect(held.length).toBeLessThan(waiting.length);
          const batch: typeof sorted = [];
          let used = 0;
          for (const m of ordered.slice(0, ordered.length - held.length)) {
            if (batch.length > 0 && used + batchCost(m) > 200) break;
            const inWindow = log.filter((r) => r.at > now - 60_000);
            const readBy = (author: string) =>
              inWindow.filter((r) => r.authorId === author).reduce((s, r) => s + r.chars, 0);
            const total = inWindow.reduce((s, r) => s + r.chars, 0);
            const others = new Set(
              waiting
                .filter((w) => w.authorId !== m.authorId && !batch.includes(w))
                .map((w) => w.authorId),
            );
            const mine = readBy(m.authorId);
            if (others.size >= 2) expect(mine).toBeLessThanOrEqual(total / 3 + 1e-9);
            if (others.size >= 1) {
              const least = [...others].every((o) => mine <= readBy(o));
              expect(least || mine + batchCost(m) <= (total + batchCost(m)) / 3 + 1e-9).toBe(true);
            }
            batch.push(m);
            used += batchCost(m);
            log.push({ at: now, authorId: m.authorId, chars: batchCost(m) });
          }
          share.record(now, batch);
          waiting = waiting.filter((m) => !batch.includes(m));
        }
      }),
    );
  });

  test('held messages keep each chatter’s order and come after every eligible one', () => {
    fc.assert(
      fc.property(chat, (arrivals) => {
        const share = new ChatterShare();
        const waiting = arrivals.map((a, id) => ({ ...a, id, authorName: a.authorId }));
        share.record(0, waiting.slice(0, waiting.length / 2));
        const { ordered, held } = share.order(1000, waiting);
        expect([...ordered].sort((x, y) => x.id - y.id)).toEqual(waiting);
        expect(ordered.slice(ordered.length - held.length)).toEqual(held);
        for (const author of new Set(waiting.map((w) => w.authorId))) {
          const theirs = ordered.filter((m) => m.authorId === author).map((m) => m.id);
          expect(theirs).toEqual([...theirs].sort((x, y) => x - y));
        }
      }),
    );
  });
});
