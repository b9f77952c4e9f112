/** How the speaking path hands speech to voice: queue sources over the TTS client, and item ends. */
import {
  type FinishedGeneration,
  type GenerationCost,
  openSniffed,
  type SpeechRequest,
  type TtsClient,
} from '../tts/index.ts';
import type { SpeakUpdate, SpeechSource } from '../voice/index.ts';
import type { SpeechEnd } from './types.ts';

/** A voice-queue source that generates with the server's client and streams from its media origins. */
export function ttsSource(
  client: Pick<TtsClient, 'generate' | 'stream'>,
  request: SpeechRequest,
  onSubmitted?: (generationId: string, cost?: GenerationCost) => Promise<void>,
  onGenerated?: (finished: FinishedGeneration) => void,
): SpeechSource {
  return {
    generate: async (signal) => {
      const finished = await client.generate(request, {
        signal,
        ...(onSubmitted ? { onSubmitted } : {}),
      });
      onGenerated?.(finished);
      return finished.audioUrl;
    },
    open: (audioUrl, signal) => openSniffed(client, audioUrl, signal),
  };
}

/** A voice item's last update, as the journal records its end; undefined while it goes on. */
export function endOf(update: SpeakUpdate): SpeechEnd | undefined {
  switch (update.state) {
    case 'played':
      return { state: 'delivered' };
    case 'failed':
      return { state: 'failed', error: update.error };
    case 'skipped':
    case 'cancelled':
      return { state: update.state };
    default:
      return undefined;
  }
}
