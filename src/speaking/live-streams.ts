/**
 * Live streams handed to the voice queue as addresses: a generation that streams resolves with
 * `live:<generation id>`, a local handle never fetched, and its PCM waits here until its item
 * plays (then it flows straight into ffmpeg) or leaves (then it is let go). Shared by `/say`'s
 * voice items (`liveSource`) and the chat reader's turns (`ChatTurns`).
 */
import type { Readable } from 'node:stream';
import { openSniffed, STREAM_PCM, type TtsClient, type VoiceSpeech } from '../tts/index.ts';
import type { SniffedAudio, SpeechSource } from '../voice/index.ts';

/** Addresses of live streams are local handles, never fetched: `live:<generation id>`. */
const LIVE_PREFIX = 'live:';

/** Raw PCM as voice takes it (`SpeechSource.rawFormatOf`). */
export type RawFormat = NonNullable<ReturnType<NonNullable<SpeechSource['rawFormatOf']>>>;

/** What live speech most likely gives: the stream's PCM (ffmpeg is started ready for it). */
export const PCM_HINT: RawFormat = STREAM_PCM;

/** The live streams one source (or one chat voice) handed out and that have not played yet. */
export class LiveStreams {
  readonly #streams = new Map<string, { readonly pcm: Readable; readonly format: RawFormat }>();

  /**
   * The address of `speech`: its file's, or a live handle whose PCM is kept until opened, or
   * let go (destroyed, with what it buffered) once `signal` aborts before that.
   */
  hold(speech: VoiceSpeech, signal: AbortSignal): string {
    if (speech.kind === 'file') return speech.finished.audioUrl;
    const address = `${LIVE_PREFIX}${speech.generationId}`;
    this.#streams.set(address, { pcm: speech.pcm, format: speech.format });
    const release = (): void => {
      if (this.#streams.get(address)?.pcm !== speech.pcm) return;
      this.#streams.delete(address);
      speech.pcm.destroy();
    };
    if (signal.aborted) release();
    else signal.addEventListener('abort', release, { once: true });
    return address;
  }

  /** The raw format of the live stream at `address`; undefined for a file (or a stream let go). */
  formatOf(address: string): RawFormat | undefined {
    return this.#streams.get(address)?.format;
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
    // It failed while the item waited its turn: say why rather than feed ffmpeg nothing.
    if (live.pcm.errored !== null) throw live.pcm.errored;
    return { stream: live.pcm, extension: live.format.format, raw: live.format };
  }
}
