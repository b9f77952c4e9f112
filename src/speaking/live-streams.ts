/**
 * Live streams handed to the voice queue as addresses: a generation that streams resolves with
 * `live:<generation id>`, a local handle never fetched, and its PCM waits here until its item
 * plays (then it flows straight into ffmpeg) or leaves (then it is let go). Shared by `/say`'s
 * voice items (`liveSource`) and the chat reader's turns (`ChatTurns`).
 */
import type { Readable } from 'node:stream';
import { openSniffed, STREAM_PCM, type TtsClient, type VoiceSpeech } from '../tts/index.ts';
import type { SniffedAudio, SpeechSource } from '../voice/index.ts';
import { playThrough } from './live-play.ts';
import { frameBytesOf } from './pcm-rest.ts';

/** Addresses of live streams are local handles, never fetched: `live:<generation id>`. */
const LIVE_PREFIX = 'live:';

/** Raw PCM as voice takes it (`SpeechSource.rawFormatOf`). */
export type RawFormat = NonNullable<ReturnType<NonNullable<SpeechSource['rawFormatOf']>>>;

/** What live speech most likely gives: the stream's PCM (ffmpeg is started ready for it). */
export const PCM_HINT: RawFormat = STREAM_PCM;

/**
 * Decodes a file (its bytes and sniffed format) into raw PCM of `format`, for the rest of a
 * stream that failed mid-way (the composition root's ffmpeg: `decodeToPcm`).
 */
export type PcmDecoder = (file: SniffedAudio, format: RawFormat, signal: AbortSignal) => Readable;

/** A stream handed out and not played yet. */
interface HeldStream {
  readonly pcm: Readable;
  readonly format: RawFormat;
  readonly recover: Extract<VoiceSpeech, { kind: 'live' }>['recover'];
}

/**
 * The live streams one source (or one chat voice) handed out and that have not played yet. A
 * stream that failed while it waited is played from its file instead (`recover`): it counts as
 * a file from then on, so ffmpeg is started for one. With a `decode`, one that fails while it
 * plays carries on from its file (`recover` again), where it stopped; without, it ends there.
 */
export class LiveStreams {
  readonly #streams = new Map<string, HeldStream>();
  readonly #decode: PcmDecoder | undefined;

  constructor(decode?: PcmDecoder) {
    this.#decode = decode;
  }

  /**
   * The address of `speech`: its file's, or a live handle whose PCM is kept until opened, or
   * let go (destroyed, with what it buffered) once `signal` aborts before that.
   */
  hold(speech: VoiceSpeech, signal: AbortSignal): string {
    if (speech.kind === 'file') return speech.finished.audioUrl;
    const address = `${LIVE_PREFIX}${speech.generationId}`;
    this.#streams.set(address, {
      pcm: speech.pcm,
      format: speech.format,
      recover: speech.recover,
    });
    const release = (): void => {
      if (this.#streams.get(address)?.pcm !== speech.pcm) return;
      this.#streams.delete(address);
      speech.pcm.destroy();
    };
    if (signal.aborted) release();
    else signal.addEventListener('abort', release, { once: true });
    return address;
  }

  /** The raw format of the live stream at `address`; undefined for a file, a stream let go or failed. */
  formatOf(address: string): RawFormat | undefined {
    const live = this.#streams.get(address);
    return live === undefined || live.pcm.errored !== null ? undefined : live.format;
  }

  /** Opens the audio at `address`: a held stream's PCM (once), else the file through `client`. */
  async open(
    client: Pick<TtsClient, 'stream'>,
    address: string,
    signal: AbortSignal,
  ): Promise<SniffedAudio> {
    const live = this.#streams.get(address);
    if (live === undefined) return openSniffed(client, address, signal);
    this.#streams.delete(address);
    const decode = this.#decode;
    if (live.pcm.errored === null) {
      const stream = playThrough(
        live.pcm,
        async (error, recovery) => {
          if (decode === undefined) throw error;
          const finished = await live.recover(recovery);
          const file = await openSniffed(client, finished.audioUrl, recovery);
          return decode(file, live.format, recovery);
        },
        signal,
        frameBytesOf(live.format),
      );
      return { stream, extension: live.format.format, raw: live.format };
    }
    // It failed while the item waited its turn: heard from its file rather than dropped.
    const finished = await live.recover(signal);
    return openSniffed(client, finished.audioUrl, signal);
  }
}
