/**
 * One guild's voice session: its link, audio player and speech queue, and the driver that
 * generates items near the head, plays them in turn and reports their progress. How an item's
 * audio becomes Opus packets (the guild's long-lived encoder, or an ffmpeg of its own started
 * ahead) is {@link ItemEncoders}' job (`encoders.ts`).
 */
import type { Readable } from 'node:stream';
import { type AudioPlayer, type AudioPlayerState, AudioPlayerStatus } from '@discordjs/voice';
import type { Logger } from '../log/index.ts';
import {
  type AffectedItem,
  estimateStart,
  expectedSpeechMs,
  type ItemState,
  type QueueItem,
  SpeechQueue,
} from '../queue/index.ts';
import type { Clock } from '../tts/index.ts';
import type { VoiceLink } from './connection.ts';
import { ItemEncoders, type OpenedSpeech, PcmFormats } from './encoders.ts';
import {
  LIVE_START_PACKETS,
  type PlaybackOptions,
  type WarmSlots,
  whenPlayable,
} from './playback.ts';
import type { QueueEntry, SpeakOutcome, SpeakRequest } from './types.ts';
import { ItemUpdates } from './updates.ts';

/** Settings of a {@link GuildSession}. */
export interface GuildSessionOptions {
  readonly link: VoiceLink;
  readonly player: AudioPlayer;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly playback: PlaybackOptions;
  /** Shared cap on ffmpeg processes started ahead of their audio; none started ahead when absent. */
  readonly warmSlots?: WarmSlots | undefined;
  /** The PCM formats items came in lately, shared by the bot's sessions (a new one's encoder starts in it). */
  readonly formats?: PcmFormats | undefined;
  /** How long the guild's encoder stays after its last item; `ENCODER_IDLE_MS` when absent. */
  readonly encoderIdleMs?: number | undefined;
  readonly idleMs: number;
  readonly maxQueueLength: number;
  readonly maxPerRequester?: number | undefined;
  readonly lookahead?: number | undefined;
  /** Called when nothing was queued or playing for `idleMs`; the owner leaves. */
  readonly onIdle: () => void;
}

interface Current {
  readonly itemId: string;
  readonly controller: AbortController;
  readonly startedAt: number;
  readonly expectedMs: number;
  /** Set once the player plays the item's resource. */
  opened?: OpenedSpeech;
  /** The audio fed to ffmpeg: when it failed (a download or stream cut off), that is why the item did. */
  input?: Readable;
  error?: unknown;
}

/** How long a request should play: what it says, else an estimate from its text. */
function expectedMsOf(request: SpeakRequest): number {
  return request.expectedMs ?? expectedSpeechMs(request.text.length);
}

/** Why an item failed, for the queue's record (the full error goes to the reply). */
function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The speech queue and player of one guild; the manager owns its link's lifecycle. */
export class GuildSession {
  readonly link: VoiceLink;
  /** Text channel where `/join` was used, for notices. */
  textChannelId: string | undefined;
  readonly #options: GuildSessionOptions;
  readonly #logger: Logger;
  readonly #player: AudioPlayer;
  readonly #queue: SpeechQueue<SpeakRequest>;
  readonly #updates: ItemUpdates;
  /** Each item's generation, aborted when the item leaves (so what a source holds is let go). */
  readonly #generations = new Map<string, AbortController>();
  readonly #audioUrls = new Map<string, string>();
  readonly #encoders: ItemEncoders;
  #current: Current | undefined;
  #idle: AbortController | undefined;
  #closed = false;

