/** The per-member daily share of a key's generations: which share applies and whether one more fits. */
import { nextUtcDay } from '../store/index.ts';
import type { Limit } from '../tts/index.ts';

const DAY_MS = 86_400_000;
/** The default share: a fifth of the key's daily limit. */
export const DEFAULT_SHARE_DIVISOR = 5;

/** The key's daily generation limit: the tightest limit whose window is a day or longer. */
export function dailyLimitOf(generateLimits: readonly Limit[]): number | undefined {
  const daily = generateLimits.filter((limit) => limit.windowMs >= DAY_MS).map((l) => l.count);
  return daily.length === 0 ? undefined : Math.min(...daily);
}

/**
 * The share in force: the server's setting (`0` turns it off), else a fifth of the key's daily
 * limit (at least 1); none when neither exists.
 */
export function memberDailyShare(
  setting: number | undefined,
  dailyLimit: number | undefined,
): number | undefined {
  if (setting !== undefined) return setting === 0 ? undefined : setting;
  return dailyLimit === undefined
    ? undefined
    : Math.max(1, Math.floor(dailyLimit / DEFAULT_SHARE_DIVISOR));
}

/** Outcome of {@link checkShare}. */
export type ShareCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly share: number; readonly freesAt: number };

/**
 * Whether a member may ask for one more generation today: what the ledger recorded plus what
 * they have under way stays below the share. Members who manage the server are exempt.
 */
export function checkShare(input: {
  readonly used: number;
  /** Their requests accepted but not yet submitted. */
  readonly reserved: number;
  readonly share: number | undefined;
  readonly exempt: boolean;
  readonly now: number;
}): ShareCheck {
  const { used, reserved, share, exempt, now } = input;
  if (exempt || share === undefined || used + reserved < share) return { ok: true };
  return { ok: false, share, freesAt: nextUtcDay(now) };
}
