import type { FfmpegProcesses } from '../audio/index.ts';
import type { Config } from '../config/index.ts';
import type { Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import type { Clock } from '../tts/index.ts';
import { VoiceManager } from './service.ts';
import type { VoiceService } from './types.ts';

/** What the voice service is built from. */
export interface VoiceDependencies {
  readonly ffmpegPath: string;
  /** Where ffmpeg children are registered, so stopping kills what still runs. */
  readonly processes: FfmpegProcesses;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly config: Config;
  /** Posts a short notice to a guild (e.g. why the bot left voice). */
  readonly notify: (guildId: string, channelId: string, text: string) => Promise<void>;
  /** The language of a guild's notices: its community locale. */
  readonly translatorOf: (guildId: string) => Translator;
}

/** The voice service the bot uses unless told otherwise. */
export function createVoiceManager(deps: VoiceDependencies): VoiceService {
  return new VoiceManager({
    ffmpegPath: deps.ffmpegPath,
    processes: deps.processes,
    logger: deps.logger,
    clock: deps.clock,
    idleMs: deps.config.voiceIdleMs,
    maxQueueLength: deps.config.queueMaxLength,
    maxPerRequester: deps.config.queueMaxPerMember,
    notify: deps.notify,
    translatorOf: deps.translatorOf,
  });
}
