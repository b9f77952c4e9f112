/**
 * What a server does with a Twitch message (issue 30): the read modes, paid messages, mutes,
 * pause and who may command; the settings chat commands and `/config twitch read` change.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { applyTwitchRead, twitchRewardId, withReward } from '../../src/reader/twitch-options.ts';
import {
  afterCommand,
  chosenVoice,
  type TwitchFacts,
  twitchTake,
} from '../../src/reader/twitch-take.ts';
import { UserError } from '../../src/refusal/index.ts';
import {
  defaultTwitchSettings,
  TWITCH_BOUNDS,
  TWITCH_READ_MODES,
  type TwitchSettings,
} from '../../src/store/index.ts';

const REWARD = 'b1a5c0de-4a4a-4b4b-8c8c-0123456789ab';
const settings = (change: Partial<TwitchSettings> = {}): TwitchSettings => ({
  ...defaultTwitchSettings(),
  rewardId: REWARD,
  ...change,
});
const facts = (change: Partial<TwitchFacts> = {}): TwitchFacts => ({
  channel: 'streamer',
  text: 'hello there',
  login: 'viewer',
  badges: new Set<string>(),
  ...change,
});

const plain = facts();
const redeem = facts({ rewardId: REWARD, text: 'read my redemption' });
const otherReward = facts({ rewardId: 'ffffffff-0000-4000-8000-000000000000', text: 'other' });
const cheer = facts({ bits: 500, text: 'Cheer500 great stream' });
const smallCheer = facts({ bits: 50, text: 'Cheer50 hi' });

describe('read modes', () => {
  test.each([
    // mode, message, read?, paid?
    ['chat', plain, true, false],
    ['chat', redeem, true, true],
    ['chat', otherReward, true, false],
    ['chat', cheer, true, true],
    ['chat', smallCheer, true, false],
    ['redeems', plain, false, false],
    ['redeems', redeem, true, true],
    ['redeems', otherReward, false, false],
    ['redeems', cheer, false, false],
    ['cheers', plain, false, false],
    ['cheers', redeem, false, false],
    ['cheers', cheer, true, true],
    ['cheers', smallCheer, false, false],
    ['redeems-cheers', plain, false, false],
    ['redeems-cheers', redeem, true, true],
    ['redeems-cheers', cheer, true, true],
    ['redeems-cheers', smallCheer, false, false],
  ] as const)('%s: %o → read %j, paid %j', (read, message, isRead, paid) => {
    const take = twitchTake(message, settings({ read, minBits: 100 }));
    expect(take.kind).toBe(isRead ? 'read' : 'skip');
    if (take.kind === 'read') expect(take.paid).toBe(paid);
    else expect(take).toEqual({ kind: 'skip', why: 'mode' });
  });

  test('a cheer is read without its cheermotes, with its bits; under min-bits as plain chat', () => {
    expect(twitchTake(cheer, settings({ minBits: 100 }))).toEqual({
      kind: 'read',
      text: 'great stream',
      paid: true,
      bits: 500,
    });
    expect(twitchTake(smallCheer, settings({ minBits: 100 }))).toEqual({
      kind: 'read',
      text: 'hi',
      paid: false,
    });
  });

  test('with no reward set, redeems reads nothing', () => {
    expect(twitchTake(redeem, withReward(settings({ read: 'redeems' }), undefined)).kind).toBe(
      'skip',
    );
  });

  test('property: redeems reads exactly the redemptions of the server’s reward, any id', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.option(fc.uuid(), { nil: undefined }), (reward, sent) => {
        const take = twitchTake(
          facts({ ...(sent === undefined ? {} : { rewardId: sent }) }),
          settings({ read: 'redeems', rewardId: reward }),
        );
        expect(take.kind === 'read').toBe(sent === reward);
      }),
    );
  });

  test('property: a cheer is paid exactly when its bits reach min-bits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(...TWITCH_READ_MODES),
        (bits, minBits, read) => {
          const take = twitchTake(
            facts({ bits, text: `Cheer${bits} hey` }),
            settings({ read, minBits }),
          );
          const wanted =
            read === 'chat' ||
            ((read === 'cheers' || read === 'redeems-cheers') && bits >= minBits);
          expect(take.kind).toBe(wanted ? 'read' : 'skip');
          if (take.kind === 'read') {
            expect(take.paid).toBe(bits >= minBits);
            expect(take.text).toBe('hey');
          }
        },
      ),
    );
  });
});

describe('mutes, pause and commands', () => {
  test('property: a muted chatter (neither broadcaster nor moderator) is never read nor obeyed, whatever they write', () => {
    const plainBadges = fc.subarray(['vip', 'subscriber', 'founder']).map((b) => new Set(b));
    fc.assert(
      fc.property(
        fc.string(),
        plainBadges,
        fc.constantFrom(...TWITCH_READ_MODES),
        fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
        (text, chatterBadges, read, bits) => {
          const take = twitchTake(
            facts({
              text,
              login: 'Troll_1',
              badges: chatterBadges,
              rewardId: REWARD,
              ...(bits === undefined ? {} : { bits }),
            }),
            settings({ read, muted: ['troll_1'] }),
          );
          expect(take).toEqual({ kind: 'skip', why: 'muted' });
        },
      ),
    );
  });

  test('a muted moderator’s !tts still works (resume, unmute), their chat is still not read', () => {
    const muted = settings({ muted: ['mod'], paused: true });
    const mod = (text: string) => facts({ text, login: 'Mod', badges: new Set(['moderator']) });
    expect(twitchTake(mod('!tts resume'), muted)).toEqual({
      kind: 'command',
      command: { kind: 'resume' },
    });
    expect(twitchTake(mod('!tts unmute mod'), muted)).toEqual({
      kind: 'command',
      command: { kind: 'unmute', login: 'mod' },
    });
    expect(twitchTake(mod('hello chat'), muted)).toEqual({ kind: 'skip', why: 'muted' });
  });

  test('the broadcaster is never muted: read, and obeyed, even when their login was stored muted', () => {
    const muted = settings({ muted: ['streamer'] });
    const byLogin = facts({ login: 'Streamer', text: 'hi chat' });
    expect(twitchTake(byLogin, muted).kind).toBe('read');
    const byBadge = facts({ login: 'streamer', text: '!tts unmute streamer' });
    expect(twitchTake({ ...byBadge, badges: new Set(['broadcaster']) }, muted)).toEqual({
      kind: 'command',
      command: { kind: 'unmute', login: 'streamer' },
    });
  });

  test('a moderator’s mute of the broadcaster is refused: nothing stored', () => {
    const base = defaultTwitchSettings();
    expect(
      afterCommand(base, { kind: 'mute', login: 'streamer' }, 'streamer', { muted: 5 }),
    ).toBeUndefined();
    expect(
      afterCommand(base, { kind: 'mute', login: 'troll' }, 'streamer', { muted: 5 })?.muted,
    ).toEqual(['troll']);
  });

  test('property: !tts from a chatter without the broadcaster or moderator badge does nothing and is not read', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('skip', 'pause', 'resume', 'mute someone', 'unmute someone', 'dance'),
        fc.subarray(['vip', 'subscriber', 'founder']),
        (action, held) => {
          const take = twitchTake(
            facts({ text: `!tts ${action}`, badges: new Set(held) }),
            settings(),
          );
          expect(take).toEqual({ kind: 'skip', why: 'not-allowed' });
        },
      ),
    );
  });

  test.each([['broadcaster'], ['moderator']])('%s may command', (badge) => {
    const take = twitchTake(
      facts({ text: '!tts mute troll', badges: new Set([badge]) }),
      settings(),
    );
    expect(take).toEqual({ kind: 'command', command: { kind: 'mute', login: 'troll' } });
  });

  test('anyone may choose a voice; commands work while paused (resume), chat is not read', () => {
    expect(twitchTake(facts({ text: '!voice Lily' }), settings()).kind).toBe('command');
    const paused = settings({ paused: true });
    expect(twitchTake(plain, paused)).toEqual({ kind: 'skip', why: 'paused' });
    expect(twitchTake(redeem, paused)).toEqual({ kind: 'skip', why: 'paused' });
    const resume = facts({ text: '!tts resume', badges: new Set(['moderator']) });
    expect(twitchTake(resume, paused)).toEqual({ kind: 'command', command: { kind: 'resume' } });
  });

  test('the prefix is the setting’s', () => {
    const mod = new Set(['moderator']);
    expect(
      twitchTake(facts({ text: '!tts skip', badges: mod }), settings({ prefix: '?' })).kind,
    ).toBe('read');
    expect(
      twitchTake(facts({ text: '?tts skip', badges: mod }), settings({ prefix: '?' })).kind,
    ).toBe('command');
  });
});

describe('afterCommand', () => {
  const bounds = { muted: 2 };
  const base = defaultTwitchSettings();

  test('!voice is kept apart (its own records): nothing in the server’s settings', () => {
    expect(afterCommand(base, { kind: 'voice', name: 'lily' }, 'streamer', bounds)).toBeUndefined();
    expect(
      afterCommand(base, { kind: 'voice', name: undefined }, 'streamer', bounds),
    ).toBeUndefined();
  });

  test('chosen voices an earlier version kept in the record are read; ids an object inherits find nothing', () => {
    const legacy = settings({ voices: { '11': 'voice-lily' } });
    expect(chosenVoice(legacy, '11')).toBe('voice-lily');
    for (const id of ['constructor', '__proto__', 'toString', 'hasOwnProperty'])
      expect(chosenVoice(legacy, id), id).toBeUndefined();
  });

  test('mute, unmute, pause, resume; skip, unknown and what changes nothing store nothing', () => {
    const muted = afterCommand(base, { kind: 'mute', login: 'troll' }, 'streamer', bounds);
    expect(muted?.muted).toEqual(['troll']);
    expect(
      afterCommand(muted ?? base, { kind: 'mute', login: 'troll' }, 'streamer', bounds),
    ).toBeUndefined();
    expect(
      afterCommand(muted ?? base, { kind: 'unmute', login: 'troll' }, 'streamer', bounds)?.muted,
    ).toEqual([]);
    expect(afterCommand(base, { kind: 'pause' }, 'streamer', bounds)?.paused).toBe(true);
    expect(
      afterCommand(settings({ paused: true }), { kind: 'resume' }, 'streamer', bounds)?.paused,
    ).toBe(false);
    expect(afterCommand(base, { kind: 'resume' }, 'streamer', bounds)).toBeUndefined();
    expect(afterCommand(base, { kind: 'skip' }, 'streamer', bounds)).toBeUndefined();
    expect(afterCommand(base, { kind: 'unknown' }, 'streamer', bounds)).toBeUndefined();
  });
});

describe('/config twitch read and reward', () => {
  test.each([
    [{ mode: 'cheers' as const }, { read: 'cheers' }],
    [{ minBits: 100 }, { minBits: 100 }],
    [{ prefix: ' ?' }, { prefix: '?' }],
    [{ prefix: '!!' }, { prefix: '!!' }],
  ])('%o → %o', (input, change) => {
    expect(applyTwitchRead(defaultTwitchSettings(), input)).toEqual({
      ...defaultTwitchSettings(),
      ...change,
    });
  });

  test.each([
    [{ prefix: 'tts' }, 'twitch_prefix'],
    [{ prefix: '! x' }, 'twitch_prefix'],
    [{ prefix: `!${'x'.repeat(TWITCH_BOUNDS.prefix)}` }, 'twitch_prefix'],
    [{ minBits: 0 }, 'twitch_min_bits'],
    [{ minBits: 1.5 }, 'twitch_min_bits'],
  ])('%o is refused (%s)', (input, id) => {
    expect(() => applyTwitchRead(defaultTwitchSettings(), input)).toThrow(
      expect.objectContaining({ id }) as unknown as UserError,
    );
  });

  test('reward ids: a UUID is taken, anything else refused', () => {
    fc.assert(
      fc.property(fc.uuid(), (id) => {
        expect(twitchRewardId(` ${id} `)).toBe(id);
      }),
    );
    expect(() => twitchRewardId('not a reward')).toThrow(UserError);
    expect(withReward(settings(), undefined)).not.toHaveProperty('rewardId');
  });
});
