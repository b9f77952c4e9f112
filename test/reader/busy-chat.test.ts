/**
 * The busy-chat wiring's pure parts (issue 19): what the backlog takes with a fair order and
 * repeats riding together, the chorus line in a batch, the new-member rule, and the new
 * `/config reader` and `block-word` options.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { english } from '../../src/i18n/index.ts';
import { ChatBacklog, type PendingMessage } from '../../src/reader/backlog.ts';
import { ChatterShare } from '../../src/reader/chatter-share.ts';
import { composeBatch } from '../../src/reader/compose.ts';
import {
  addBlockedWord,
  applyReaderOptions,
  describeReader,
  removeBlockedWord,
  toggleNotes,
} from '../../src/reader/config.ts';
import { type MessageFacts, readDecision } from '../../src/reader/filter.ts';
import { ENGLISH_PHRASES } from '../../src/reader/phrases.ts';
import { priorityFirst } from '../../src/reader/priority.ts';
import { repeatKey } from '../../src/reader/repeats.ts';
import { UserError } from '../../src/refusal/index.ts';
import { defaultReaderSettings, READER_BOUNDS } from '../../src/store/index.ts';

interface Message extends PendingMessage {
  readonly priority?: boolean;
}

let next = 0;
const message = (authorId: string, at: number, text: string, priority = false): Message => ({
  id: String(next++),
  authorId,
  authorName: authorId,
  text,
  kind: 'said',
  at,
  voiceKey: 'v',
  priority,
});
const texts = (messages: readonly PendingMessage[]) => messages.map((m) => m.text);
const byRepeat = { repeatKey: (m: PendingMessage) => repeatKey(m.text) };

describe('ChatBacklog.take with a plan', () => {
  test('repeats ride with the first message saying the same, whoever sent them, at no cost', () => {
    const backlog = new ChatBacklog<Message>({ holdMs: 0, batchChars: 60 });
    for (const [author, text] of [
      ['a', 'LUL'],
      ['b', 'hello there'],
      ['c', 'lul!!'],
      ['d', 'LULLL'],
      ['e', 'Lul lul'],
    ] as const)
      backlog.add(message(author, 0, text));
    // 60 characters hold two messages; the three repeats come along with the first "LUL".
    const taken = backlog.take(10, 60_000, undefined, byRepeat);
    expect(texts(taken.batch)).toEqual(['LUL', 'hello there', 'lul!!', 'LULLL', 'Lul lul']);
    expect(backlog.size).toBe(0);
  });

  test('a repeat costs nothing in the forecast, so a chant does not make the rest stale', () => {
    const forecast = { aheadMs: 0, msPerChar: 100, heardWithinMs: 5_000 };
    const fill = (plan?: typeof byRepeat) => {
      const backlog = new ChatBacklog<Message>({ holdMs: 0, batchChars: 10_000 });
      for (let i = 0; i < 5; i++) backlog.add(message(`m${i}`, 0, 'LUL'));
      backlog.add(message('z', 0, 'the one real question'));
      return backlog.take(10, 60_000, forecast, plan);
    };
    expect(texts(fill().stale)).toContain('the one real question');
    expect(fill(byRepeat).stale).toEqual([]);
  });

  test('a chorus is on time when its newest voice hears it in time', () => {
    const forecast = { aheadMs: 4_000, msPerChar: 100, heardWithinMs: 6_000 };
    const backlog = new ChatBacklog<Message>({ holdMs: 0, batchChars: 10_000 });
    backlog.add(message('a', 0, 'LUL'));
    backlog.add(message('b', 2_900, 'lul'));
    // Heard at 8.2 s: late for "LUL" alone (posted at 0), in time for "lul" (posted at 2.9 s).
    const taken = backlog.take(3_000, 60_000, forecast, byRepeat);
    expect(texts(taken.batch)).toEqual(['LUL', 'lul']);
    expect(taken.stale).toEqual([]);
    const alone = new ChatBacklog<Message>({ holdMs: 0, batchChars: 10_000 });
    alone.add(message('a', 0, 'LUL'));
    expect(texts(alone.take(3_000, 60_000, forecast, byRepeat).stale)).toEqual(['LUL']);
  });

  test('held messages are timed last (first to go stale) and never taken while others wait', () => {
    const run = (fair: boolean) => {
      const backlog = new ChatBacklog<Message>({ holdMs: 0, batchChars: 10_000 });
      for (let i = 0; i < 4; i++) backlog.add(message('flood', 0, `flood ${i} lorem ipsum`));
      backlog.add(message('b', 0, 'b one lorem ipsum dolor'));
      const share = new ChatterShare();
      // Each line is 32 characters as a batch counts them: 3.2 s of speech.
      const forecast = { aheadMs: 0, msPerChar: 100, heardWithinMs: 7_000 };
      const order = (waiting: readonly Message[]) => share.order(10, waiting);
      return backlog.take(10, 60_000, forecast, fair ? { order } : {});
    };
    const fair = run(true);
    expect(texts(fair.batch)).toEqual(['flood 0 lorem ipsum', 'b one lorem ipsum dolor']);
    expect(texts(fair.stale)).toEqual([
      'flood 1 lorem ipsum',
      'flood 2 lorem ipsum',
      'flood 3 lorem ipsum',
    ]);
    // In arrival order alone, the flood's second line pushes the other member's out.
    expect(texts(run(false).stale)).toContain('b one lorem ipsum dolor');
  });

  test('priority messages are read first when the batch cannot hold everything', () => {
    const backlog = new ChatBacklog<Message>({ holdMs: 0, batchChars: 40 });
    backlog.add(message('a', 0, 'first in line here'));
    backlog.add(message('mod', 5, 'moderator speaking', true));
    const priority = (m: Message) => m.priority === true;
    const taken = backlog.take(10, 60_000, undefined, {
      order: (waiting) => ({ ordered: priorityFirst(waiting, priority), held: [] }),
    });
    expect(texts(taken.batch)).toEqual(['moderator speaking']);
  });

  test('property: every message is taken, held for later or stale, once', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('LUL', 'hi', 'gg', 'x')),
          {
            maxLength: 30,
          },
        ),
        (lines) => {
          const backlog = new ChatBacklog<Message>({ holdMs: 0, batchChars: 80 });
          const share = new ChatterShare();
          for (const [author, text] of lines) backlog.add(message(author, 0, text));
          const seen: string[] = [];
          for (let round = 0; round < 100 && backlog.size > 0; round++) {
            const taken = backlog.take(round + 1, 60_000, undefined, {
              ...byRepeat,
              order: (waiting) => share.order(round + 1, waiting),
            });
            share.record(round + 1, taken.batch);
            seen.push(...[...taken.batch, ...taken.stale].map((m) => m.id));
          }
          expect(backlog.size).toBe(0);
          expect(new Set(seen).size).toBe(lines.length);
          expect(seen.length).toBe(lines.length);
        },
      ),
    );
  });
});

describe('a chorus in a batch', () => {
  test('is read without "Bobby said", and the next message says who speaks again', () => {
    const lines = [
      { authorId: 'b', authorName: 'Bobby', text: 'hi all', kind: 'said' as const, at: 0 },
      {
        authorId: 'x',
        authorName: '',
        text: '4 people said LUL.',
        kind: 'said' as const,
        at: 1,
        crowd: true,
      },
      { authorId: 'b', authorName: 'Bobby', text: 'so true', kind: 'said' as const, at: 2 },
    ];
    const { text, last } = composeBatch(lines, {
      saidPrefix: true,
      minLength: 10,
      last: undefined,
      phrases: ENGLISH_PHRASES,
    });
    expect(text).toBe('Bobby said hi all. 4 people said LUL. Bobby said so true.');
    expect(last).toEqual({ authorId: 'b', at: 2 });
  });

  test('alone and short, it gets the preface, never a prefix', () => {
    const chorus = {
      authorId: 'x',
      authorName: '',
      text: '2 people said gg.',
      kind: 'said' as const,
      at: 0,
      crowd: true,
    };
    const { text } = composeBatch([chorus], {
      saidPrefix: true,
      minLength: 30,
      last: undefined,
      phrases: ENGLISH_PHRASES,
    });
    expect(text).toBe(`${ENGLISH_PHRASES.preface} 2 people said gg.`);
  });
});

describe('new-member-delay', () => {
  const facts: MessageFacts = {
    channelId: 'text',
    authorId: 'bob',
    self: false,
    bot: false,
    webhook: false,
    roleIds: [],
    authorVoiceChannelId: 'voice',
    content: 'hello there',
  };
  const settings = { ...defaultReaderSettings(), channels: ['text'], newMemberDelayMs: 600_000 };
  test.each([
    ['joined a minute ago', 60_000, 600_000, { read: false, why: 'new-member' }],
    ['joined eleven minutes ago', 660_000, 600_000, { read: true }],
    ['the rule off', 60_000, 0, { read: true }],
    ['joined when unknown', undefined, 600_000, { read: true }],
  ])('%s', (_, ago, delay, decision) => {
    const now = 10_000_000;
    const joinedAt = ago === undefined ? undefined : now - ago;
    const result = readDecision(
      { ...facts, joinedAt },
      { ...settings, newMemberDelayMs: delay },
      'voice',
      now,
    );
    expect(result).toEqual(decision);
  });
});

describe('the new /config reader options', () => {
  const defaults = defaultReaderSettings();
  test('defaults: skip, no priority role, ×1.5, no new-member delay', () => {
    expect(defaults).toMatchObject({
      blocked: 'skip',
      priorityRoles: [],
      maxSpeed: 1.5,
      newMemberDelayMs: 0,
    });
  });

  test.each([
    [{ blocked: 'bleep' as const }, { blocked: 'bleep' }],
    [{ priorityRole: '42' }, { priorityRoles: ['42'] }],
    [{ maxSpeed: 1 }, { maxSpeed: 1 }],
    [{ maxSpeed: 3 }, { maxSpeed: 2 }],
    [{ newMemberDelay: '10m' }, { newMemberDelayMs: 600_000 }],
    [{ newMemberDelay: 'off' }, { newMemberDelayMs: 0 }],
  ])('%j → %j', (input, change) => {
    expect(applyReaderOptions(defaults, input)).toMatchObject(change);
  });

  test('priority-role toggles, and says so', () => {
    const once = applyReaderOptions(defaults, { priorityRole: '42' });
    expect(applyReaderOptions(once, { priorityRole: '42' }).priorityRoles).toEqual([]);
    expect(toggleNotes(english, defaults, { priorityRole: '42' })).toEqual([
      'Members with <@&42> are now read first.',
    ]);
  });

  test.each(['soon', '99999h'])('new-member-delay %j is refused', (value) => {
    expect(() => applyReaderOptions(defaults, { newMemberDelay: value })).toThrow(UserError);
  });

  test('every rule is shown', () => {
    const shown = describeReader(english, { ...defaults, newMemberDelayMs: 600_000 }, 3);
    expect(shown).toContain('**blocked:** skip');
    expect(shown).toContain('**Blocked words:** 3');
    expect(shown).toContain('**Priority roles:** none');
    expect(shown).toContain('**max-speed:** ×1.5');
    expect(shown).toContain('**new-member-delay:** 10m');
  });
});

describe('block-word add and remove', () => {
  test('adds once in any case, removes in any case', () => {
    const words = addBlockedWord(addBlockedWord([], 'Darn'), 'DARN');
    expect(words).toEqual(['Darn']);
    expect(removeBlockedWord(words, 'darn')).toEqual({ words: [], removed: true });
    expect(removeBlockedWord(words, 'heck')).toEqual({ words: ['Darn'], removed: false });
  });

  test.each(['', '   ', '!!!', 'x'.repeat(READER_BOUNDS.blockedWordLength + 1)])(
    '%j is refused',
    (word) => {
      expect(() => addBlockedWord([], word)).toThrow(UserError);
    },
  );

  test('refused past the limit', () => {
    const full = Array.from({ length: READER_BOUNDS.blockedWords }, (_, i) => `w${i}`);
    expect(() => addBlockedWord(full, 'one more')).toThrow(UserError);
  });
});
