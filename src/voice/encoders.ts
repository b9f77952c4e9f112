/**
 * How one guild's items become Opus packets. Raw PCM (a live stream, a WAV file read in node)
 * goes to the guild's long-lived encoder, one ffmpeg for item after item; other files (MP3,
 * Ogg…) each get an ffmpeg of their own, started ahead while the item generates (`warm.ts`).
 * Starting ffmpeg per item was most of a short line's CPU and the stutter other servers heard
 * (docs/design/many-voices.md).
 */
import type { Readable } from 'node:stream';
import { type AudioResource, createAudioResource, StreamType } from '@discordjs/voice';
import {
  demuxerFor,
  FfmpegError,
  type RawPcmInput,
  readWav,
  SpeechEncoder,
} from '../audio/index.ts';
import type { Logger } from '../log/index.ts';
import type { PlaybackOptions, WarmSlots } from './playback.ts';
import type { SpeechSource } from './types.ts';
import { WarmTranscodes } from './warm.ts';

/**
 * How long a guild's encoder stays after its last item: a chat read aloud speaks again within
 * it, and an idle encoder holds about 11 MB of its own (52 MB of RSS with its libraries).
 */
export const ENCODER_IDLE_MS = 60_000;

/** The PCM formats items came in lately, across guilds: a new guild's encoder starts ahead in it. */
export class PcmFormats {
  last: RawPcmInput | undefined;
}

/** An item's audio on its way to the player. */
export interface OpenedSpeech {
  readonly resource: AudioResource<null>;
  /** Settles once every packet is out; rejects with an FfmpegError when encoding failed. */
  readonly done: Promise<void>;
  /** The audio as opened (a download, a live stream): when it failed, that is why the item did. */
  readonly input: Readable;
}

function sameFormat(a: RawPcmInput, b: RawPcmInput): boolean {
  return a.format === b.format && a.sampleRate === b.sampleRate && a.channels === b.channels;
}

/** One guild's encoders: its long-lived one for PCM, and per-item ffmpeg for other files. */
export class ItemEncoders {
  readonly #playback: PlaybackOptions;
  readonly #logger: Logger;
  readonly #formats: PcmFormats;
  readonly #idleMs: number;
  readonly #onFailed: (itemId: string, error: unknown) => void;
  readonly #warm: WarmTranscodes;
  #encoder: SpeechEncoder | undefined;
  /** Every encoder whose ffmpeg has not exited (what `close` kills and `settled` waits for). */
  readonly #running = new Set<SpeechEncoder>();
  #idle: NodeJS.Timeout | undefined;
  #last: RawPcmInput | undefined;
  #closed = false;

  constructor(options: {
    readonly playback: PlaybackOptions;
    readonly slots: WarmSlots | undefined;
    readonly logger: Logger;
    readonly formats: PcmFormats;
    readonly idleMs?: number | undefined;
    /** An item's encoding failed (not aborted): the playing item records why. */
    readonly onFailed: (itemId: string, error: unknown) => void;
  }) {
    this.#playback = options.playback;
    this.#logger = options.logger;
    this.#formats = options.formats;
    this.#idleMs = options.idleMs ?? ENCODER_IDLE_MS;
    this.#onFailed = options.onFailed;
    this.#warm = new WarmTranscodes(options);
  }

  /**
   * Starts the guild's encoder as the bot joins, in the PCM format items came in lately (none
   * known: nothing), so even the first line after `/join` waits for no ffmpeg. It closes when
   * idle like any other.
   */
  prepare(): void {
    const expected = this.#formats.last;
    if (this.#closed || expected === undefined) return;
    this.#readyFor(expected);
  }

  /**
   * Gets ready for the item that plays next while it generates: the guild's encoder for the PCM
   * it will most likely be in (`raw` for a live stream, else the last format seen), or, with no
   * format to expect, an ffmpeg of its own.
   */
  startAhead(itemId: string, raw: RawPcmInput | undefined): void {
    if (this.#closed) return;
    const expected = raw ?? this.#last ?? this.#formats.last;
    if (expected === undefined) {
      this.#warm.startAhead(itemId);
      return;
    }
    this.#readyFor(expected);
  }

  /**
   * The guild's encoder ready ahead for `format`: kept when it runs in it, replaced when it is
   * idle in another (one busy with an item is left: the item's turn decides). The idle clock
   * starts again, as the item coming may take a while to generate.
   */
  #readyFor(format: RawPcmInput): void {
    const current = this.#encoder;
    const keep = current?.alive === true && (!current.usable || sameFormat(current.format, format));
    this.#idleAfter(keep ? current : this.#encoderFor(format));
  }

  /**
   * Opens the item's audio at `audioUrl` and starts encoding it; `signal` ends it (skipped,
   * failed). Audio in a format we do not play never reaches ffmpeg. Reads follow the encoder:
   * nothing is fetched faster than ffmpeg takes it.
   */
  async open(
    itemId: string,
    source: Pick<SpeechSource, 'open'>,
    audioUrl: string,
    signal: AbortSignal,
  ): Promise<OpenedSpeech> {
    // Whatever ends the item before its audio reaches ffmpeg kills the ffmpeg started ahead for it.
    const dropWarm = (): void => this.#warm.drop(itemId, signal.reason);
    signal.addEventListener('abort', dropWarm, { once: true });
    try {
      return await this.#open(itemId, source, audioUrl, signal);
    } catch (error) {
      this.#warm.drop(itemId, error);
      throw error;
    } finally {
      signal.removeEventListener('abort', dropWarm);
    }
  }

  async #open(
    itemId: string,
    source: Pick<SpeechSource, 'open'>,
    audioUrl: string,
    signal: AbortSignal,
  ): Promise<OpenedSpeech> {
    const { stream, extension, raw } = await source.open(audioUrl, signal);
    if (signal.aborted || (raw === undefined && demuxerFor(extension) === undefined)) {
      stream.destroy();
      if (signal.aborted) throw signal.reason;
      throw new Error(`the audio is ${extension}, a format that is not played`);
    }
    if (raw !== undefined) return this.#encodePcm(itemId, raw, stream, stream, signal);
    if (extension !== 'wav') return this.#encodeFile(itemId, stream, stream, signal);
    const wav = await readWav(stream);
    if (signal.aborted) {
      (wav.kind === 'pcm' ? wav.pcm : wav.file).destroy();
      throw signal.reason;
    }
    if (wav.kind === 'other') {
      this.#logger.debug({ itemId, why: wav.why }, 'WAV left to ffmpeg');
      return this.#encodeFile(itemId, wav.file, stream, signal);
    }
    if (this.#warm.has(itemId)) {
      // The first WAV of a guild has an ffmpeg of its own waiting already: it costs nothing more.
      // The guild's encoder starts now, while it plays, ready for the next.
      this.#remember(wav.format);
      const opened = this.#encodeFile(itemId, wav.whole(), stream, signal);
      this.#readyFor(wav.format);
      return opened;
    }
    return this.#encodePcm(itemId, wav.format, wav.pcm, stream, signal);
  }

