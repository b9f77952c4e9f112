/**
 * A voice item's source where the API streams: its generation resolves at the first chunk of
 * PCM, which then flows straight into ffmpeg while the rest is still being generated. A stream
 * that fell back to submit-and-poll gives a file, opened as any other.
 */
import type { Readable } from 'node:stream';
import {
  type FinishedGeneration,
  openSniffed,
  type SpeechRequest,
  STREAM_PCM,
  type TtsClient,
} from '../tts/index.ts';
import type { SpeechSource } from '../voice/index.ts';

/** Addresses of live streams are local handles, never fetched: `live:<generation id>`. */
const LIVE_PREFIX = 'live:';

/**
 * A voice-queue source over {@link TtsClient.live}: `onSubmitted` is awaited once the API
 * accepted the request; `onGenerated` hears of speech that came as a file (the cache, or the
 * fallback) at once, and of streamed speech once its backup file exists.
 */
export function liveSource(
  client: Pick<TtsClient, 'live' | 'stream'>,
  request: SpeechRequest,
  onSubmitted?: (generationId: string) => Promise<void>,
  onGenerated?: (finished: FinishedGeneration) => void,
): SpeechSource {
  const streams = new Map<string, { readonly pcm: Readable; readonly format: RawFormat }>();
  return {
    rawFormatOf: (address) => {
      if (address === undefined) return PCM_HINT;
      return streams.get(address)?.format;
    },
    generate: async (signal) => {
      const speech = await client.live(request, {
        signal,
        ...(onSubmitted ? { onSubmitted } : {}),
      });
      if (speech.kind === 'file') {
        onGenerated?.(speech.finished);
        return speech.finished.audioUrl;
      }
      const address = `${LIVE_PREFIX}${speech.generationId}`;
      streams.set(address, { pcm: speech.pcm, format: speech.format });
      speech.finished.then(onGenerated, () => undefined);
      // The item left before it played: let the stream and what it buffered go.
      signal.addEventListener(
        'abort',
        () => {
          streams.delete(address);
          speech.pcm.destroy();
        },
        { once: true },
      );
      return address;
    },
    open: async (address, signal) => {
      const live = streams.get(address);
      if (live === undefined) return openSniffed(client, address, signal);
      streams.delete(address);
      // It failed while the item waited its turn: say why rather than feed ffmpeg nothing.
      if (live.pcm.errored !== null) throw live.pcm.errored;
      return { stream: live.pcm, extension: live.format.format, raw: live.format };
    },
  };
}

type RawFormat = NonNullable<ReturnType<NonNullable<SpeechSource['rawFormatOf']>>>;

/** What a live source most likely gives: the stream's PCM (ffmpeg is started ready for it). */
const PCM_HINT: RawFormat = STREAM_PCM;
