import type { Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import type { SpeakingService } from '../speaking/index.ts';
import type { BotStore } from '../store/index.ts';
import type { Clock, TtsClients } from '../tts/index.ts';
import type { VoiceService } from '../voice/index.ts';
import { PendingJournal } from './journal.ts';
import { RedisJournalIndex } from './journal-index.ts';
import { JournalRecorder } from './recorder.ts';
import type { SendResult } from './reports.ts';
import { PendingResumer } from './resume.ts';

/** How long a resumed voice item waits for the bot to be back in its channel before it is reported. */
const VOICE_RESUME_WAIT_MS = 10 * 60_000;

/** Pending speech in the store, and the recorder the speaking service reports to. */
export interface Durable {
  readonly journal: PendingJournal;
  readonly recorder: JournalRecorder;
}

/**
 * The journal of pending speech (see docs/ARCHITECTURE.md), from submission to delivery: its
 * index is a Redis set when shard processes share the store.
 */
export function createJournal(deps: {
  readonly store: Pick<BotStore, 'keyv' | 'redis' | 'secretKeys'>;
  readonly voice: Pick<VoiceService, 'channelOf'>;
  readonly clock: Clock;
  readonly logger: Logger;
}): Durable {
  const { store, clock } = deps;
  const index =
    store.redis === undefined ? undefined : new RedisJournalIndex(store.redis, store.keyv);
  const journal = new PendingJournal(store.keyv, {
    secretKey: store.secretKeys.current,
    previousSecretKeys: store.secretKeys.previous,
    clock,
    logger: deps.logger,
    index,
  });
  const recorder = new JournalRecorder({
    journal,
    clock,
    voiceChannelOf: (guildId) => deps.voice.channelOf(guildId),
  });
  return { journal, recorder };
}

/** What resuming needs of Discord: delivering a result, its words, a guild's language and shard. */
export interface ResumeDiscord {
  readonly send: SendResult;
  /** User-facing words for a failure, in a language. */
  readonly describeFailure: (error: unknown, translator: Translator) => string;
  /** A guild's language (its community locale). */
  readonly translatorOf: (guildId: string) => Translator;
  /** Whether this process serves a guild (under a shard manager, its shard's guilds only). */
  readonly owns: (guildId: string) => boolean;
}

/** Resumes the journal's pending speech after a start; resumed requests take the speaking path too. */
export function createResumer(deps: {
  readonly durable: Pick<Durable, 'journal'>;
  readonly store: Pick<BotStore, 'apiKeys'>;
  readonly tts: TtsClients;
  readonly voice: Pick<VoiceService, 'channelOf'>;
  readonly speaking: Pick<SpeakingService, 'resubmit' | 'replay'>;
  readonly discord: ResumeDiscord;
  readonly clock: Clock;
  readonly logger: Logger;
}): PendingResumer {
  const { store, tts, speaking, discord } = deps;
  return new PendingResumer({
    journal: deps.durable.journal,
    clientFor: async (guildId) => {
      const apiKey = await store.apiKeys.get(guildId);
      return apiKey === undefined ? undefined : tts.forKey(apiKey);
    },
    send: discord.send,
    describeFailure: discord.describeFailure,
    translatorOf: discord.translatorOf,
    // Every shard reads the one journal; each resumes only the guilds it serves.
    owns: discord.owns,
    voiceChannelOf: (guildId) => deps.voice.channelOf(guildId),
    // Resumed requests take the speaking path too: it records what they cost and queues them.
    submit: (entry, generate) => speaking.resubmit(entry, generate),
    requeue: (entry, audio, onEnd) => speaking.replay(entry, audio, onEnd),
    clock: deps.clock,
    logger: deps.logger,
    voiceWaitMs: VOICE_RESUME_WAIT_MS,
  });
}
