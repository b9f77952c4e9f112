/** The bot's Twitch source as `startBot` builds it: its own chat connection and store records. */
import type { Config } from '../config/index.ts';
import type { Logger } from '../log/index.ts';
import type { PrometheusMetrics } from '../ops/index.ts';
import { type BotStore, KeyvChatVoices } from '../store/index.ts';
import type { Clock, TtsClients } from '../tts/index.ts';
import { TwitchChat } from '../twitch/index.ts';
import { TwitchSource, type TwitchSourceOptions } from './twitch-source.ts';

/** The bot's Twitch source: its own connection to `TWITCH_CHAT_URL`, made once a server reads a channel. */
export function createTwitchSource(deps: {
  readonly config: Pick<Config, 'twitchChatUrl'>;
  readonly store: Pick<BotStore, 'settings' | 'apiKeys' | 'keyv'>;
  readonly tts: Pick<TtsClients, 'forKey'>;
  readonly reader: TwitchSourceOptions['reader'];
  readonly voice: TwitchSourceOptions['voice'];
  readonly clock: Clock;
  readonly logger: Logger;
  /** Counts Twitch messages received, read and dropped; nowhere when absent. */
  readonly metrics?: Pick<PrometheusMetrics, 'twitchMessage'> | undefined;
}): TwitchSource {
  const { clock, logger, metrics } = deps;
  const chat = new TwitchChat({ url: deps.config.twitchChatUrl, logger, clock });
  return new TwitchSource({
    ...{ chat, clock, logger, reader: deps.reader, voice: deps.voice },
    settings: deps.store.settings,
    chosenVoices: new KeyvChatVoices(deps.store.keyv),
    onCount: (outcome) => metrics?.twitchMessage(outcome),
    voices: async (guildId) => {
      const apiKey = await deps.store.apiKeys.get(guildId);
      if (apiKey === undefined) return [];
      const { defaults } = await deps.store.settings.guild(guildId);
      return deps.tts.forKey(apiKey).voices(defaults.model ?? 'base');
    },
  });
}
