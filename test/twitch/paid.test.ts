/**
 * Issue 30's pure parts on the Twitch side: the tags of a redemption and a cheer, a cheer's text
 * without its cheermotes, and the chat commands (`!voice`, `!tts …`).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { withoutCheermotes } from '../../src/twitch/cheers.ts';
import { chatCommandOf, mayControl } from '../../src/twitch/commands.ts';
import { chatEventOf } from '../../src/twitch/events.ts';
import { parseLine } from '../../src/twitch/irc.ts';
import { privmsgLine } from '../fake-twitch/lines.ts';

const message = (line: string) => {
  const parsed = parseLine(line);
  if (parsed === undefined) throw new Error('not a line');
  const event = chatEventOf(parsed, 1);
  if (event?.kind !== 'message') throw new Error('not a message');
  return event;
};

describe('the tags of a redemption and a cheer', () => {
  test('any reward id (custom-reward-id) and any bits are carried; absent on plain chat', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 1, max: 10_000_000 }), (rewardId, bits) => {
        const base = { id: 'm', login: 'ronni', userId: '7' };
        const redeemed = message(privmsgLine('c', '1', { ...base, text: 'read me', rewardId }));
        expect(redeemed.rewardId).toBe(rewardId);
        expect(redeemed.bits).toBeUndefined();
        const cheered = message(privmsgLine('c', '1', { ...base, text: `Cheer${bits} hi`, bits }));
        expect(cheered.bits).toBe(bits);
        expect(cheered.rewardId).toBeUndefined();
        const plain = message(privmsgLine('c', '1', { ...base, text: 'hi' }));
        expect(plain).not.toHaveProperty('bits');
        expect(plain).not.toHaveProperty('rewardId');
      }),
      { numRuns: 50 },
    );
  });

  test.each(['0', '-5', 'abc', '1.5', ''])('bits=%j is no cheer', (bits) => {
    const line = `@bits=${bits};id=m;user-id=7 :ronni!ronni@ronni.tmi.twitch.tv PRIVMSG #c :Cheer1 x`;
    expect(message(line).bits).toBeUndefined();
  });
});

describe('withoutCheermotes', () => {
  test.each([
    ['Cheer100 great stream', 100, 'great stream'],
    ['great Cheer100 stream Cheer50', 150, 'great stream'],
    ['Kappa50 BibleThump1 cheer49 thanks', 100, 'thanks'],
    ['Cheer100', 100, ''],
    // A channel's own cheermote: the amounts add up to the bits.
    ['ronniHype250 lets go', 250, 'lets go'],
    // An ordinary letters-and-digits word is kept when the amounts say it is not one.
    ['my mp3 player Cheer100', 100, 'my mp3 player'],
    ['ps4 or xbox1 Cheer10 ronniHype5', 15, 'ps4 or xbox1'],
    ['covid19 is over Cheer1', 1, 'covid19 is over'],
    // Words that are not letters-then-amount are never touched.
    ['100 Cheer0 Cheer01 3d Cheer100x C-3PO Cheer5', 5, '100 Cheer0 Cheer01 3d Cheer100x C-3PO'],
  ])('%j (%i bits) → %j', (text, bits, expected) => {
    expect(withoutCheermotes(text, bits)).toBe(expected);
  });

  test('without a bits tag nothing is stripped, Cheer100 included', () => {
    expect(withoutCheermotes('I typed Cheer100 for fun', undefined)).toBe(
      'I typed Cheer100 for fun',
    );
  });

  const ordinary = fc.stringMatching(/^[a-z]{1,8}$/);
  const known = fc.constantFrom('Cheer', 'cheer', 'Kappa', 'BibleThump', 'SeemsGood', 'PogChamp');
  test('property: global cheermotes adding up to the bits go, every other word stays in order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            ordinary,
            // letters-and-digits words that are not cheermotes (unknown prefixes)
            fc
              .tuple(
                fc.constantFrom('mp', 'ps', 'xbox', 'covid', 'gta'),
                fc.integer({ min: 1, max: 99 }),
              )
              .map(([p, n]) => `${p}${n}`),
          ),
          { maxLength: 10 },
        ),
        fc.array(fc.tuple(known, fc.integer({ min: 1, max: 10_000 })), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.integer(),
        (words, cheers, seed) => {
          const prefixes = cheers.filter(([prefix]) => prefix !== 'PogChamp');
          fc.pre(prefixes.length === cheers.length);
          const bits = cheers.reduce((sum, [, amount]) => sum + amount, 0);
          const tokens = cheers.map(([prefix, amount]) => `${prefix}${amount}`);
          // Cheermotes anywhere among the words.
          const mixed = [...words];
          tokens.forEach((token, i) => {
            mixed.splice(Math.abs(seed + i * 7) % (mixed.length + 1), 0, token);
          });
          expect(withoutCheermotes(mixed.join(' '), bits)).toBe(words.join(' '));
        },
      ),
    );
  });

  test('property: a word that is not letters then an amount is never stripped', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1, maxLength: 12 }).filter((w) => !/\s/.test(w)),
          { maxLength: 12 },
        ),
        fc.integer({ min: 1, max: 1_000_000 }),
        (words, bits) => {
          const kept = withoutCheermotes(words.join(' '), bits).split(' ');
          for (const word of words)
            if (!/^[A-Za-z]+[1-9]\d*$/.test(word)) expect(kept).toContain(word);
        },
      ),
    );
  });
});

describe('chat commands', () => {
  test.each([
    ['!voice Lily', '!', { kind: 'voice', name: 'Lily' }],
    ['!VOICE   deep narrator ', '!', { kind: 'voice', name: 'deep narrator' }],
    ['!voice', '!', { kind: 'voice', name: undefined }],
    ['!tts skip', '!', { kind: 'skip' }],
    ['!TTS Pause', '!', { kind: 'pause' }],
    ['!tts resume', '!', { kind: 'resume' }],
    ['!tts mute @Some_Troll', '!', { kind: 'mute', login: 'some_troll' }],
    ['!tts unmute some_troll', '!', { kind: 'unmute', login: 'some_troll' }],
    ['!tts mute', '!', { kind: 'unknown' }],
    ['!tts mute not/a/login', '!', { kind: 'unknown' }],
    ['!tts skip now please', '!', { kind: 'unknown' }],
    ['!tts dance', '!', { kind: 'unknown' }],
    ['?tts skip', '?', { kind: 'skip' }],
    ['!tts skip', '?', undefined],
    ['!ttsskip', '!', undefined],
    ['!discord', '!', undefined],
    ['hello !tts skip', '!', undefined],
    ['voice Lily', '!', undefined],
  ])('%j with prefix %j → %j', (text, prefix, command) => {
    expect(chatCommandOf(text, prefix)).toEqual(command);
  });

  test.each([
    [['broadcaster'], true],
    [['moderator', 'subscriber'], true],
    [['vip'], false],
    [['subscriber'], false],
    [[], false],
  ])('badges %j may control: %j', (badges, may) => {
    expect(mayControl(badges)).toBe(may);
  });
});
