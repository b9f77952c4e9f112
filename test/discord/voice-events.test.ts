/**
 * The bot leaving a voice channel nobody listens in (src/discord/voice-events.ts): at once when
 * the last member leaves voice, after a grace when a move left it alone (someone dragging the bot
 * and its members one at a time), and not at all when a member arrives within the grace.
 */
import { EventEmitter } from 'node:events';
import { type Client, Collection, Events } from 'discord.js';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { aloneLeave, wireVoiceEvents } from '../../src/discord/voice-events.ts';
import type { VoiceService } from '../../src/voice/index.ts';

const GRACE_MS = 1000;
const BOT = 'bot';

interface Entry {
  readonly id: string;
  channelId: string | null;
  readonly member?: { readonly user: { readonly bot: boolean } };
}

/** A guild, the bot's voice service and a client whose voice states the test moves. */
function world() {
  const client = Object.assign(new EventEmitter(), { user: { id: BOT } });
  const cache = new Collection<string, Entry>();
  const guild = { id: 'g', client, voiceStates: { cache } };
  let botChannel: string | undefined = 'a';
  const left: string[] = [];
  const voice = {
    channelOf: () => botChannel,
    leave: (_guildId: string, reason: string) => {
      left.push(reason);
      botChannel = undefined;
      return Promise.resolve(true);
    },
    botVoiceStateChanged: (_guildId: string, channelId: string | null) => {
      botChannel = channelId ?? undefined;
    },
  };
  // `bot`: another bot (a music bot), not a human listener.
  const move = (id: string, channelId: string | null, bot = false): void => {
    const before = { id, channelId: cache.get(id)?.channelId ?? null, guild };
    cache.set(id, { id, channelId, ...(bot ? { member: { user: { bot } } } : {}) });
    client.emit(Events.VoiceStateUpdate, before, { id, channelId, guild });
  };
  cache.set(BOT, { id: BOT, channelId: 'a' });
  cache.set('member', { id: 'member', channelId: 'a' });
  const stop = wireVoiceEvents(
    client as unknown as Client,
    voice as unknown as VoiceService,
    pino({ level: 'silent' }),
    { moveGraceMs: GRACE_MS },
  );
  const forgotten = (): void => void client.emit(Events.GuildDelete, guild);
  // A join through the service (`/join`), its voice state not (yet) seen here.
  const joined = (channelId: string): void => {
    botChannel = channelId;
  };
  return { move, left, stop, forgotten, joined, channel: () => botChannel };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('leaving when alone', () => {
  test.each([
    ['human-left', 'now'],
    ['human-moved', 'after-grace'],
    ['bot-moved', 'after-grace'],
  ] as const)('%s: %s', (cause, when) => {
    expect(aloneLeave(cause)).toBe(when);
  });

  test('the last member leaves voice: the bot leaves at once', () => {
    const w = world();
    w.move('member', null);
    expect(w.left).toEqual(['alone']);
    w.stop();
  });

  test('the bot dragged into an empty channel, its member after it: it stays', () => {
    const w = world();
    w.move(BOT, 'b');
    expect(w.left).toEqual([]);
    w.move('member', 'b');
    vi.advanceTimersByTime(GRACE_MS * 2);
    expect(w.left).toEqual([]);
    expect(w.channel()).toBe('b');
    w.stop();
  });

  test('the member dragged away first, the bot after them: it stays', () => {
    const w = world();
    w.move('member', 'b');
    expect(w.left).toEqual([]);
    w.move(BOT, 'b');
    vi.advanceTimersByTime(GRACE_MS * 2);
    expect(w.left).toEqual([]);
    w.stop();
  });

  test('dragged into an empty channel and nobody comes: it leaves once the grace ends', () => {
    const w = world();
    w.move(BOT, 'b');
    vi.advanceTimersByTime(GRACE_MS - 1);
    expect(w.left).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(w.left).toEqual(['alone']);
    w.stop();
  });

  test('the member moved away and the bot left there: it leaves once the grace ends', () => {
    const w = world();
    w.move('member', 'b');
    vi.advanceTimersByTime(GRACE_MS);
    expect(w.left).toEqual(['alone']);
    w.stop();
  });

  test('the member moved away and back within the grace: it stays', () => {
    const w = world();
    w.move('member', 'b');
    w.move('member', 'a');
    vi.advanceTimersByTime(GRACE_MS * 2);
    expect(w.left).toEqual([]);
    w.stop();
  });

  test('another bot arriving within the grace is nobody to read to: it still leaves', () => {
    const w = world();
    w.move(BOT, 'b');
    w.move('music-bot', 'b', true);
    vi.advanceTimersByTime(GRACE_MS);
    expect(w.left).toEqual(['alone']);
    w.stop();
  });

  test('dragged on into a second empty channel: the grace counts from the last move', () => {
    const w = world();
    w.move(BOT, 'b');
    vi.advanceTimersByTime(GRACE_MS - 100);
    w.move(BOT, 'c');
    vi.advanceTimersByTime(GRACE_MS - 100);
    expect(w.left).toEqual([]);
    w.move('member', 'c');
    vi.advanceTimersByTime(GRACE_MS * 2);
    expect(w.left).toEqual([]);
    expect(w.channel()).toBe('c');
    w.stop();
  });

  test('the server forgotten (the bot removed from it) ends the grace: no timer left', () => {
    const w = world();
    w.move(BOT, 'b');
    expect(vi.getTimerCount()).toBe(1);
    w.forgotten();
    expect(vi.getTimerCount()).toBe(0);
    w.stop();
  });

  test('the bot disconnected (kicked) within the grace: the grace ends, the service leaves on its own', () => {
    const w = world();
    w.move(BOT, 'b');
    w.move(BOT, null);
    expect(vi.getTimerCount()).toBe(0);
    expect(w.left).toEqual([]);
    w.stop();
  });

  test('the bot leaving (/leave, idle) within the grace ends it: nothing fires at a later session', () => {
    const w = world();
    w.move(BOT, 'b');
    w.move(BOT, null); // Discord's echo of the leave
    w.move(BOT, 'b'); // joined again, alone: a new grace
    vi.advanceTimersByTime(GRACE_MS - 1);
    expect(w.left).toEqual([]);
    w.move('member', 'b');
    vi.advanceTimersByTime(GRACE_MS);
    expect(w.left).toEqual([]);
    w.stop();
  });

  test('a grace never keeps the process alive, and shutting down (the listeners removed) ends it', () => {
    const w = world();
    w.move(BOT, 'b');
    const unref = vi.spyOn(globalThis, 'setTimeout');
    w.move('member', 'b');
    w.move('member', 'c'); // a new grace, its timer seen by the spy
    const timer = unref.mock.results.at(-1)?.value as { hasRef(): boolean } | undefined;
    expect(timer?.hasRef()).toBe(false);
    unref.mockRestore();
    w.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(GRACE_MS * 2);
    expect(w.left).toEqual([]);
  });

  test('a grace never reaches a later session: left and joined elsewhere before its echo, the bot stays', () => {
    const w = world();
    w.move(BOT, 'b');
    // `/leave` then `/join` in c through the service, before Discord's echoes of either.
    w.joined('c');
    vi.advanceTimersByTime(GRACE_MS);
    expect(w.left).toEqual([]);
    expect(w.channel()).toBe('c');
    w.stop();
  });
});
