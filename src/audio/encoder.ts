/**
 * One long-lived ffmpeg per speaking server: raw PCM in, loudness evened, Ogg/Opus out, item
 * after item. Starting ffmpeg costs about 50 ms of CPU and holds the event loop while the child
 * execs, which per item was most of a short chat line's cost and the stutter other servers heard
 * (docs/design/many-voices.md). Each item's samples are followed by silence that flushes the
 * filter's lookahead, and the Opus packets coming out are cut back into items by sample count.
 */
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import prism from 'prism-media';
import { buildTranscodeArgs, type RawPcmInput } from './args.ts';
import { FfmpegError } from './errors.ts';
import type { FfmpegProcesses } from './processes.ts';
import { StderrTail } from './stderr.ts';
import { lowerPriority, type TranscodeLogger } from './transcode.ts';

/** Opus packets are 20 ms: 960 samples at 48 kHz. */
const PACKET_SAMPLES = 960;
const OUTPUT_RATE = 48_000;

/**
 * Silence after each item: `dynaudnorm` looks 300 ms ahead and evens gain over 3 frames of
 * 100 ms on each side, so 500 ms both pushes an item's tail out and keeps one item's loudness
 * from reaching into the next one's.
 */
export const FLUSH_SILENCE_MS = 500;

/**
 * Input frames in the loudness filter's frame (`dynaudnorm=f=100`: 100 ms, made even), as ffmpeg
 * counts them. Items start on a grid of two of these: one starting elsewhere waited for up to
 * one more chunk of a live stream before its first packets (measured: +200 ms at 1× with 200 ms
 * chunks when an item started 100 ms off it, none on it).
 */
export function filterFrames(sampleRate: number): number {
  const frames = Math.round(sampleRate * 0.1);
  return frames + (frames % 2);
}

/** Silence frames after an item ending at `fedFrames`: at least {@link FLUSH_SILENCE_MS}, up to the grid. */
export function flushFrames(fedFrames: number, sampleRate: number): number {
  const least = Math.round((sampleRate * FLUSH_SILENCE_MS) / 1000);
  const grid = 2 * filterFrames(sampleRate);
  const end = fedFrames + least;
  return least + ((grid - (end % grid)) % grid);
}

/** The packets (by index from the stream's first audio packet) that carry input frames [start, end). */
export function packetSpan(
  startFrames: number,
  endFrames: number,
  sampleRate: number,
  preSkip: number,
): { readonly first: number; readonly end: number } {
  const toOutput = (frames: number): number => (frames * OUTPUT_RATE) / sampleRate + preSkip;
  const first = Math.floor(toOutput(startFrames) / PACKET_SAMPLES);
  // One packet more: the resampler's few samples of delay must not cut the item's last sound.
  const end = Math.ceil(toOutput(endFrames) / PACKET_SAMPLES) + 1;
  return { first, end: Math.max(first, end) };
}

/**
 * Output ffmpeg may hold back without stalling, in 20 ms packets: `dynaudnorm`'s 300 ms of
 * lookahead and its 100 ms frame, with room to spare.
 */
const OWED_PACKETS_ALLOWED = 35;

/** How to run a server's encoder. */
export interface SpeechEncoderOptions {
  /** From `resolveFfmpeg().path`. */
  readonly ffmpegPath: string;
  /** The PCM every item must be in. */
  readonly format: RawPcmInput;
  /** Where the child is registered until reaped (the shutdown kill list). */
  readonly processes: FfmpegProcesses;
  /**
   * Kill ffmpeg when it gives no packet for this long while it owes output; default 15 000. An
   * item whose input sends nothing for twice this long fails alone.
   */
  readonly stallTimeoutMs?: number | undefined;
  /**
   * Default 0, the bot's own: an item's first packets come from it just in time, and it is
   * started once per speaking server, not per item (the wait on each start is why an item's own
   * ffmpeg runs at `ENCODER_NICENESS`).
   */
  readonly niceness?: number | undefined;
  readonly logger?: TranscodeLogger | undefined;
}

