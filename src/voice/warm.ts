/**
 * ffmpeg started ahead of an item's turn, so its start-up overlaps the generation instead of
 * delaying the first sound: which item holds one, the shared slots that cap them, killing
 * them, and waiting for every run to end.
 */
import type { RawPcmInput } from '../audio/index.ts';
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
  /** The raw PCM it was started for; undefined: a file it will probe. */
  readonly raw: RawPcmInput | undefined;
  /** Holds one of the shared {@link WarmSlots} until fed or killed. */
  slot: boolean;
}

/** Whether two ffmpeg inputs are the same: both files, or the same raw PCM. */
function sameInput(a: RawPcmInput | undefined, b: RawPcmInput | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.format === b.format && a.sampleRate === b.sampleRate && a.channels === b.channels;
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
  startAhead(itemId: string, raw: RawPcmInput | undefined): void {
    if (this.#ahead.has(itemId)) return;
    if (this.#slots?.tryTake() !== true) return;
    this.#ahead.set(itemId, this.#start(itemId, true, raw));
  }

  /**
   * The ffmpeg for an item about to play on `raw` input (a file when undefined): the one started
   * ahead when it was started for that input, else a new one. It no longer holds a slot: from
   * now on it is the playing item's ffmpeg.
   */
  take(itemId: string, raw: RawPcmInput | undefined): Warm {
    if (!sameInput(this.#ahead.get(itemId)?.raw, raw)) {
      this.drop(itemId, new Error('ffmpeg was started for another kind of input'));
    }
    const warm = this.#ahead.get(itemId) ?? this.#start(itemId, false, raw);
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

  #start(itemId: string, slot: boolean, raw: RawPcmInput | undefined): Warm {
    const controller = new AbortController();
    const prepared = prepareSpeech(this.#playback, controller.signal, raw);
    const warm: Warm = { prepared, controller, raw, slot };
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
