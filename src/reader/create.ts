import type { Config } from '../config/index.ts';
import type { Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import type { SpeakingService } from '../speaking/index.ts';
import type { BlocklistCache } from '../speech/index.ts';
import type { BotStore } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import type { VoiceService, VoiceTarget } from '../voice/index.ts';
import { chatSpeaking } from './port.ts';
import { ChatReader } from './reader.ts';

/**
 * What the reader needs of Discord: whether the bot may be heard in a voice channel, a guild's
 * voice adapter (to `auto-join`) and its language.
 */
export interface ReaderDiscord {
  /** Throws a refusal naming what the bot lacks (Connect, Speak) in a voice channel. */
  readonly requireVoice: (guildId: string, channelId: string) => void;
  /** The guild's voice adapter, fetched when the guild is not cached. */
  readonly voiceAdapterOf: (guildId: string) => Promise<VoiceTarget['adapterCreator']>;
  /** The language of a server (its community locale): the words read around its chat. */
  readonly translatorOf: (guildId: string) => Translator;
}

/** The chat reader of streamer mode, speaking through the speaking service. */
export function createReader(deps: {
  readonly config: Pick<Config, 'minTextLength' | 'readerBusyChat' | 'readerHoldQuietChat'>;
  readonly store: Pick<BotStore, 'settings' | 'members'>;
  readonly speaking: SpeakingService;
  readonly voice: VoiceService;
  readonly discord: ReaderDiscord;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Compiled block lists, shared with the speaking path's screen. */
  readonly blocklists?: BlocklistCache;
}): ChatReader {
  const { voice, discord } = deps;
  return new ChatReader({
    settings: deps.store.settings,
    members: deps.store.members,
    speaking: chatSpeaking({
      speaking: deps.speaking,
      voice,
      join: async (guildId, channelId, textChannelId) => {
        discord.requireVoice(guildId, channelId);
        const adapterCreator = await discord.voiceAdapterOf(guildId);
        await voice.join({ guildId, channelId, textChannelId, adapterCreator });
      },
    }),
    clock: deps.clock,
    logger: deps.logger,
    minTextLength: deps.config.minTextLength,
    busyChat: deps.config.readerBusyChat,
    holdQuietChat: deps.config.readerHoldQuietChat,
    translatorOf: discord.translatorOf,
    ...(deps.blocklists === undefined ? {} : { blocklists: deps.blocklists }),
  });
}
