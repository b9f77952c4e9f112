import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  batchCost,
  ChatBacklog,
  PAID_RUN,
  PAID_WAITING_MAX,
  type PendingMessage,
} from '../../src/reader/backlog.ts';

let next = 0;
const message = (
  authorId: string,
  at: number,
  text = `message ${next}`,
  voiceKey = 'v',
): PendingMessage => ({
  id: String(next++),
  authorId,
  authorName: authorId,
  text,
  kind: 'said',
  at,
  voiceKey,
});
const ids = (messages: readonly PendingMessage[]) => messages.map((m) => m.text);

describe('ChatBacklog', () => {
  test('no batch before the oldest message has waited its hold; then everything goes in one batch, in arrival order', () => {
    const backlog = new ChatBacklog({ holdMs: 1000, batchChars: 1000 });
    backlog.add(message('a', 0, 'a1'));
    backlog.add(message('b', 100, 'b1'));
    backlog.add(message('a', 900, 'a2'));
    expect(backlog.readyAt()).toBe(1000);
    expect(backlog.take(500, 60_000).batch).toEqual([]);
    expect(ids(backlog.take(1100, 60_000).batch)).toEqual(['a1', 'b1', 'a2']);
    expect(backlog.size).toBe(0);
  });

  test('messages older than max-age are dropped as stale, not read', () => {
    const backlog = new ChatBacklog({ holdMs: 0, batchChars: 1000 });
    backlog.add(message('a', 0, 'old'));
    backlog.add(message('b', 50_000, 'fresh'));
    const taken = backlog.take(70_000, 60_000);
    expect(ids(taken.stale)).toEqual(['old']);
    expect(ids(taken.batch)).toEqual(['fresh']);
  });

  test('paid messages (Twitch redemptions, cheers) are never stale: not past max-age, not by the forecast, not trimmed', () => {
    const backlog = new ChatBacklog({ holdMs: 0, batchChars: 1000 });
    backlog.add({ ...message('a', 0, 'paid-old'), paid: true });
    backlog.add(message('b', 0, 'plain-old'));
    backlog.add(message('c', 69_000, 'fresh'));
    expect(backlog.paid).toBe(1);
    expect(ids(backlog.trim(70_000, 60_000, 10_000))).toEqual(['plain-old']);
    backlog.add(message('d', 0, 'plain-old-2'));
    // A forecast that leaves no time at all for anyone: only the paid message is still read.
    const forecast = { aheadMs: 600_000, msPerChar: 1000, heardWithinMs: 1 };
    const taken = backlog.take(70_000, 60_000, forecast);
    expect(ids(taken.stale)).toEqual(['fresh', 'plain-old-2']);
    expect(ids(taken.batch)).toEqual(['paid-old']);
    expect(backlog.paid).toBe(0);
  });

  test('a hype train of paid messages: past PAID_WAITING_MAX they wait as plain chat, counted, never lost silently', () => {
    const backlog = new ChatBacklog({ holdMs: 0, batchChars: 600 });
    const over = 50;
    for (let i = 0; i < PAID_WAITING_MAX + over; i++)
      backlog.add({ ...message(`fan${i}`, 0, `cheer ${i}`), paid: true });
    expect(backlog.size).toBe(PAID_WAITING_MAX + over);
    expect(backlog.paid).toBe(PAID_WAITING_MAX);
    expect(backlog.paidOverCap).toBe(over);
    // Those over the cap go stale as chat does; every paid one below it stays.
    const stale = backlog.trim(120_000, 60_000, 1_000_000);
    expect(stale).toHaveLength(over);
    expect(ids(stale)[0]).toBe(`cheer ${PAID_WAITING_MAX}`);
    expect(backlog.paid).toBe(PAID_WAITING_MAX);
    // Read and gone, the cap frees again.
    while (backlog.paid > 0) backlog.take(120_000, 60_000);
    backlog.add({ ...message('late', 120_000, 'late cheer'), paid: true });
    expect(backlog.paid).toBe(1);
    expect(backlog.paidOverCap).toBe(over);
  });

  test('paid messages waiting do not push plain chat out on arrival (trim counts only the chat)', () => {
    const backlog = new ChatBacklog({ holdMs: 0, batchChars: 600 });
    for (let i = 0; i < 20; i++)
      backlog.add({ ...message(`fan${i}`, 0, 'x'.repeat(100)), paid: true });
    backlog.add(message('a', 1000, 'hello'));
    backlog.add(message('b', 1000, 'hi'));
    expect(backlog.trim(1000, 60_000, 500)).toEqual([]);
    expect(backlog.size).toBe(22);
  });

  test('a stream of paid messages never silences the chat: after PAID_RUN paid batches the chat leads one', () => {
    const cost = batchCost({ text: 'x'.repeat(100), authorName: 'fan00' });
    const backlog = new ChatBacklog({ holdMs: 0, batchChars: 2 * cost });
    // About 40 s of speech a batch of two cheers; chat must be heard within 45 s of posting.
    const forecast = { aheadMs: 0, msPerChar: 20_000 / cost, heardWithinMs: 45_000 };
    let now = 0;
    let fan = 0;
    const leaders: string[] = []; // what each batch read: only paid messages, or some chat
    const chatRead: string[] = [];
    for (let batch = 0; batch < 4 * (PAID_RUN + 1); batch++) {
      // Cheers come faster than speech; a chatter says something each batch.
      for (let i = 0; i < 3; i++)
        backlog.add({ ...message(`fan${fan++}`, now, 'x'.repeat(100)), paid: true });
      backlog.add(message('chatter', now, `chat ${batch}`));
      const taken = backlog.take(now, 60_000, forecast);
      const chat = ids(taken.batch.filter((m) => m.paid !== true));
      leaders.push(chat.length > 0 ? 'chat' : 'paid');
      chatRead.push(...chat);
      now += 40_000;
    }
    const pattern = [...Array<string>(PAID_RUN).fill('paid'), 'chat'];
    expect(leaders).toEqual([...pattern, ...pattern, ...pattern, ...pattern]);
    // The chat of each chat turn is read, and what was posted in the last paid batch before it.
    expect(chatRead).toEqual(expect.arrayContaining(['chat 3', 'chat 7', 'chat 11', 'chat 15']));
    expect(backlog.paid).toBeGreaterThan(0);
  });

  test('when the batch is full, members take turns: a flood does not push others out', () => {
    const backlog = new ChatBacklog({
      holdMs: 0,
      batchChars: 3 * batchCost({ text: 'xx', authorName: 'a' }),
    });
    for (let i = 0; i < 5; i++) backlog.add(message('a', i, `a${i}`.padEnd(2)));
    backlog.add(message('b', 10, 'b0'));
    backlog.add(message('c', 11, 'c0'));
    expect(ids(backlog.take(100, 60_000).batch)).toEqual(['a0', 'b0', 'c0']);
    expect(ids(backlog.take(100, 60_000).batch)).toEqual(['a1', 'a2', 'a3']);
  });

  test('a batch keeps to the voice of its oldest message; others wait, in order', () => {
    const backlog = new ChatBacklog({ holdMs: 0, batchChars: 1000 });
    backlog.add(message('a', 0, 'a1', 'v1'));
    backlog.add(message('b', 1, 'b1', 'v2'));
    backlog.add(message('a', 2, 'a2', 'v1'));
    backlog.add(message('b', 3, 'b2', 'v2'));
    expect(ids(backlog.take(10, 60_000).batch)).toEqual(['a1', 'a2']);
    expect(ids(backlog.take(10, 60_000).batch)).toEqual(['b1', 'b2']);
  });

  test('edits change waiting text; deletes remove it; both say whether the message was here', () => {
    const backlog = new ChatBacklog({ holdMs: 0, batchChars: 1000 });
    const first = message('a', 0, 'typo');
    const second = message('a', 1, 'oops');
    backlog.add(first);
    backlog.add(second);
    expect(backlog.edit(first.id, { text: 'fixed', kind: 'said' })).toBe(true);
    expect(backlog.delete(second.id)).toBe(true);
    expect(backlog.delete('unknown')).toBe(false);
    expect(ids(backlog.take(5, 60_000).batch)).toEqual(['fixed']);
    expect(backlog.edit(first.id, { text: 'late', kind: 'said' })).toBe(false);
  });

  test('requeued messages go back to their places', () => {
    const backlog = new ChatBacklog({ holdMs: 0, batchChars: 1000 });
    backlog.add(message('a', 0, 'a1'));
    backlog.add(message('b', 1, 'b1'));
    const { batch } = backlog.take(5, 60_000);
    backlog.add(message('a', 6, 'a2'));
    backlog.requeue(batch.filter((m) => m.text === 'b1'));
    expect(ids(backlog.take(10, 60_000).batch)).toEqual(['b1', 'a2']);
  });

  test('property: every message is read once or dropped as stale, in order per member, batches within their size', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('add' as const),
        author: fc.constantFrom('a', 'b', 'c', 'd'),
        len: fc.integer({ min: 1, max: 60 }),
        voice: fc.constantFrom('v', 'v', 'w'),
      }),
      fc.record({ kind: fc.constant('take' as const) }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const batchChars = 200;
        const backlog = new ChatBacklog({ holdMs: 1000, batchChars });
        let now = 0;
        const added: PendingMessage[] = [];
        const read: PendingMessage[] = [];
        const stale: PendingMessage[] = [];
        const take = () => {
          const taken = backlog.take(now, 60_000);
          stale.push(...taken.stale);
          read.push(...taken.batch);
          const cost = taken.batch.reduce((sum, m) => sum + batchCost(m), 0);
          if (taken.batch.length > 1) expect(cost).toBeLessThanOrEqual(batchChars);
          expect(new Set(taken.batch.map((m) => m.voiceKey)).size).toBeLessThanOrEqual(1);
          const first = taken.batch[0];
          if (first) expect(now - first.at).toBeGreaterThanOrEqual(1000);
        };
        for (const o of ops) {
          if (o.kind === 'add') {
            const m = message(o.author, now, 'x'.repeat(o.len), o.voice);
            added.push(m);
            backlog.add(m);
          } else if (o.kind === 'take') take();
          else now += o.ms;
        }
        now += 2000;
        while (backlog.size > 0) take();
        const seen = [...read, ...stale].map((m) => m.id).sort();
        expect(seen).toEqual(added.map((m) => m.id).sort());
        for (const author of ['a', 'b', 'c', 'd']) {
          const order = read.filter((m) => m.authorId === author).map((m) => Number(m.id));
          expect(order).toEqual([...order].sort((x, y) => x - y));
        }
      }),
    );
  });

  describe('with a speech forecast', () => {
    // Texts whose batch cost is 30 characters: 3 s of speech at 100 ms per character.
    const text = (name: string) => name.padEnd(30 - 1 - 8, '.');
    const forecast = (aheadMs: number) => ({ aheadMs, msPerChar: 100, heardWithinMs: 10_000 });

    test.each([
      { name: 'all fit', aheadMs: 0, at: [0, 0, 0], read: ['a', 'b', 'c'] },
      { name: 'the fourth would end at 13 s', aheadMs: 0, at: [0, 0, 0, 0], read: ['a', 'b', 'c'] },
      { name: 'behind 5 s of speech only one fits', aheadMs: 5000, at: [0, 0, 0], read: ['a'] },
      {
        name: 'a later message fits after an older one is dropped',
        aheadMs: 0,
        now: 9000,
        at: [0, 8000],
        read: ['b'],
      },
      { name: 'nothing fits behind 10 s', aheadMs: 10_000, at: [0, 500], read: [] },
    ])('$name', ({ aheadMs, at, read, now = 1000 }) => {
      const backlog = new ChatBacklog({ holdMs: 0, batchChars: 10_000 });
      const names = ['a', 'b', 'c', 'd'];
      at.forEach((time, i) => {
        backlog.add(message(names[i] ?? 'x', time, text(names[i] ?? 'x')));
      });
      const taken = backlog.take(now, 60_000, forecast(aheadMs));
      expect(taken.batch.map((m) => m.authorId)).toEqual(read);
      expect(taken.stale.length).toBe(at.length - read.length);
      expect(backlog.size).toBe(0);
    });

    test('property: a chat faster than speech, played as forecast, is heard within max-age and never falls further behind', () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              gap: fc.integer({ min: 0, max: 3000 }),
              len: fc.integer({ min: 1, max: 80 }),
            }),
            {
              minLength: 1,
              maxLength: 120,
            },
          ),
          fc.integer({ min: 5000, max: 120_000 }),
          fc.integer({ min: 20, max: 120 }),
          (chat, maxAgeMs, msPerChar) => {
            const backlog = new ChatBacklog({ holdMs: 0, batchChars: 600 });
            let at = 0;
            const posts = chat.map(({ gap, len }, i) => {
              at += gap;
              return message(`m${i % 5}`, at, 'x'.repeat(len));
            });
            let now = 0;
            let next = 0;
            let handled = 0;
            while (handled < posts.length) {
              while (next < posts.length && (posts[next]?.at ?? 0) <= now) {
                const post = posts[next++];
                if (post) backlog.add(post);
              }
              const taken = backlog.take(now, 3_600_000, {
                aheadMs: 0,
                msPerChar,
                heardWithinMs: maxAgeMs,
              });
              handled += taken.batch.length + taken.stale.length;
              let end = now;
              for (const m of taken.batch) {
                end += batchCost(m) * msPerChar;
                expect(end - m.at).toBeLessThanOrEqual(maxAgeMs + 1e-6);
              }
              now = taken.batch.length > 0 ? end : now + 100;
            }
            // Drained within max-age of the last post, however fast the chat was.
            expect(now).toBeLessThanOrEqual(Math.max(at + maxAgeMs, at + 100) + 1e-6);
          },
        ),
      );
    });
  });

  test.each([
    ['older than max-age go, oldest first', 70_000, 60_000, 10_000, ['b', 'c']],
    ['past the character cap the oldest go, the newest stays', 30_000, 60_000, 1, ['c']],
    ['within both, nothing goes', 30_000, 60_000, 10_000, ['a', 'b', 'c']],
  ])('trim: %s', (_, now, maxAgeMs, maxChars, left) => {
    const backlog = new ChatBacklog({ holdMs: 0, batchChars: 1000 });
    backlog.add(message('x', 0, 'a'));
    backlog.add(message('y', 20_000, 'b'));
    backlog.add(message('z', 25_000, 'c'));
    const stale = backlog.trim(now, maxAgeMs, maxChars);
    expect(stale.length + backlog.size).toBe(3);
    expect(ids(backlog.take(now, maxAgeMs).batch)).toEqual(left);
  });

  test('property: the characters waiting stay the sum of what each message costs, through every change', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), text: fc.string({ maxLength: 30 }) }),
      fc.record({ kind: fc.constant('edit' as const), index: fc.nat(20), text: fc.string() }),
      fc.record({ kind: fc.constant('delete' as const), index: fc.nat(20) }),
      fc.record({ kind: fc.constant('take' as const), requeue: fc.boolean() }),
      fc.record({ kind: fc.constant('trim' as const), maxChars: fc.nat(300) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.nat(10), (ops, glue) => {
        const backlog = new ChatBacklog({ holdMs: 0, batchChars: 100 });
        const waiting = new Map<string, PendingMessage>();
        const added: string[] = [];
        for (const o of ops) {
          if (o.kind === 'add') {
            const m = message(`a${added.length % 3}`, added.length, o.text);
            backlog.add(m);
            waiting.set(m.id, m);
            added.push(m.id);
          } else if (o.kind === 'edit' || o.kind === 'delete') {
            const id = added[o.index % Math.max(1, added.length)] ?? '';
            const here = waiting.get(id);
            if (o.kind === 'edit') {
              expect(backlog.edit(id, { text: o.text, kind: 'said' })).toBe(here !== undefined);
              if (here !== undefined) waiting.set(id, { ...here, text: o.text });
            } else {
              expect(backlog.delete(id)).toBe(here !== undefined);
              waiting.delete(id);
            }
          } else if (o.kind === 'take') {
            const { batch, stale } = backlog.take(added.length, 60_000);
            for (const m of [...batch, ...stale]) waiting.delete(m.id);
            if (o.requeue) {
              backlog.requeue(batch);
              for (const m of batch) waiting.set(m.id, m);
            }
          } else {
            for (const m of backlog.trim(added.length, 60_000, o.maxChars, glue))
              waiting.delete(m.id);
          }
          const sum = [...waiting.values()].reduce((n, m) => n + batchCost(m, glue), 0);
          expect(backlog.chars(glue)).toBe(sum);
          expect(backlog.size).toBe(waiting.size);
          for (const id of added) expect(backlog.has(id)).toBe(waiting.has(id));
        }
      }),
    );
  });
});
