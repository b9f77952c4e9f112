/** How the speaking path hands speech to voice: queue sources over the TTS client, and item ends. */
import {
  type FinishedGeneration,
  type GenerateOptions,
  openSniffed,
  type SpeechRequest,
  type TtsClient,
} from '../tts/index.ts';
import type { SpeakUpdate, SpeechSource } from '../voice/index.ts';
import type { SpeechEnd } from './types.ts';

/** How a source's generation is paid: the ledger once the API accepts it, the budget's hold again. */
export type SourceSpending = Pick<GenerateOptions, 'onSubmitted' | 'holdAgain'>;

/**
 * A voice-queue source that generates with the server's client and streams from its media
 * origins; `spending` hears of its generation (and holds a regeneration of cached audio gone).
 */
export function ttsSource(
  client: Pick<TtsClient, 'generate' | 'stream'>,
  request: SpeechRequest,
  spending: SourceSpending = {},
  onGenerated?: (finished: FinishedGeneration) => void,
): SpeechSource {
  return {
    generate: async (signal) => {
      const finished = await client.generate(request, { signal, ...spending });
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
