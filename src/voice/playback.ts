/**
 * Playback's parts: an ffmpeg of an item's own with the player's resource on its output (for
 * files that are not PCM, `encoders.ts` decides), when a resource may start, and the shared cap
 * on ffmpeg processes started ahead. No Opus encoding happens in JavaScript.
 */
import { type AudioResource, createAudioResource, StreamType } from '@discordjs/voice';
import { type FfmpegProcesses, startTranscode, type WaitingTranscode } from '../audio/index.ts';
import type { Logger } from '../log/index.ts';

/** How speech is transcoded for playback. */
export interface PlaybackOptions {
  readonly ffmpegPath: string;
  readonly logger: Logger;
  /** Where ffmpeg children are registered until reaped (the shutdown kill list). */
  readonly processes: FfmpegProcesses;
  /** Kill ffmpeg when it writes nothing for this long once fed; the transcoder's default when absent. */
  readonly stallTimeoutMs?: number | undefined;
}

/** A speech item's playback made ready ahead: ffmpeg waiting for the audio, a resource on its output. */
export interface PreparedSpeech {
  readonly resource: AudioResource<null>;
  /** Settles when ffmpeg has exited and been reaped; rejects with an FfmpegError on failure. */
  readonly transcode: WaitingTranscode;
}

/**
 * Starts ffmpeg (loudness-evened, waiting on stdin) and the player's resource over its output.
 * Started before the audio's format is known, it may run only the plain audio demuxers and the
 * pipe protocol (see `buildTranscodeArgs`). Raw PCM goes to the guild's encoder instead
 * (`encoders.ts`). Aborting `signal` kills ffmpeg; it is also killed by the stall watch once fed.
 */
export function prepareSpeech(options: PlaybackOptions, signal: AbortSignal): PreparedSpeech {
  const transcode = startTranscode({
    ffmpegPath: options.ffmpegPath,
    normalize: true,
    signal,
    processes: options.processes,
    stallTimeoutMs: options.stallTimeoutMs,
    logger: options.logger,
  });
  const resource = createAudioResource(transcode.output, { inputType: StreamType.OggOpus });
  return { resource, transcode };
}

/**
 * Opus packets (20 ms each) a live stream's item gathers before it starts: slack against a
 * stream sent at about real time, whose first chunk gives ffmpeg's loudness filter only a few
 * packets and then runs dry until the next (measured: docs/design/V3-MIDPLAY.md). At most 16, what
 * the player's demuxer holds.
 */
export const LIVE_START_PACKETS = 10;

/**
 * Resolves `true` once the resource has `packets` Opus packets to give (so `player.play` starts
 * at once instead of buffering through a tick), or one once `over` settled (ffmpeg is done: no
 * more will come); `false` when its stream ends, closes or fails without a single one: a stream
 * without a packet must end its item, not start the player.
 */
export function whenPlayable(
  resource: AudioResource<null>,
  packets = 1,
  over?: Promise<unknown>,
): Promise<boolean> {
  const stream = resource.playStream;
  if (stream.readableLength >= packets) return Promise.resolve(true);
  if (resource.ended) return Promise.resolve(stream.readableLength > 0);
  let wanted = packets;
  return new Promise<boolean>((resolve) => {
    const settle = (playable: boolean): void => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      stream.off('error', onEnd);
      resolve(playable);
    };
    const onReadable = (): void => {
      if (stream.readableLength > 0 && stream.readableLength >= wanted) settle(true);
      // 'readable' with nothing buffered means the end: reading the null lets 'end' fire.
      else if (stream.readableLength === 0) stream.read();
    };
    const onEnd = (): void => settle(stream.readableLength > 0);
    // No more to come: what there is plays.
    const settleOver = (): void => {
      wanted = 1;
      onReadable();
    };
    over?.then(settleOver, settleOver);
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('close', onEnd);
    stream.once('error', onEnd);
  });
}

/**
 * How many ffmpeg processes may wait ahead of their audio at once, across every guild: each
 * holds ~9 MB and its start blocks the event loop for a moment, so a burst of requests in many
 * servers must not start dozens. Items beyond it start ffmpeg when their turn comes.
 */
export class WarmSlots {
  readonly #max: number;
  #used = 0;

  constructor(max: number) {
    this.#max = max;
  }

  /** Takes a slot if one is free. */
  tryTake(): boolean {
    if (this.#used >= this.#max) return false;
    this.#used++;
    return true;
  }

  /** Gives a slot back (its ffmpeg got its audio, or was killed). */
  release(): void {
    this.#used = Math.max(0, this.#used - 1);
  }

  /** Slots in use. */
  get used(): number {
    return this.#used;
  }
}
