import { decodeToPcm, type FfmpegProcesses } from '../audio/index.ts';
import type { Config } from '../config/index.ts';
import type { Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import { type BotMetrics, type GenerationOutcome, noMetrics } from '../ops/index.ts';
import { PreviewCache } from '../preview/index.ts';
import type { BlocklistCache, DetectLanguage } from '../speech/index.ts';
import { type BotStore, KeyvVoiceAssignments } from '../store/index.ts';
import type { Clock, TtsClients } from '../tts/index.ts';
import type { VoiceService } from '../voice/index.ts';
import { dailyLimitOf } from './quota.ts';
import { SpeakingService } from './service.ts';
import type { SpeechEnd, SpeechJournal } from './types.ts';

/** The metric outcome of each way a request ends (a skip cancels the rest of it). */
const OUTCOME_OF = {
  delivered: 'delivered',
  failed: 'failed',
  skipped: 'cancelled',
  cancelled: 'cancelled',
  cached: 'cached',
} as const satisfies Record<SpeechEnd['state'] | 'cached', GenerationOutcome>;

/** The bot's speaking service: the server's key from the store, the ledger, previews, metrics. */
export function createSpeaking(deps: {
  readonly config: Pick<Config, 'ttsLimits' | 'minTextLength'>;
  readonly store: Pick<BotStore, 'keyv' | 'settings' | 'apiKeys' | 'usage'>;
  readonly tts: TtsClients;
  readonly voice: VoiceService;
  /** Pending speech: its recorder journals each generation so it survives a restart. */
  readonly durable: { readonly recorder: SpeechJournal };
  readonly clock: Clock;
  readonly logger: Logger;
  /** Told how each request ended; nowhere when absent. */
  readonly metrics?: BotMetrics | undefined;
  /** The server's language for words said in speech ("beep"); English when absent. */
  readonly translatorOf?: ((guildId: string) => Translator) | undefined;
  /** Compiled block lists, shared with the chat reader. */
  readonly blocklists?: BlocklistCache | undefined;
  /** Tells a line's language (`loadLanguageDetector`); where absent, script and settings decide. */
  readonly detectLanguage?: DetectLanguage | undefined;
  /**
   * The ffmpeg that decodes a stream's file to PCM (a stream failing mid-way carries on from it)
   * and the registry of its children; none: it ends there.
   */
  readonly audio?: { readonly ffmpegPath: string; readonly processes: FfmpegProcesses } | undefined;
}): SpeakingService {
  const { config, store, audio } = deps;
  const metrics = deps.metrics ?? noMetrics;
  return new SpeakingService({
    settings: store.settings,
    apiKeyOf: (guildId) => store.apiKeys.get(guildId),
    tts: deps.tts,
    voice: deps.voice,
    usage: store.usage,
    dailyLimit: dailyLimitOf(config.ttsLimits.generate),
    clock: deps.clock,
    logger: deps.logger,
    minTextLength: config.minTextLength,
    translatorOf: deps.translatorOf,
    blocklists: deps.blocklists,
    detectLanguage: deps.detectLanguage,
    previews: new PreviewCache(store.keyv),
    journal: deps.durable.recorder,
    voiceAssignments: new KeyvVoiceAssignments(store.keyv),
    onEnd: (state) => metrics.generation(OUTCOME_OF[state]),
    decodePcm:
      audio === undefined
        ? undefined
        : (file, pcm, signal) =>
            decodeToPcm(file.stream, { ...audio, pcm, signal, extension: file.extension }),
  });
}
