/**
 * How `ChatBacklog.take` chooses a batch, pure: the waiting messages timed against the speech
 * forecast (those that could not be heard in time are stale; a repeat rides with the first
 * message saying the same), then members taking turns to fill the batch in one voice.
 */

/**
 * What `take` knows of the speech ahead: a message is read only if it can be heard, all of it,
 * within max-age of being posted.
 */
export interface SpeechForecast {
  /** Speech already queued before the batch taken now (ms): the rest of what plays, what is made. */
  readonly aheadMs: number;
  /** Expected ms of speech per character a message adds to a batch (see {@link batchCost}). */
  readonly msPerChar: number;
  /** A message is read only if its speech is forecast to end within this long of its posting. */
  readonly heardWithinMs: number;
}

/** How `take` treats the waiting messages besides arrival order (both optional). */
export interface TakePlan<M> {
  /**
   * The waiting messages in the order they are read (priority first, a flooder's last), and
   * those held back from this batch (over their share); held ones are timed last.
   */
  readonly order?: (waiting: readonly M[]) => { readonly ordered: M[]; readonly held: M[] };
  /**
   * What a message says once folded (`repeatKey`; '' for none): a message saying what an
   * earlier kept one says is heard with it, at no cost, and rides in its batch. A group is
   * timed at its first message and on time when its newest one would be heard in time.
   */
  readonly repeatKey?: (message: M) => string;
  /** Characters a message adds to a batch ({@link batchCost} unless given: the compact glue). */
  readonly cost?: (message: M) => number;
}

/** A waiting message and its place in arrival order. */
export interface Entry<M> {
  message: M;
  readonly seq: number;
}

/** What the timing reads of a waiting message. */
export interface TimedMessage {
  readonly at: number;
  readonly authorId: string;
  readonly voiceKey: string;
  readonly paid?: boolean;
}

/** How {@link timeWaiting} times the waiting messages. */
export interface Timing<M> {
  readonly now: number;
  readonly maxAgeMs: number;
  readonly forecast: SpeechForecast | undefined;
  /** Paid speech the chat is timed behind: what the paid run may still read before its turn. */
  readonly paidAllowance: number;
  readonly repeatKey: ((message: M) => string) | undefined;
  readonly cost: (message: M) => number;
}

/** What {@link timeWaiting} found: the stale entries, and the repeats riding with each leader. */
export interface Timed<M> {
  readonly stale: Set<Entry<M>>;
  readonly riders: Map<Entry<M>, Entry<M>[]>;
  readonly riding: Set<Entry<M>>;
}

/**
 * Times the waiting messages, in the order they are read, after the speech ahead: one too old,
 * or whose speech would end later than the forecast allows, is stale; one saying what an earlier
 * kept one says rides with it. Paid messages never go stale.
 */
export function timeWaiting<M extends TimedMessage>(
  timed: readonly Entry<M>[],
  { now, maxAgeMs, forecast, paidAllowance: allowance, repeatKey, cost }: Timing<M>,
): Timed<M> {
  let paidAllowance = allowance;
  const stale = new Set<Entry<M>>();
  // A message saying what a kept one says rides with it (its "leader"): heard in its chorus.
  const leaders = new Map<string, Entry<M>>();
  const riders = new Map<Entry<M>, Entry<M>[]>();
  const riding = new Set<Entry<M>>();
  const keys = new Map<Entry<M>, string>();
  // A chorus is about its newest voice: it is on time when that one hears it in time.
  const newest = new Map<string, number>();
  for (const entry of timed) {
    const key = repeatKey?.(entry.message) ?? '';
    keys.set(entry, key);
    if (key !== '' && (entry.message.paid === true || now - entry.message.at <= maxAgeMs))
      newest.set(key, Math.max(newest.get(key) ?? 0, entry.message.at));
  }
  let speechEndsAt = now + (forecast?.aheadMs ?? 0);
  for (const entry of timed) {
    const paid = entry.message.paid === true;
    if (!paid && now - entry.message.at > maxAgeMs) {
      stale.add(entry);
      continue;
    }
    const key = keys.get(entry) ?? '';
    const leader = key === '' ? undefined : leaders.get(key);
    if (leader !== undefined) {
      riders.get(leader)?.push(entry);
      riding.add(entry);
      continue;
    }
    const chars = cost(entry.message);
    const endsAt = speechEndsAt + chars * (forecast?.msPerChar ?? 0);
    const heardAfter = endsAt - (newest.get(key) ?? entry.message.at);
    if (!paid && forecast !== undefined && heardAfter > forecast.heardWithinMs) {
      stale.add(entry);
      continue;
    }
    // Paid messages past the run are read after the chat's turn: no one waits behind them.
    if (!paid || paidAllowance > 0) speechEndsAt = endsAt;
    if (paid) paidAllowance -= chars;
    if (key !== '') {
      leaders.set(key, entry);
      riders.set(entry, []);
    }
  }
  return { stale, riders, riding };
}

/**
 * The batch from the candidates (the first one's voice only): members take turns, each their
 * oldest first, until it is full; a member whose next message does not fit is done for this
 * batch, and a message's riders come with it.
 */
export function fillBatch<M extends TimedMessage>(
  candidates: readonly Entry<M>[],
  riders: ReadonlyMap<Entry<M>, readonly Entry<M>[]>,
  cost: (message: M) => number,
  batchChars: number,
): Set<Entry<M>> {
  const first = candidates[0];
  const chosen = new Set<Entry<M>>();
  if (first === undefined) return chosen;
  const lanes = new Map<string, Entry<M>[]>();
  for (const entry of candidates) {
    const lane = lanes.get(entry.message.authorId);
    if (lane) lane.push(entry);
    else lanes.set(entry.message.authorId, [entry]);
  }
  let used = 0;
  while (lanes.size > 0) {
    for (const [author, lane] of lanes) {
      const next = lane.shift();
      const chars = next === undefined ? 0 : cost(next.message);
      const fits = chosen.size === 0 || used + chars <= batchChars;
      if (next === undefined || next.message.voiceKey !== first.message.voiceKey || !fits) {
        lanes.delete(author);
        continue;
      }
      chosen.add(next);
      for (const rider of riders.get(next) ?? []) chosen.add(rider);
      used += chars;
      if (lane.length === 0) lanes.delete(author);
    }
  }
  return chosen;
}
