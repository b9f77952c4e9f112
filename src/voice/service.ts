/**
 * The bot's voice service: one session per guild (link + player + queue), joined, left and
 * cleaned up only here.
 */
import { type AudioPlayer, createAudioPlayer, NoSubscriberBehavior } from '@discordjs/voice';
import type { FfmpegProcesses } from '../audio/index.ts';
import type { Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import type { Clock } from '../tts/index.ts';
import type { LostDetail } from './close-causes.ts';
import { VoiceLink } from './connection.ts';
import { PcmFormats } from './encoders.ts';
import { GuildSession } from './guild-session.ts';
import { DEFAULT_RECONNECT_POLICY, type ReconnectPolicy } from './link-state.ts';
import { type LeaveReason, leaveNotice } from './notices.ts';
import { WarmSlots } from './playback.ts';
import type { QueueEntry, SpeakOutcome, SpeakRequest, VoiceService, VoiceTarget } from './types.ts';

/** Settings of a {@link VoiceManager}. */
export interface VoiceManagerOptions {
  /** From `resolveFfmpeg().path`. */
  readonly ffmpegPath: string;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Leave after this long with nothing queued or playing. */
  readonly idleMs: number;
  /** Most pending items per guild. */
  readonly maxQueueLength: number;
  /** Most pending items (waiting or generating, the playing one not counted) per requester; no cap when absent. */
  readonly maxPerRequester?: number | undefined;
  /** Positions that generate ahead of playback; the queue's default (2) when absent. */
  readonly lookahead?: number;
  /**
   * Posts a notice about a guild's voice session (left when idle or alone, connection lost…)
   * to `textChannelId`, the text channel where `/join` was used. Not called when unknown.
   */
  readonly notify: (guildId: string, textChannelId: string, text: string) => Promise<void> | void;
  /** The language of a guild's notices (its community locale); English when absent. */
  readonly translatorOf?: (guildId: string) => Translator;
  /** Makes each guild's player; default: pauses while no connection can take audio. */
  readonly createPlayer?: () => AudioPlayer;
  /** Longest wait for a connection to become ready; default 20 000. */
  readonly readyTimeoutMs?: number;
  readonly reconnect?: Partial<ReconnectPolicy>;
  /** Where ffmpeg children are registered (built by the composition root); killed on destroy. */
  readonly processes: FfmpegProcesses;
  /** Kill ffmpeg when it writes nothing for this long; the transcoder's default when absent. */
  readonly stallTimeoutMs?: number;
  /** Most ffmpeg processes started ahead of their audio, over every guild; default 4. */
  readonly maxWaitingFfmpeg?: number;
}

/**
 * An item ends when its audio ends, not when its input pauses: @discordjs/voice stops a
 * resource after `maxMissedFrames` reads found no packet (5 by default, 100 ms), which cut a
 * stream sent at the pace of its audio after its first chunk. The player sends silence through a
 * gap instead; an input that really stalls is ended by the transcoder (`stallTimeoutMs`).
 */
const defaultPlayer = (): AudioPlayer =>
  createAudioPlayer({
    behaviors: {
      noSubscriber: NoSubscriberBehavior.Pause,
      maxMissedFrames: Number.POSITIVE_INFINITY,
    },
  });

/**
 * Every guild's voice session. The only way the bot joins, leaves or plays audio: each leave,
 * whatever its cause, goes through {@link VoiceManager.leave}.
 */
export class VoiceManager implements VoiceService {
  readonly #options: VoiceManagerOptions;
  readonly #logger: Logger;
  readonly #processes: FfmpegProcesses;
  readonly #warmSlots: WarmSlots;
  /** The PCM formats items came in lately: a guild's first encoder starts ahead in it. */
  readonly #formats = new PcmFormats();
  readonly #sessions = new Map<string, GuildSession>();
  /** Guilds whose last link is still being destroyed: a new join waits for it. */
  readonly #leaving = new Map<string, Promise<void>>();
  /** Joins in progress, so two `/join`s in one guild do not make two links. */
  readonly #joining = new Map<string, Promise<void>>();
  /** Counts leaves per guild, so a join asked before a leave does not complete after it. */
  readonly #epochs = new Map<string, number>();

  constructor(options: VoiceManagerOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'voice' });
    this.#processes = options.processes;
    this.#warmSlots = new WarmSlots(options.maxWaitingFfmpeg ?? 4);
  }

  channelOf(guildId: string): string | undefined {
    return this.#sessions.get(guildId)?.link.channelId;
  }

  /** The text channel where `/join` was used in the guild, if known. */
  textChannelOf(guildId: string): string | undefined {
    return this.#sessions.get(guildId)?.textChannelId;
  }

  async join(target: VoiceTarget): Promise<void> {
    const previous = this.#joining.get(target.guildId) ?? Promise.resolve();
    const epoch = this.#epochOf(target.guildId);
    const joined = previous.catch(() => undefined).then(() => this.#join(target, epoch));
    const settled = joined.catch(() => undefined);
    this.#joining.set(target.guildId, settled);
    void settled.finally(() => {
      if (this.#joining.get(target.guildId) !== settled) return;
      this.#joining.delete(target.guildId);
      // Only a join under way compares epochs: with none left, the count can go.
      this.#epochs.delete(target.guildId);
    });
    return joined;
  }

  // A leave after a join was asked cancels it, even while it waits for an earlier one.
  #epochOf(guildId: string): number {
    return this.#epochs.get(guildId) ?? 0;
  }

  #checkEpoch(guildId: string, epoch: number): void {
    if (this.#epochOf(guildId) !== epoch) throw new Error('left the voice channel while joining');
  }

  async #join(target: VoiceTarget, epoch: number): Promise<void> {
    const { guildId } = target;
    this.#checkEpoch(guildId, epoch);
    const existing = this.#sessions.get(guildId);
    if (existing !== undefined) {
      if (target.textChannelId !== undefined) existing.textChannelId = target.textChannelId;
      if (existing.link.channelId !== target.channelId) existing.link.move(target.channelId);
      await existing.link.ready();
      return;
    }
    await this.#leaving.get(guildId);
    this.#checkEpoch(guildId, epoch);
    const { logger, clock } = this.#options;
    const link = await VoiceLink.open(target, {
      logger: this.#logger,
      clock,
      readyTimeoutMs: this.#options.readyTimeoutMs ?? 20_000,
      policy: { ...DEFAULT_RECONNECT_POLICY, ...this.#options.reconnect },
      onLost: (why, lost) => void this.#leaveSession(session, 'lost', why, lost),
    });
    const player = (this.#options.createPlayer ?? defaultPlayer)();
    link.subscribe(player);
    const session: GuildSession = new GuildSession({
      link,
      player,
      clock,
      logger,
      playback: {
        ffmpegPath: this.#options.ffmpegPath,
        logger: this.#logger,
        processes: this.#processes,
        stallTimeoutMs: this.#options.stallTimeoutMs,
      },
      warmSlots: this.#warmSlots,
      formats: this.#formats,
      idleMs: this.#options.idleMs,
      maxQueueLength: this.#options.maxQueueLength,
      maxPerRequester: this.#options.maxPerRequester,
      lookahead: this.#options.lookahead,
      onIdle: () => void this.#leaveSession(session, 'idle'),
    });
    session.textChannelId = target.textChannelId;
    this.#sessions.set(guildId, session);
    try {
      this.#checkEpoch(guildId, epoch); // a leave while VoiceLink.open waited for a ghost
      await link.ready();
    } catch (error) {
      await this.#leaveSession(session, 'join-failed');
      throw error;
    }
  }

  leave(guildId: string, reason: LeaveReason = 'command', detail?: string): Promise<boolean> {
    // A leave cancels the joins under way; with none, there is nothing to count.
    if (this.#joining.has(guildId)) this.#epochs.set(guildId, this.#epochOf(guildId) + 1);
    const session = this.#sessions.get(guildId);
    if (session === undefined) return Promise.resolve(false);
    return this.#leaveSession(session, reason, detail);
  }

  /**
   * Discord says the bot's voice channel in the guild is now `channelId` (null: disconnected by
   * someone). A disconnect while a join is under way is an old leave's echo and is ignored.
   */
  botVoiceStateChanged(guildId: string, channelId: string | null): void {
    const session = this.#sessions.get(guildId);
    if (session === undefined) return;
    if (channelId !== null) {
      session.link.movedTo(channelId);
    } else if (session.link.state === 'ready' || session.link.state === 'reconnecting') {
      void this.#leaveSession(session, 'disconnected');
    }
  }

  speak(request: SpeakRequest): SpeakOutcome {
    const session = this.#sessions.get(request.guildId);
    if (session === undefined) return { ok: false, reason: 'not_connected' };
    return session.speak(request);
  }

  skip(guildId: string): boolean {
    return this.#sessions.get(guildId)?.skip() ?? false;
  }

  stop(guildId: string): number {
    return this.#sessions.get(guildId)?.stop() ?? 0;
  }

  keyChanged(guildId: string, change: 'replaced' | 'removed'): number {
    return this.#sessions.get(guildId)?.keyChanged(change) ?? 0;
  }

  /** Guilds the manager holds any state for (for metrics and tests); none once all have left. */
  get heldGuilds(): number {
    const maps = [this.#sessions, this.#leaving, this.#joining, this.#epochs];
    return new Set(maps.flatMap((map) => [...map.keys()])).size;
  }

  queue(guildId: string): QueueEntry[] {
    return this.#sessions.get(guildId)?.entries() ?? [];
  }

  async destroy(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    await Promise.all(sessions.map((session) => this.#leaveSession(session, 'shutdown')));
    await Promise.all(this.#leaving.values());
    await this.#processes.killAll();
  }

  // The one leave path: forget the session at once (so a new /join starts fresh), cancel its
  // items, destroy its link one turn later, and resolve once ffmpeg and the link are gone.
  async #leaveSession(
    session: GuildSession,
    reason: LeaveReason,
    detail?: string,
    lost?: LostDetail,
  ): Promise<boolean> {
    const guildId = session.link.guildId;
    if (this.#sessions.get(guildId) !== session) return false;
    this.#sessions.delete(guildId);
    this.#logger.info({ guildId, reason, detail }, 'leaving voice');
    const destroyed = Promise.all([session.close(), session.link.destroy()]).then(() => undefined);
    this.#leaving.set(guildId, destroyed);
    void destroyed.finally(() => {
      if (this.#leaving.get(guildId) === destroyed) this.#leaving.delete(guildId);
    });
    const notice = leaveNotice(
      reason,
      {
        channelId: session.link.channelId,
        idleMs: this.#options.idleMs,
        ...(detail === undefined ? {} : { detail }),
        ...(lost === undefined ? {} : { lost }),
      },
      this.#options.translatorOf?.(guildId),
    );
    const textChannelId = session.textChannelId;
    if (notice !== undefined && textChannelId !== undefined) {
      const failed = (error: unknown): void =>
        this.#logger.warn({ err: error, guildId }, 'voice notice failed');
      try {
        Promise.resolve(this.#options.notify(guildId, textChannelId, notice)).catch(failed);
      } catch (error) {
        failed(error);
      }
    }
    await destroyed;
    return true;
  }
}