/** One item's encoding: its Opus packets (object mode, one 20 ms packet each) and how it ended. */
export interface EncodedItem {
  /** For `createAudioResource(output, { inputType: StreamType.Opus })`. Destroyed with the error on failure. */
  readonly output: Readable;
  /** Resolves once every packet of the item is out; rejects with an {@link FfmpegError}. Always handle it. */
  readonly done: Promise<void>;
}

interface Item {
  readonly output: Readable;
  readonly first: number;
  end: number | undefined;
  readonly settle: (error?: FfmpegError) => void;
}

/** A server's encoder: items are encoded one after another, in the order they are given. */
export class SpeechEncoder {
  readonly format: RawPcmInput;
  /** Resolves when ffmpeg has exited and been reaped. */
  readonly exited: Promise<void>;
  readonly #child;
  readonly #logger: TranscodeLogger | undefined;
  readonly #stallTimeoutMs: number;
  readonly #frameBytes: number;
  readonly #silence: Buffer;
  readonly #stderr = new StderrTail();
  readonly #items: Item[] = [];
  #fedFrames = 0;
  #packets = 0;
  #preSkip: number | undefined;
  #feeding = false;
  /** Stops the item being fed (its input let go) when ffmpeg fails under it. */
  #stopFeed: (() => void) | undefined;
  #failure: FfmpegError | undefined;
  #closed = false;
  #stall: NodeJS.Timeout | undefined;

