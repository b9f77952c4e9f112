/**
 * Twitch chatters' own voices (`!voice <name>`): which voices they may pick, a cooldown per
 * chatter, each choice in its own record (`KeyvChatVoices`), and the choices earlier versions kept
 * in the server's record read until they are moved. A flood of `!voice` costs a store write
 * only when a choice changes, and the server's record never.
 */
import type { Logger } from '../log/index.ts';
import { assignableVoices } from '../speaking/index.ts';
import { voiceChoices } from '../speech/index.ts';
import type {
  ChosenVoice,
  GuildSettings,
  KeyvChatVoices,
  ReaderSettings,
  SettingsStore,
} from '../store/index.ts';
import type { Clock, Voice } from '../tts/index.ts';
import { chosenVoice } from './twitch-take.ts';

/**
 * How long a chatter waits between two `!voice <name>` that named a voice (one taken, the others
 * ignored unread); a name that matched none starts no wait.
 */
export const VOICE_COOLDOWN_MS = 10_000;
/** Chatters whose last `!voice` is remembered for the cooldown (the oldest go first). */
const COOLDOWN_KEPT = 10_000;
/** A choice used after this long is stored again, so it lives {@link CHOSEN_VOICE_KEPT_MS} from its last use. */
const REFRESH_MS = 86_400_000;

/** What became of one `!voice`. */
export type VoiceChoiceOutcome =
  /** Stored (a new voice, or the automatic one again for `!voice` alone). */
  | 'changed'
  /** The chatter already had it (or had nothing to forget): nothing written. */
  | 'unchanged'
  /** Within the chatter's cooldown: not looked at. */
  | 'cooling'
  /** No voice the chatter may pick has that name. */
  | 'no-match';

/**
 * The voices chatters may pick with `!voice` on a server: with `chat-voices: automatic` those
 * automatic voices are given from (never a cloned voice: someone's own, and a chat must not
 * speak as the streamer), with `any` every voice of the key.
 */
export function pickableVoices(
  voices: readonly Voice[],
  mode: ReaderSettings['chatVoices'],
): readonly Voice[] {
  if (mode === 'any') return voices;
  const allowed = new Set(assignableVoices(voices));
  return voices.filter((voice) => allowed.has(voice.voiceId));
}

/** What {@link ChatVoiceChoices} is built from. */
export interface ChatVoiceChoicesOptions {
  readonly store: Pick<KeyvChatVoices, 'get' | 'set' | 'delete'>;
  readonly settings: Pick<SettingsStore, 'updateGuild'>;
  /** The voices of the server's key for its model. */
  readonly voices: (guildId: string) => Promise<readonly Voice[]>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly cooldownMs?: number;
}

/** Chatters' `!voice` choices for every server the Twitch source reads for. */
export class ChatVoiceChoices {
  readonly #options: ChatVoiceChoicesOptions;
  /** When each chatter (`guild|user`) last used `!voice`, oldest first. */
  readonly #last = new Map<string, number>();

  constructor(options: ChatVoiceChoicesOptions) {
    this.#options = options;
  }

  /**
   * Chatter `userId`'s `!voice <name>` (`name` undefined: back to the automatic voice) on a
   * server whose settings are `guild`.
   */
  async choose(
    guildId: string,
    guild: GuildSettings,
    userId: string,
    name: string | undefined,
  ): Promise<VoiceChoiceOutcome> {
    const { store, clock } = this.#options;
    const now = clock.now();
    const key = `${guildId}|${userId}`;
    // Going back to the automatic voice is not cooled: a second one finds nothing to delete.
    if (name !== undefined && this.#cooling(key, now)) return 'cooling';
    // A choice still in the server's record moves out first, so what follows is the only one.
    if (chosenVoice(guild.twitch, userId) !== undefined) await this.migrate(guildId, guild);
    const had = await store.get(guildId, userId);
    if (name === undefined) {
      if (had === undefined) return 'unchanged';
      await store.delete(guildId, userId);
      return 'changed';
    }
    const pickable = pickableVoices(await this.#options.voices(guildId), guild.reader.chatVoices);
    const voiceId = voiceChoices(pickable, name)[0]?.value;
    // A name that matched nothing (a typo) starts no cooldown: the chatter may try again.
    if (voiceId === undefined) return 'no-match';
    this.#cooled(key, now);
    if (had?.voiceId === voiceId && now - had.at < REFRESH_MS) return 'unchanged';
    return (await store.set(guildId, userId, { voiceId, at: now })) ? 'changed' : 'unchanged';
  }

  /**
   * The voice chatter `userId` chose, if they may still use it: with `chat-voices: automatic` a
   * voice that is not one chatters may pick (a clone chosen while `any` was set) is not used.
   */
  async voiceOf(
    guildId: string,
    guild: GuildSettings,
    userId: string,
  ): Promise<string | undefined> {
    const { store, clock, logger } = this.#options;
    const own = await store.get(guildId, userId);
    const voiceId = own?.voiceId ?? chosenVoice(guild.twitch, userId);
    if (voiceId === undefined) return undefined;
    if (guild.reader.chatVoices !== 'any') {
      // Without the key's voice list the choice cannot be checked: the automatic voice reads instead.
      const voices = await this.#options.voices(guildId).catch((error: unknown) => {
        logger.debug({ err: error, guildId }, 'voices for a chosen voice could not be listed');
        return [];
      });
      if (!pickableVoices(voices, 'automatic').some((voice) => voice.voiceId === voiceId))
        return undefined;
    }
    if (own !== undefined && clock.now() - own.at >= REFRESH_MS) {
      store.set(guildId, userId, { voiceId, at: clock.now() }).catch((error: unknown) => {
        logger.warn({ err: error, guildId }, 'a chosen voice could not be refreshed');
      });
    }
    return voiceId;
  }

  /**
   * Moves the choices an earlier version kept in the server's record into their own records (a
   * chatter's own record, newer, wins), then takes them out of the server's; resolves with how
   * many there were. Safe to run again after a failure half-way.
   */
  async migrate(guildId: string, guild: GuildSettings): Promise<number> {
    const { store, settings, clock } = this.#options;
    const legacy = Object.entries(guild.twitch.voices);
    if (legacy.length === 0) return 0;
    const at = clock.now();
    for (const [userId, voiceId] of legacy) {
      if ((await store.get(guildId, userId)) === undefined)
        await store.set(guildId, userId, { voiceId, at } satisfies ChosenVoice);
    }
    await settings.updateGuild(guildId, (stored) => {
      const voices = { ...stored.twitch.voices };
      for (const [userId] of legacy) delete voices[userId];
      return { ...stored, twitch: { ...stored.twitch, voices } };
    });
    return legacy.length;
  }

  /** Whether the chatter picked a voice within the cooldown. */
  #cooling(key: string, now: number): boolean {
    const last = this.#last.get(key);
    return last !== undefined && now - last < (this.#options.cooldownMs ?? VOICE_COOLDOWN_MS);
  }

  /** The chatter picked a voice now: their cooldown starts. */
  #cooled(key: string, now: number): void {
    this.#last.delete(key);
    this.#last.set(key, now);
    for (const oldest of this.#last.keys()) {
      if (this.#last.size <= COOLDOWN_KEPT) break;
      this.#last.delete(oldest);
    }
  }
}
