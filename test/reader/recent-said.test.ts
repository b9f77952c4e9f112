import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { RecentSaid } from '../../src/reader/recent-said.ts';

describe('RecentSaid', () => {
  test('keeps what an author said, in order, within the time kept', () => {
    const recent = new RecentSaid({ keepMs: 1_000, chars: 100, authors: 10 });
    recent.said('g:a', 'm1', 'f', 0);
    recent.said('g:a', 'm2', 'u', 100);
    recent.said('g:b', 'm3', 'other', 150);
    expect(recent.before('g:a', 200)).toBe('f u');
    expect(recent.before('g:b', 200)).toBe('other');
    // Measured from the author's last message: a minute of quiet forgets it.
    expect(recent.before('g:a', 1_100)).toBe('f u');
    expect(recent.before('g:a', 1_101)).toBe('');
  });

  test('keeps the last characters only, and the authors heard from last', () => {
    const recent = new RecentSaid({ keepMs: 1_000, chars: 5, authors: 2 });
    recent.said('g:a', 'm4', 'hello there', 0);
    expect(recent.before('g:a', 0)).toBe('there');
    recent.said('g:b', 'm5', 'b', 1);
    recent.said('g:a', 'm6', 'again', 2);
    recent.said('g:c', 'm7', 'c', 3);
    expect(recent.before('g:b', 3)).toBe('');
    expect(recent.before('g:a', 3)).toBe('again');
  });

  test('an edited message: screened after what came before it, and its new text kept in its place', () => {
    const recent = new RecentSaid({ keepMs: 1_000, chars: 100, authors: 10 });
    recent.said('g:a', 'm1', 'f', 0);
    recent.said('g:a', 'm2', 'u', 1);
    recent.said('g:a', 'm3', 'x', 2);
    recent.said('g:a', 'm4', 'later', 3);
    expect(recent.before('g:a', 4, 'm3')).toBe('f u');
    // A message no longer remembered is screened after all there is.
    expect(recent.before('g:a', 4, 'gone')).toBe('f u x later');
    expect(recent.after('g:a', 4, 'm3')).toBe('later');
    expect(recent.after('g:a', 4, 'gone')).toBe('');
    recent.said('g:a', 'm3', 'c', 4);
    expect(recent.before('g:a', 4)).toBe('f u c later');
    recent.unsaid('g:a', 'm3', 5);
    expect(recent.before('g:a', 5)).toBe('f u later');
  });

  test('forgets a server', () => {
    const recent = new RecentSaid();
    recent.said('g1:a', 'm8', 'x', 0);
    recent.said('g2:a', 'm9', 'y', 0);
    recent.forget('g1:');
    expect(recent.before('g1:a', 0)).toBe('');
    expect(recent.before('g2:a', 0)).toBe('y');
  });

  test('property: bounded in authors and characters however much is said', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.string({ maxLength: 40 })), {
          maxLength: 200,
        }),
        (said) => {
          const recent = new RecentSaid({ keepMs: 10_000, chars: 16, authors: 8 });
          for (const [at, [author, text]] of said.entries())
            recent.said(`g:${author}`, String(at), text, at);
          let remembered = 0;
          for (let author = 0; author <= 30; author++) {
            const tail = recent.before(`g:${author}`, said.length);
            expect(tail.length).toBeLessThanOrEqual(16);
            if (tail !== '') remembered++;
          }
          expect(remembered).toBeLessThanOrEqual(8);
        },
      ),
    );
  });
});
