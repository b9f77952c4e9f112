/**
 * ffmpeg started ahead of an item's turn, so its start-up overlaps the generation instead of
 * delaying the first sound: which item holds one, the shared slots that cap them, killing
 * them, and waiting for every run to end.
 */
import type { Logger } from '../log/index.ts';
import {
  type PlaybackOptions,
  type PreparedSpeech,
  prepareSpeech,
  type WarmSlots,
} from './playback.ts';

/** ffmpeg started for an item; aborting the controller kills it. */
export interface Warm {
  readonly prepared: PreparedSpeech;
  readonly controller: AbortController;
  /** Holds one of the shared {@link WarmSlots} until fed or killed. */
  slot: boolean;
}

/** One guild's ffmpeg runs by item: started ahead of their turn, or when the item plays. */
export class WarmTranscodes {
  readonly #playback: PlaybackOptions;
  readonly #slots: WarmSlots | undefined;
  readonly #logger: Logger;
  readonly #onFailed: (itemId: string, error: unknown) => void;
  /** At most the next item to play: its ffmpeg runs while it generates or waits its turn. */
  readonly #ahead = new Map<string, Warm>();
  readonly #runs = new Set<Promise<void>>();

  constructor(options: {
    readonly playback: PlaybackOptions;
    /** Shared cap on ffmpeg processes started ahead of their audio; none started ahead when absent. */
    readonly slots: WarmSlots | undefined;
    readonly logger: Logger;
    /** An item's ffmpeg failed (not killed): the playing item records why. */
    readonly onFailed: (itemId: string, error: unknown) => void;
  }) {
    this.#playback = options.playback;
    this.#slots = options.slots;
    this.#logger = options.logger;
    this.#onFailed = options.onFailed;
  }

  /**
   * Starts ffmpeg for the item that plays next while a shared slot is free. Only that one
   * item: a waiting ffmpeg holds tens of MB.
   */
  startAhead(itemId: string): void {
    if (this.#ahead.has(itemId)) return;
    if (this.#slots?.tryTake() !== true) return;
    this.#ahead.set(itemId, this.#start(itemId, true));
  }

  /**
   * The ffmpeg for a file about to play: the one started ahead, else a new one. It no longer
   * holds a slot: from now on it is the playing item's ffmpeg.
   */
  take(itemId: string): Warm {
    const warm = this.#ahead.get(itemId) ?? this.#start(itemId, false);
    this.#ahead.delete(itemId);
    this.#releaseSlot(warm);
    return warm;
  }

  /** Whether an ffmpeg was started ahead for the item. */
  has(itemId: string): boolean {
    return this.#ahead.has(itemId);
  }

  /** Kills the ffmpeg started ahead for an item that will not play. */
  drop(itemId: string, reason: unknown): void {
    const warm = this.#ahead.get(itemId);
    if (warm === undefined) return;
    warm.controller.abort(reason);
    this.#ahead.delete(itemId);
    this.#releaseSlot(warm);
  }

  /** Kills every ffmpeg started ahead. */
  dropAll(reason: unknown): void {
    for (const id of [...this.#ahead.keys()]) this.drop(id, reason);
  }

  /** Resolves once every ffmpeg run started so far has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#runs]);
  }

  #start(itemId: string, slot: boolean): Warm {
    const controller = new AbortController();
    const prepared = prepareSpeech(this.#playback, controller.signal);
    const warm: Warm = { prepared, controller, slot };
    const done = prepared.transcode.done.catch((error: unknown) => {
      if (controller.signal.aborted) return;
      this.#logger.warn({ err: error, itemId }, 'ffmpeg failed');
      this.#onFailed(itemId, error);
    });
    this.#runs.add(done);
    void done.finally(() => this.#runs.delete(done));
    return warm;
  }

  #releaseSlot(warm: Warm): void {
    if (!warm.slot) return;
    warm.slot = false;
    this.#slots?.release();
  }
}