  constructor(options: GuildSessionOptions) {
    this.link = options.link;
    this.#options = options;
    this.#logger = options.logger.child({ guildId: options.link.guildId });
    this.#player = options.player;
    this.#updates = new ItemUpdates(this.#logger);
    this.#encoders = new ItemEncoders({
      playback: options.playback,
      slots: options.warmSlots,
      formats: options.formats ?? new PcmFormats(),
      idleMs: options.encoderIdleMs,
      logger: this.#logger,
      onFailed: (itemId, error) => {
        if (this.#current?.itemId === itemId) this.#current.error ??= error;
      },
    });
    this.#queue = new SpeechQueue<SpeakRequest>({
      now: () => options.clock.now(),
      maxLength: options.maxQueueLength,
      ...(options.maxPerRequester === undefined
        ? {}
        : { maxPerRequester: options.maxPerRequester }),
      ...(options.lookahead === undefined ? {} : { lookahead: options.lookahead }),
      onTransition: ({ item, from, event }) =>
        this.#logger.debug({ itemId: item.id, from, event, to: item.state }, 'speech item'),
    });
    this.#encoders.prepare();
    this.#player.on('stateChange', this.#onPlayerState);
    this.#player.on('error', this.#onPlayerError);
    this.#checkIdle();
  }

  /** Queues a request; its `onUpdate` hears of every change from now on. */
  speak(request: SpeakRequest): SpeakOutcome {
    if (this.#closed) return { ok: false, reason: 'not_connected' };
    const result = this.#queue.enqueue({ requesterId: request.requesterId, payload: request });
    if (!result.ok && result.reason === 'requesterFull') {
      const freesAt = this.#nextStartOf(request.requesterId);
      return {
        ok: false,
        reason: 'requester_full',
        maxPerRequester: result.maxPerRequester,
        freesAt,
      };
    }
    if (!result.ok) return { ok: false, reason: 'full', maxLength: this.#queue.maxLength };
    this.#updates.add(result.item.id, request.onUpdate);
    this.#pump();
    const position = this.#queue.positionOf(result.item.id) ?? result.position;
    return { ok: true, itemId: result.item.id, position };
  }

  /** Skips the item that is up (playing, or next while nothing plays); false when none. */
  skip(): boolean {
    return this.#end(this.#queue.skip(), 'skipped') > 0;
  }

  /** Cancels the playing item and every pending one; the number removed. */
  stop(): number {
    return this.#end(this.#queue.clear(), 'cancelled');
  }

  /**
   * The guild's key was replaced or removed: items the old key is generating are cancelled
   * (their work belongs to the old key); on removal every pending item is. Items still
   * waiting resolve the key when their turn to generate comes. Returns how many were cancelled.
   */
  keyChanged(change: 'replaced' | 'removed'): number {
    const affected = this.#queue
      .order()
      .filter(({ item }) => change === 'removed' || item.state === 'generating')
      .flatMap(({ item }) => this.#queue.remove(item.id));
    return this.#end(affected, 'cancelled', change === 'removed' ? 'key_removed' : 'key_changed');
  }

  /** Stops the work of items the queue just ended and tells their requesters; how many. */
  #end(
    affected: readonly AffectedItem<SpeakRequest>[],
    state: 'skipped' | 'cancelled',
    reason?: 'key_changed' | 'key_removed',
  ): number {
    for (const { item, previous } of affected) {
      this.#abort(item.id, previous);
      this.#updates.end(
        item.id,
        state === 'cancelled' && reason !== undefined ? { state, reason } : { state },
      );
    }
    this.#pump();
    return affected.length;
  }

  /** The playing item (position 0) and the pending ones in play order. */
  entries(): QueueEntry[] {
    const playing = this.#queue.current();
    const rows = [...(playing ? [{ item: playing, position: 0 }] : []), ...this.#queue.order()];
    return rows.map(({ item, position }) => ({
      itemId: item.id,
      position,
      requesterId: item.requesterId,
      requesterName: item.payload.requesterName,
      text: item.payload.text,
      state: item.state,
    }));
  }

  /** Cancels everything, stops the player and resolves once every ffmpeg run has ended. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.stop();
      this.#closed = true;
      this.#idle?.abort();
      this.#player.off('stateChange', this.#onPlayerState);
      this.#player.off('error', this.#onPlayerError);
      this.#player.stop(true);
      this.#encoders.close(new Error('voice session closed'));
    }
    await this.#encoders.settled();
  }

  #pump(): void {
    if (this.#closed) return;
    for (const item of this.#queue.toGenerate()) this.#generate(item);
    if (this.#current === undefined) {
      const next = this.#queue.next();
      if (next !== undefined) this.#play(next);
    }
    this.#warmNext();
    this.#updates.publish(this.#queue.order());
    this.#checkIdle();
  }

  #generate(item: QueueItem<SpeakRequest>): void {
    if (!this.#queue.markGenerating(item.id).ok) return;
    const controller = new AbortController();
    this.#generations.set(item.id, controller);
    item.payload.source.generate(controller.signal).then(
      (audioUrl) => {
        if (controller.signal.aborted) return;
        if (this.#queue.markReady(item.id).ok) this.#audioUrls.set(item.id, audioUrl);
        this.#pump();
      },
      (error: unknown) => {
        this.#generations.delete(item.id);
        if (controller.signal.aborted) return; // skipped, cancelled or left: nothing to report
        this.#encoders.drop(item.id, error);
        this.#logger.warn({ err: error, itemId: item.id }, 'speech generation failed');
        if (this.#queue.markFailed(item.id, reasonOf(error)).ok) {
          this.#updates.end(item.id, { state: 'failed', error });
        }
        this.#pump();
      },
    );
  }

  /** Starts ffmpeg ahead for the item that plays next once it is generating (or ready). */
  #warmNext(): void {
    const next = this.#queue.order()[0]?.item;
    if (next === undefined) return;
    if (next.state !== 'generating' && next.state !== 'ready') return;
    this.#encoders.startAhead(next.id, next.payload.source.rawFormatOf?.());
  }

  /** Estimated start of the requester's first pending item (now when they have none). */
  #nextStartOf(requesterId: string): number {
    const order = this.#queue.order().map(({ item }) => item);
    const first = order.findIndex((item) => item.requesterId === requesterId);
    const current = this.#current;
    return estimateStart({
      now: this.#options.clock.now(),
      playing: current,
      aheadMs: (first < 0 ? [] : order.slice(0, first)).map((item) => expectedMsOf(item.payload)),
    });
  }

  #play(item: QueueItem<SpeakRequest>): void {
    const audioUrl = this.#audioUrls.get(item.id);
    this.#audioUrls.delete(item.id);
    const current: Current = {
      itemId: item.id,
      controller: new AbortController(),
      startedAt: this.#options.clock.now(),
      expectedMs: expectedMsOf(item.payload),
    };
    this.#current = current;
    this.#updates.playing(item.id);
    if (audioUrl === undefined) {
      this.#encoders.drop(item.id, new Error('no audio'));
      current.error = new Error('the item was ready without an audio address');
      this.#endPlayback(current);
      return;
    }
    const live = item.payload.source.rawFormatOf?.(audioUrl) !== undefined;
    const { signal } = current.controller;
    let opened: OpenedSpeech | undefined;
    this.#encoders
      .open(item.id, item.payload.source, audioUrl, signal)
      .then((speech) => {
        opened = speech;
        current.input = speech.input;
        // A live stream gathers some slack first; a file is all there and starts at once.
        if (!live) return whenPlayable(speech.resource);
        return whenPlayable(speech.resource, LIVE_START_PACKETS, speech.done);
      })
      .then(async (playable) => {
        if (opened === undefined) return;
        if (this.#current !== current) {
          // Skipped while opening: its packets are let go (an encoder may still be sending them).
          opened.resource.playStream.destroy();
          return;
        }
        if (playable) {
          current.opened = opened;
          this.#player.play(opened.resource);
          return;
        }
        // No packet at all: a failed encoding says why; a clean but empty output is an error too.
        await opened.done.catch(() => undefined);
        current.error ??= new Error('the audio ended before any sound');
        this.#endPlayback(current);
      })
      .catch((error: unknown) => {
        if (this.#current !== current) return; // skipped or cancelled while opening
        current.error = error;
        this.#endPlayback(current);
      });
  }

  // The item's resource ended (or never started): record how, then play the next one.
  #endPlayback(current: Current): void {
    if (this.#current !== current) return;
    this.#current = undefined;
    const { itemId, opened } = current;
    // The audio's own failure says more than ffmpeg's or the player's echo of it.
    const error =
      current.error === undefined ? undefined : (current.input?.errored ?? current.error);
    this.#generations.get(itemId)?.abort(new Error('the item has ended'));
    this.#generations.delete(itemId);
    if (error !== undefined) {
      this.#logger.warn({ err: error, itemId }, 'playback failed');
      current.controller.abort(error);
      if (this.#queue.markFailed(itemId, reasonOf(error)).ok) {
        this.#updates.end(itemId, { state: 'failed', error });
      }
    } else if (this.#queue.finish(itemId).ok) {
      this.#updates.end(itemId, {
        state: 'played',
        durationMs: opened?.resource.playbackDuration ?? 0,
      });
    }
    this.#pump();
  }

  // Stops whatever work an item that just left the queue still had running.
  #abort(itemId: string, previous: ItemState): void {
    const reason = new Error('removed from the queue');
    this.#generations.get(itemId)?.abort(reason);
    this.#generations.delete(itemId);
    this.#audioUrls.delete(itemId);
    this.#encoders.drop(itemId, reason);
    const current = this.#current;
    if (previous === 'playing' && current?.itemId === itemId) {
      this.#current = undefined;
      current.controller.abort(reason);
      this.#player.stop(true);
    }
  }

  readonly #onPlayerState = (from: AudioPlayerState, to: AudioPlayerState): void => {
    if (to.status !== AudioPlayerStatus.Idle || from.status === AudioPlayerStatus.Idle) return;
    const current = this.#current;
    if (current?.opened !== undefined && from.resource === current.opened.resource) {
      this.#endPlayback(current);
    }
  };

  readonly #onPlayerError = (error: Error & { resource?: unknown }): void => {
    const current = this.#current;
    if (current?.opened !== undefined && error.resource === current.opened.resource) {
      current.error ??= error;
    } else {
      this.#logger.warn({ err: error }, 'audio player error for an item no longer playing');
    }
  };

  #checkIdle(): void {
    const busy = this.#current !== undefined || this.#queue.length > 0;
    if (busy || this.#closed) {
      this.#idle?.abort();
      this.#idle = undefined;
      return;
    }
    if (this.#idle !== undefined) return;
    const idle = new AbortController();
    this.#idle = idle;
    this.#options.clock.sleep(this.#options.idleMs, idle.signal).then(
      () => {
        if (this.#idle === idle && !this.#closed) this.#options.onIdle();
      },
      (error: unknown) => {
        if (!idle.signal.aborted) this.#logger.warn({ err: error }, 'idle timer failed');
      },
    );
  }
}
