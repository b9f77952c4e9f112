/** What the Twitch chat tests share: a chat service on a fake Twitch, and its events recorded. */
import pino from 'pino';
import { systemClock } from '../../src/tts/index.ts';
import {
  type TwitchChannelState,
  TwitchChat,
  type TwitchChatOptions,
  type TwitchCleared,
  type TwitchDeleted,
  type TwitchMessage,
} from '../../src/twitch/index.ts';
import { FakeTwitch } from '../fake-twitch/index.ts';

/** Waits (real time, polling) until `check` holds; no timing is asserted, the timeout is generous. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A chat service connected to its own fake Twitch, with everything it emitted. */
export interface ChatWorld {
  readonly twitch: FakeTwitch;
  readonly chat: TwitchChat;
  readonly messages: TwitchMessage[];
  readonly deleted: TwitchDeleted[];
  readonly cleared: TwitchCleared[];
  readonly states: TwitchChannelState[];
  /** The pauses the service asked its clock for, in order. */
  readonly sleeps: number[];
  close(): Promise<void>;
}

/** Starts a fake Twitch and a chat service on it, with a fast backoff (10 ms doubling to 80). */
export async function chatWorld(overrides: Partial<TwitchChatOptions> = {}): Promise<ChatWorld> {
  const twitch = await FakeTwitch.start();
  const sleeps: number[] = [];
  const chat = new TwitchChat({
    url: twitch.url,
    logger: pino({ level: 'silent' }),
    clock: {
      now: systemClock.now,
      sleep: (ms, signal) => {
        sleeps.push(ms);
        return systemClock.sleep(ms, signal);
      },
    },
    random: () => 0.5,
    backoff: { baseMs: 10, maxMs: 80 },
    ...overrides,
  });
  const world: ChatWorld = {
    twitch,
    chat,
    messages: [],
    deleted: [],
    cleared: [],
    states: [],
    sleeps,
    close: async () => {
      await chat.close();
      await twitch.close();
    },
  };
  chat.on('message', (event) => world.messages.push(event));
  chat.on('deleted', (event) => world.deleted.push(event));
  chat.on('cleared', (event) => world.cleared.push(event));
  chat.on('state', (event) => world.states.push(event));
  return world;
}
