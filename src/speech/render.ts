import type { SpeakUpdate } from '../voice/index.ts';
import { quoteSafely } from './text.ts';

/** Seconds, as people read them: `4 s`, `1 min 5 s`. */
export function formatSeconds(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * What a `/say` reply says while its speech is prepared as a file. `count`: for `queued`, its
 * place in the server's line for a file slot; for `waiting`, requests ahead for the key's budget.
 */
export function fileProgress(
  stage: 'queued' | 'waiting' | 'generating' | 'downloading',
  elapsedMs: number,
  voiceName: string,
  count = 0,
): string {
  const elapsed = formatSeconds(elapsedMs);
  const ahead = count;
  switch (stage) {
    case 'queued':
      return `🕒 Waiting for a free slot (this server makes a few files at a time): place ${count} in line… (${elapsed})`;
    case 'waiting':
      return ahead > 0
        ? `⏳ In line for this server’s generation budget: ${ahead} ahead of you… (${elapsed})`
        : `⏳ Waiting for a free generation slot on this server’s key… (${elapsed})`;
    case 'generating':
      return `🎙️ Generating with **${quoteSafely(voiceName, 80)}**… (${elapsed})`;
    case 'downloading':
      return `📥 Fetching the audio… (${elapsed})`;
  }
}

/** What a `/say` reply says while its speech waits, generates and plays in voice. */
export function voiceProgress(update: SpeakUpdate, elapsedMs: number): string {
  const elapsed = formatSeconds(elapsedMs);
  switch (update.state) {
    case 'queued':
      return `🕒 Queued at position ${update.position}. (${elapsed})`;
    case 'generating':
      return `🎙️ Generating… position ${update.position} in the queue. (${elapsed})`;
    case 'ready':
      return `✅ Ready, position ${update.position} in the queue. (${elapsed})`;
    case 'playing':
      return '🔊 Playing now.';
    case 'played':
      return `🔊 Played (${formatSeconds(update.durationMs)}).`;
    case 'skipped':
      return '⏭️ Skipped.';
    case 'cancelled':
      if (update.reason === 'key_changed') {
        return '⏹️ Cancelled: this server’s API key was changed while this was being generated. Send it again.';
      }
      if (update.reason === 'key_removed') {
        return '⏹️ Cancelled: this server’s API key was removed.';
      }
      return '⏹️ Removed from the queue.';
    case 'failed':
      return '⚠️ Failed.';
  }
}
