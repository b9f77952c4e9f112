/**
 * What the Twitch source tests share: a `TwitchSource` on the real chat client and a fake
 * Twitch server, over a real settings store and chosen-voice store (in-memory Keyv), with a
 * recording reader that reads every message whose text lacks "skip".
 */
import Keyv from 'keyv';
import pino from 'pino';
import { afterEach } from 'vitest';
import {
  type IncomingMessage,
  type MessageOrigin,
  type TwitchOutcome,
  TwitchSource,
} from '../../src/reader/index.ts';
import { KeyvChatVoices, KeyvSettingsStore } from '../../src/store/index.ts';
import { systemClock, type Voice } from '../../src/tts/index.ts';
import { TwitchChat } from '../../src/twitch/index.ts';
import { FakeTwitch } from '../fake-twitch/index.ts';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** How a {@link world} differs from the default one. */
export interface WorldOptions {
  /** Servers the bot is not in voice in. */
  readonly notInVoice?: readonly string[];
  /** The key's voices (none by default). */
  readonly voices?: readonly Voice[];
  /** Between two `!voice` of one chatter (0 here unless given: tests choose many times). */
  readonly voiceCooldownMs?: number;
  readonly chainBound?: number;
  /** The store both records live in (a fresh in-memory one by default). */
  readonly keyv?: Keyv;
}

/**
 * A source over a fake Twitch; the bot is in voice in every server but those of `notInVoice`;
 * `reads` counts settings reads, `writes` settings writes.
 */
export async function world(options: WorldOptions = {}) {
  const notInVoice = options.notInVoice ?? [];
  const twitch = await FakeTwitch.start();
  const keyv = options.keyv ?? new Keyv();
  const store = new KeyvSettingsStore(keyv);
  const chosenVoices = new KeyvChatVoices(keyv);
  const reads: string[] = [];
  let gate: Promise<void> | undefined;
  /** Settings reads wait from now until the function returned is called (a server's chain is held). */
  const hold = (): (() => void) => {
    const { promise, resolve } = Promise.withResolvers<void>();
    gate = promise;
    return resolve;
  };
  const writes: string[] = [];
  const settings = {
    guild: async (guildId: string) => {
      reads.push(guildId);
      await gate;
      return store.guild(guildId);
    },
    updateGuild: (...args: Parameters<KeyvSettingsStore['updateGuild']>) => {
      writes.push(args[0]);
      return store.updateGuild(...args);
    },
  };
  const logger = pino({ level: 'silent' });
  const created: IncomingMessage[] = [];
  const held: { guildId: string; origin: MessageOrigin }[] = [];
  const withdrawn: string[] = [];
  const cleared: string[] = [];
  const counts: TwitchOutcome[] = [];
  const chat = new TwitchChat({
    url: twitch.url,
    logger,
    clock: systemClock,
    backoff: { baseMs: 10, maxMs: 80 },
  });
  const source = new TwitchSource({
    chat,
    settings,
    voice: {
      channelOf: (guildId) => (notInVoice.includes(guildId) ? undefined : 'voice-1'),
      skip: () => false,
    },
    voices: async () => options.voices ?? [],
    chosenVoices,
    voiceCooldownMs: options.voiceCooldownMs ?? 0,
    ...(options.chainBound === undefined ? {} : { chainBound: options.chainBound }),
    clock: systemClock,
    logger,
    onCount: (outcome) => counts.push(outcome),
    reader: {
      created: async (message) => {
        created.push(message);
        if (message.content.includes('skip')) return false;
        held.push({
          guildId: message.guildId,
          origin: {
            messageId: message.id,
            authorId: message.authorId,
            channelId: message.channelId,
          },
        });
        return true;
      },
      clear: (guildId) => {
        cleared.push(guildId);
        return 0;
      },
      withdraw: async (guildId, matches) => {
        const hits = held.filter((h) => h.guildId === guildId && matches(h.origin));
        for (const hit of hits) {
          withdrawn.push(`${guildId} ${hit.origin.messageId}`);
          held.splice(held.indexOf(hit), 1);
        }
        return hits.length;
      },
    },
  });
  closing.push(async () => {
    await source.close();
    await twitch.close();
  });
  const channels = async (guildId: string, twitchChannels: string[]) => {
    await store.updateGuild(guildId, (guild) => ({
      ...guild,
      reader: { ...guild.reader, twitchChannels },
    }));
  };
  return {
    ...{ twitch, source, created, withdrawn, cleared, counts, channels, reads, writes, hold },
    ...{ store, chosenVoices, keyv },
  };
}
