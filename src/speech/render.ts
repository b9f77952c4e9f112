import type { Translator } from '../i18n/index.ts';
import type { SpeakUpdate } from '../voice/index.ts';
import { quoteSafely } from './text.ts';

/** Seconds, as people read them: `4 s`, `1 min 5 s`. */
export function formatSeconds(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * What a `/say` reply says while its speech is prepared as a file, in the member's language.
 * `count`: for `queued`, its place in the server's line for a file slot; for `waiting`,
 * requests ahead for the key's budget.
 */
export function fileProgress(
  { t }: Translator,
  stage: 'queued' | 'waiting' | 'generating' | 'downloading',
  elapsedMs: number,
  voiceName: string,
  count = 0,
): string {
  const elapsed = formatSeconds(elapsedMs);
  const ahead = count;
  switch (stage) {
    case 'queued':
      return t('say.file_queued', { place: count, elapsed });
    case 'waiting':
      return ahead > 0 ? t('say.waiting_ahead', { ahead, elapsed }) : t('say.waiting', { elapsed });
    case 'generating':
      return t('say.generating', { voice: quoteSafely(voiceName, 80), elapsed });
    case 'downloading':
      return t('say.downloading', { elapsed });
  }
}

/** What a `/say` reply says while its speech waits, generates and plays in voice. */
export function voiceProgress({ t }: Translator, update: SpeakUpdate, elapsedMs: number): string {
  const elapsed = formatSeconds(elapsedMs);
  switch (update.state) {
    case 'queued':
      return t('say.queued', { position: update.position, elapsed });
    case 'generating':
      return t('say.generating_queued', { position: update.position, elapsed });
    case 'ready':
      return t('say.ready', { position: update.position, elapsed });
    case 'playing':
      return t('say.playing');
    case 'played':
      return t('say.played', { duration: formatSeconds(update.durationMs) });
    case 'skipped':
      return t('say.skipped');
    case 'cancelled':
      if (update.reason === 'key_changed') return t('say.cancelled_key_changed');
      if (update.reason === 'key_removed') return t('say.cancelled_key_removed');
      return t('say.cancelled');
    case 'failed':
      return t('say.failed');
  }
}
