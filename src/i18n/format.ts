import type { Translator } from './translator.ts';

const UNITS = [
  [86_400_000, 'time.day'],
  [3_600_000, 'time.hour'],
  [60_000, 'time.minute'],
  [1000, 'time.second'],
] as const;

/** A rate window in words: `86400000` → `1 day` (`1 Tag`, `1 日`). */
export function windowText({ t }: Translator, ms: number): string {
  for (const [size, key] of UNITS) {
    if (ms >= size && ms % size === 0) return t(key, { count: ms / size });
  }
  return t('time.ms', { count: ms });
}

/** A limit in words: `500 per 1 day`. */
export function limitText(
  translator: Translator,
  limit: { count: number; windowMs: number },
): string {
  return translator.t('time.per', {
    count: limit.count,
    window: windowText(translator, limit.windowMs),
  });
}

/** A Discord timestamp that each member's client shows relative to now in their own language. */
export function relativeTime({ t }: Translator, epochMs: number | undefined): string {
  return epochMs === undefined ? t('time.soon') : `<t:${Math.ceil(epochMs / 1000)}:R>`;
}
