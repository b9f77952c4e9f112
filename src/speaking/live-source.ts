/**
 * A voice item's source where the API streams: its generation resolves at the first chunk of
 * PCM, which then flows straight into ffmpeg while the rest is still being generated. A stream
 * that fell back to submit-and-poll gives a file, opened as any other.
 */
import type { FinishedGeneration, SpeechRequest, TtsClient } from '../tts/index.ts';
import type { SpeechSource } from '../voice/index.ts';
import { LiveStreams, PCM_HINT, type PcmDecoder } from './live-streams.ts';
import type { SourceSpending } from './sources.ts';

/**
 * A voice-queue source over {@link TtsClient.live}: `spending.onSubmitted` is awaited once the
 * API accepted the request (`spending.holdAgain` holds a regeneration of cached audio gone); `onGenerated` hears of speech that came as a file (the cache, or the
 * fallback) at once, and of streamed speech once its backup file exists. With `decode`, a stream
 * that fails while it plays carries on from its file.
 */
export function liveSource(
  client: Pick<TtsClient, 'live' | 'stream'>,
  request: SpeechRequest,
  spending: SourceSpending = {},
  onGenerated?: (finished: FinishedGeneration) => void,
  decode?: PcmDecoder,
): SpeechSource {
  const streams = new LiveStreams(decode);
  return {
    rawFormatOf: (address) => (address === undefined ? PCM_HINT : streams.formatOf(address)),
    generate: async (signal) => {
      const speech = await client.live(request, { signal, ...spending });
      if (speech.kind === 'file') onGenerated?.(speech.finished);
      else speech.finished.then(onGenerated, () => undefined);
      // The item leaving before it played lets the stream and what it buffered go.
      return streams.hold(speech, signal);
    },
    open: (address, signal) => streams.open(client, address, signal),
  };
}