  constructor(options: SpeechEncoderOptions) {
    this.format = options.format;
    this.#logger = options.logger;
    this.#stallTimeoutMs = options.stallTimeoutMs ?? 15_000;
    this.#frameBytes = (options.format.format === 's16le' ? 2 : 4) * options.format.channels;
    // Enough for the longest flush (the least and a whole grid).
    const grid = 2 * filterFrames(options.format.sampleRate);
    this.#silence = Buffer.alloc(
      (flushFrames(0, options.format.sampleRate) + grid) * this.#frameBytes,
    );
    const args = buildTranscodeArgs({ normalize: true, rawInput: options.format });
    const child = spawn(options.ffmpegPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child = child;
    options.processes.track(child);
    if (child.pid !== undefined) {
      lowerPriority(child.pid, options.niceness ?? 0, options.logger);
    }
    this.#logger?.debug({ pid: child.pid, args }, 'encoder started');
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    child.on('error', (error) => {
      const why = child.pid === undefined ? 'spawn' : 'failed';
      this.#fail(new FfmpegError(why, `could not run ffmpeg: ${error.message}`, { cause: error }));
    });
    child.on('close', (code, signal) => {
      this.#logger?.debug({ pid: child.pid, code, signal }, 'encoder exited');
      // Closed on purpose: what was given is out (ffmpeg flushes everything before it exits).
      if (code === 0 && this.#closed) this.#settleFinished();
      const why = code === null ? `was killed by ${signal}` : `exited with code ${code}`;
      const last = this.#stderr.lines().at(-1) ?? 'no error output';
      this.#fail(
        new FfmpegError('failed', `ffmpeg ${why}: ${last}`, {
          exitCode: code,
          exitSignal: signal,
          stderr: this.#stderr.lines(),
        }),
      );
    });
    child.stderr.on('data', (chunk: Buffer) => this.#stderr.push(chunk));
    // EPIPE: ffmpeg exited; 'close' says why.
    child.stdin.on('error', (error) => this.#logger?.debug({ err: error }, 'encoder stdin closed'));
    const demuxer = new prism.opus.OggDemuxer();
    demuxer.once('head', (head: Buffer) => {
      this.#preSkip = head.readUInt16LE(10);
    });
    demuxer.on('data', (packet: Buffer) => this.#onPacket(packet));
    demuxer.on('error', (error) =>
      this.#kill(new FfmpegError('failed', `unreadable encoder output: ${error.message}`)),
    );
    child.stdout.pipe(demuxer);
  }

  /** Whether ffmpeg runs and takes items (none may be given while one is fed: see {@link usable}). */
  get alive(): boolean {
    return this.#failure === undefined && !this.#closed;
  }

  /** Whether another item can be given: ffmpeg runs, no item is being fed, no close asked for. */
  get usable(): boolean {
    return this.alive && !this.#feeding;
  }

  /** Items given whose packets are not all out yet. */
  get pending(): number {
    return this.#items.length;
  }

  /**
   * Encodes `pcm` (in {@link format}; consumed and destroyed) as the next item. Aborting `signal`
   * cuts the item where its input has reached: its output is destroyed and the rest of its
   * packets dropped. Throws unless {@link usable}.
   */
  encode(pcm: Readable, signal: AbortSignal): EncodedItem {
    if (!this.usable) throw new Error('this encoder cannot take an item now');
    const output = new Readable({ objectMode: true, read: () => undefined });
    // `done` is where a failure is told: an output nobody plays (a skipped item) must not throw.
    output.on('error', () => undefined);
    let settleDone: (error?: FfmpegError) => void = () => undefined;
    const done = new Promise<void>((resolve, reject) => {
      settleDone = (error) => (error === undefined ? resolve() : reject(error));
    });
    const item: Item = {
      output,
      first: this.#spanOf(this.#fedFrames, this.#fedFrames).first,
      end: undefined,
      settle: settleDone,
    };
    this.#items.push(item);
    const endFeed = this.#feed(item, pcm);
    // Still being fed: its input is let go there. All fed: its last packets are dropped.
    const onAbort = (): void => {
      const error = new FfmpegError('aborted', 'encoding aborted', { cause: signal.reason });
      endFeed(error);
      this.#settle(item, error);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const forget = (): void => signal.removeEventListener('abort', onAbort);
    void done.then(forget, forget);
    return { output, done };
  }

  /** Ends ffmpeg once the items given are out (it exits on its own). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#feeding) this.#child.stdin.end();
  }

  /** Kills ffmpeg; every item not out fails with `reason`. */
  kill(reason = 'encoder closed'): void {
    this.#kill(new FfmpegError('aborted', reason));
  }

  /** Writes `pcm` to ffmpeg as `item`; returns what ends the feed early (with the item's error). */
  #feed(item: Item, pcm: Readable): (error: FfmpegError) => void {
    this.#feeding = true;
    const stdin = this.#child.stdin;
    const startFrames = this.#fedFrames;
    let carry: Buffer | undefined;
    let ended = false;
    let quiet: NodeJS.Timeout | undefined;
    const end = (error?: FfmpegError): void => {
      if (ended) return;
      ended = true;
      clearTimeout(quiet);
      this.#stopFeed = undefined;
      pcm.off('data', onData);
      stdin.off('drain', onDrain);
      if (!pcm.destroyed) pcm.destroy();
      // A part frame is made whole, so the next item starts on a frame.
      if (carry !== undefined && carry.length > 0) {
        this.#write(Buffer.concat([carry, Buffer.alloc(this.#frameBytes - carry.length)]));
      }
      const fedEnd = this.#fedFrames;
      const flush = flushFrames(fedEnd, this.format.sampleRate);
      this.#write(this.#silence.subarray(0, flush * this.#frameBytes));
      this.#feeding = false;
      if (this.#closed) stdin.end();
      if (error !== undefined) {
        this.#settle(item, error);
        return;
      }
      // An item with no samples has no packets: its output ends empty.
      item.end = fedEnd === startFrames ? item.first : this.#spanOf(fedEnd, fedEnd).end;
      if (item.end === item.first) this.#settle(item);
      else this.#settleFinished();
    };
    // An input that stops sending (no data, no end, no error) ends its item, not the encoder.
    // Longer than the sources' own silence limits, so a live stream recovers from its file first.
    const inputTimeoutMs = this.#stallTimeoutMs * 2;
    const watchInput = (): void => {
      clearTimeout(quiet);
      quiet = setTimeout(
        () =>
          end(new FfmpegError('stalled', `the audio input sent nothing for ${inputTimeoutMs} ms`)),
        inputTimeoutMs,
      );
    };
    const onData = (chunk: Buffer): void => {
      watchInput();
      let bytes = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      const whole = bytes.length - (bytes.length % this.#frameBytes);
      carry = bytes.subarray(whole);
      bytes = bytes.subarray(0, whole);
      if (bytes.length > 0 && !this.#write(bytes)) {
        pcm.pause();
        stdin.once('drain', onDrain);
      }
    };
    const onDrain = (): void => {
      if (!ended) pcm.resume();
    };
    this.#stopFeed = () => end(this.#failure);
    watchInput();
    pcm.on('data', onData);
    pcm.once('end', () => end());
    pcm.once('error', (error) =>
      end(new FfmpegError('input', `audio input failed: ${error.message}`, { cause: error })),
    );
    pcm.once('close', () => {
      if (!pcm.readableEnded && !ended) end(new FfmpegError('input', 'audio input closed early'));
    });
    return end;
  }

  /** Writes PCM to ffmpeg, counting frames; false when the pipe wants a drain. */
  #write(bytes: Buffer): boolean {
    if (this.#failure !== undefined || bytes.length === 0) return true;
    this.#fedFrames += bytes.length / this.#frameBytes;
    this.#watchOutput();
    return this.#child.stdin.write(bytes);
  }

  /**
   * Arms the stall watch while ffmpeg owes more output than its filter holds back: input that
   * merely pauses (a live stream waiting for the vendor) is not ffmpeg stalling.
   */
  #watchOutput(): void {
    if (this.#stall !== undefined || this.#failure !== undefined) return;
    const owed = this.#spanOf(this.#fedFrames, this.#fedFrames).first - this.#packets;
    if (owed <= OWED_PACKETS_ALLOWED) return;
    this.#stall = setTimeout(() => this.#onStall(), this.#stallTimeoutMs);
  }

  #spanOf(start: number, end: number): { first: number; end: number } {
    // libopus's pre-skip is 312 at 48 kHz; the head gives the real one before any packet.
    return packetSpan(start, end, this.format.sampleRate, this.#preSkip ?? 312);
  }

  #onPacket(packet: Buffer): void {
    clearTimeout(this.#stall);
    this.#stall = undefined;
    const index = this.#packets++;
    // The first item not yet out owns the packet, unless it is silence before or after it.
    const item = this.#items[0];
    if (item !== undefined && index >= item.first && (item.end === undefined || index < item.end)) {
      this.#push(item, packet);
    }
    this.#settleFinished();
    this.#watchOutput();
  }

  /** Ends the items whose every packet is out (packets come in order, so from the first). */
  #settleFinished(): void {
    for (;;) {
      const item = this.#items[0];
      if (item?.end === undefined || this.#packets < item.end) return;
      this.#settle(item);
    }
  }

  #push(item: Item, packet: Buffer): void {
    if (!item.output.destroyed) item.output.push(packet);
  }

  #settle(item: Item, error?: FfmpegError): void {
    const at = this.#items.indexOf(item);
    if (at >= 0) this.#items.splice(at, 1);
    if (error === undefined) {
      if (!item.output.destroyed) item.output.push(null);
    } else if (!item.output.destroyed) {
      item.output.destroy(error);
    }
    item.settle(error);
  }

  #onStall(): void {
    this.#stall = undefined;
    this.#kill(
      new FfmpegError('stalled', `ffmpeg produced no output for ${this.#stallTimeoutMs} ms`),
    );
  }

  #kill(error: FfmpegError): void {
    this.#fail(error);
    const child = this.#child;
    if (child.exitCode === null && child.signalCode === null) {
      this.#logger?.warn({ pid: child.pid, reason: error.reason }, 'killing encoder');
      child.kill('SIGKILL');
    }
  }

  /** ffmpeg is gone or going: every item not out fails, and no item is taken again. */
  #fail(error: FfmpegError): void {
    clearTimeout(this.#stall);
    this.#failure ??= error;
    this.#stopFeed?.();
    for (const item of [...this.#items]) this.#settle(item, this.#failure);
    this.#child.stdin.destroy();
  }
}