  /** Kills the ffmpeg started ahead for an item that will not play. */
  drop(itemId: string, reason: unknown): void {
    this.#warm.drop(itemId, reason);
  }

  /** Kills every ffmpeg: the session is over. */
  close(reason: unknown): void {
    this.#closed = true;
    clearTimeout(this.#idle);
    this.#warm.dropAll(reason);
    // Those retired or closing while idle too: nothing outlives the session.
    for (const encoder of this.#running) encoder.kill('voice session closed');
    this.#encoder = undefined;
  }

  /** Resolves once every ffmpeg run started so far has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([
      this.#warm.settled(),
      ...[...this.#running].map((encoder) => encoder.exited),
    ]);
  }

  #encodePcm(
    itemId: string,
    format: RawPcmInput,
    pcm: Readable,
    input: Readable,
    signal: AbortSignal,
  ): OpenedSpeech {
    this.#remember(format);
    this.#warm.drop(itemId, new Error('the guild encoder takes it'));
    clearTimeout(this.#idle);
    const encoder = this.#encoderFor(format);
    const item = encoder.encode(pcm, signal);
    this.#watch(itemId, item.done, signal);
    void item.done.then(
      () => this.#idleAfter(encoder),
      () => this.#idleAfter(encoder),
    );
    const resource = createAudioResource(item.output, { inputType: StreamType.Opus });
    return { resource, done: item.done, input };
  }

  /** The PCM this guild's items come in, and the bot's lately: the next encoder starts ahead in it. */
  #remember(format: RawPcmInput): void {
    this.#last = format;
    this.#formats.last = format;
  }

  #encodeFile(itemId: string, file: Readable, input: Readable, signal: AbortSignal): OpenedSpeech {
    if (this.#closed) throw new Error('the voice session is over');
    const warm = this.#warm.take(itemId);
    signal.addEventListener('abort', () => warm.controller.abort(signal.reason), { once: true });
    if (signal.aborted) warm.controller.abort(signal.reason);
    warm.prepared.transcode.feed(file);
    return { resource: warm.prepared.resource, done: warm.prepared.transcode.done, input };
  }

  /** The guild's encoder for `format`, started when there is none that takes it. */
  #encoderFor(format: RawPcmInput): SpeechEncoder {
    if (this.#closed) throw new Error('the voice session is over');
    const current = this.#encoder;
    if (current?.usable === true && sameFormat(current.format, format)) return current;
    current?.close();
    const encoder = new SpeechEncoder({
      ffmpegPath: this.#playback.ffmpegPath,
      format,
      processes: this.#playback.processes,
      stallTimeoutMs: this.#playback.stallTimeoutMs,
      logger: this.#logger,
    });
    this.#encoder = encoder;
    this.#running.add(encoder);
    void encoder.exited.then(() => {
      this.#running.delete(encoder);
      if (this.#encoder === encoder) this.#encoder = undefined;
    });
    return encoder;
  }

  /** Closes the encoder when no item comes for a while (an idle ffmpeg holds memory). */
  #idleAfter(encoder: SpeechEncoder): void {
    if (this.#encoder !== encoder || encoder.pending > 0 || !encoder.usable) return;
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#encoder !== encoder || encoder.pending > 0 || !encoder.usable) return;
      this.#logger.debug({ idleMs: this.#idleMs }, 'closing the idle encoder');
      this.#encoder = undefined;
      encoder.close();
    }, this.#idleMs);
    this.#idle.unref();
  }

  /** An encoding that failed on its own (not ended by the item) is the item's failure. */
  #watch(itemId: string, done: Promise<void>, signal: AbortSignal): void {
    done.catch((error: unknown) => {
      if (signal.aborted) return;
      if (!(error instanceof FfmpegError) || error.reason !== 'input') {
        this.#logger.warn({ err: error, itemId }, 'ffmpeg failed');
      }
      this.#onFailed(itemId, error);
    });
  }
}
