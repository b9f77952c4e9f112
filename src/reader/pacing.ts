/**
 * Spacing of chat turns by the key's generation budget, and when a turn takes its batch.
 * Spending a minute's 20 generations in the first seconds of a burst would leave the chat
 * silent until the window moves on; spread over the window instead, each turn waits a little
 * longer and merges more. Pure.
 */
import type { LimitUsage } from '../tts/index.ts';

/** Windows longer than this (the daily limit) do not pace turns: a stream is read as it comes. */
export const PACED_WINDOW_MS = 5 * 60_000;

/**
 * When the next chat turn may start, given when the last one did: in every short window, the
 * requests left are spread evenly until the window frees its oldest one (the time until then,
 * divided by the requests left plus one, after the last turn); with none left, not before it
 * frees one. `lastTurnAt` is 0 before the first turn.
 */
export function nextTurnAt(usages: readonly LimitUsage[], lastTurnAt: number, now: number): number {
  let at = 0;
  for (const { limit, used, resetAt } of usages) {
    if (limit.windowMs > PACED_WINDOW_MS || resetAt === null) continue;
    const left = limit.count - used;
    const untilReset = Math.max(0, resetAt - now);
    at = Math.max(at, left <= 0 ? resetAt : lastTurnAt + Math.ceil(untilReset / (left + 1)));
  }
  return at;
}

/**
 * A chat is busy enough for the merge hold to pay when its latest messages came at most this
 * many holds apart on average: the next message is then likely (about 40 % or more, for
 * messages at random times) to arrive within the hold and share the generation.
 */
export const BUSY_GAP_HOLDS = 2;

/** How many of the latest gaps between a chat's messages say how busy it is. */
export const PACE_GAPS = 3;

/**
 * How long a message waits, when it is the oldest waiting, for others to merge with it: the
 * full `holdMs` when the chat is busy (its latest {@link PACE_GAPS} gaps average at most
 * {@link BUSY_GAP_HOLDS} holds), none when it has been quiet, so a quiet chat's message is
 * read at once. `arrivals`: when the chat's latest messages arrived, oldest first, the new
 * message last. Pure.
 */
export function mergeHoldMs(arrivals: readonly number[], holdMs: number): number {
  const recent = arrivals.slice(-(PACE_GAPS + 1));
  const first = recent[0];
  const last = recent[recent.length - 1];
  if (first === undefined || last === undefined || recent.length < 2) return 0;
  const meanGap = (last - first) / (recent.length - 1);
  return meanGap <= BUSY_GAP_HOLDS * holdMs ? holdMs : 0;
}

/**
 * Share of max-age the speech forecast aims at: a message is read only if it is forecast to
 * be heard within three quarters of max-age, leaving the rest for what the forecast cannot
 * see (a `/say` item in between, the generation itself, a voice slower than learned).
 */
export const FORECAST_SHARE = 0.75;

/**
 * Share of the forecast window the speech ahead may fill when a busy chat's turn takes its
 * batch: past it, the turn waits for the speech ahead to play down first. Taken earlier, every
 * waiting message would be forecast late and dropped and the turn would read nothing; taken
 * then, it reads what can still be heard in time, and its generation (far shorter than the
 * speech left ahead) is ready before that speech ends.
 */
export const TAKE_AHEAD_SHARE = 0.5;

/**
 * How long a turn should wait before taking its batch so the speech ahead (`aheadMs`) has
 * played down to `share` of the forecast window `heardWithinMs`; 0 when it may take now. Pure.
 */
export function takeDelayMs(
  aheadMs: number,
  heardWithinMs: number,
  share = TAKE_AHEAD_SHARE,
): number {
  if (!(aheadMs > 0) || !(heardWithinMs > 0)) return 0;
  return Math.max(0, aheadMs - heardWithinMs * share);
}

/** A chat turn as the speech-ahead forecast sees it. */
export interface TurnAhead {
  readonly state: 'waiting' | 'generating' | 'ready' | 'playing' | 'done';
  /** Characters it speaks (as the backlog counts them). */
  readonly cost: number;
  readonly speed: number | undefined;
  readonly playingSince: number | undefined;
}

/**
 * Speech of the chat's turns that play before `turn` (turns play in the order they were
 * opened): the rest of the playing one, and the ones made or being made; waiting and ended
 * ones count nothing. Items of `/say` members in between are not counted. Pure.
 */
export function speechAheadMs(
  turns: Iterable<TurnAhead>,
  turn: TurnAhead,
  now: number,
  msPerChar: (speed: number) => number,
): number {
  let ahead = 0;
  for (const before of turns) {
    if (before === turn) break;
    if (before.state === 'waiting' || before.state === 'done') continue;
    const speech = before.cost * msPerChar(before.speed ?? 1);
    const played = before.playingSince === undefined ? 0 : now - before.playingSince;
    ahead += Math.max(0, speech - played);
  }
  return ahead;
}
