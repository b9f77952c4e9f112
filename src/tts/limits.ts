import { OPERATIONS, type Operation } from './types.ts';

/** At most `count` requests in any window of `windowMs`. */
export interface Limit {
  readonly count: number;
  readonly windowMs: number;
}

/** Per-key limits for each operation. */
export type Limits = Readonly<Record<Operation, readonly Limit[]>>;

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The vendor's published per-key limits of v2 (the same on every plan); v2 has no `request` allowance. */
export const DEFAULT_LIMITS: Limits = {
  generate: [
    { count: 20, windowMs: MINUTE },
    { count: 500, windowMs: DAY },
  ],
  status: [{ count: 60, windowMs: MINUTE }],
  voices: [{ count: 10, windowMs: MINUTE }],
  health: [{ count: 100, windowMs: MINUTE }],
  request: [],
};

/**
 * v3's per-key limits: one allowance for every call, the smallest plan's (Free, 120 a minute,
 * from the vendor's older rate-limit page; the newest publishes no figures). Raise it with
 * `TTS_LIMITS=request=240/1m` for a paid key.
 */
export const V3_DEFAULT_LIMITS: Limits = {
  generate: [],
  status: [],
  voices: [],
  health: [],
  request: [{ count: 120, windowMs: MINUTE }],
};

/**
 * One process's share of `limits` when `processes` use a key without a shared store (Redis
 * away): each count divided among them, rounded down, so together they stay within every
 * limit. A count below the number of processes still leaves each one request per window (no
 * share at all would stop the operation everywhere); the client's 429 back-off covers the rest.
 */
export function shareOfLimits(limits: Limits, processes: number): Limits {
  const share = Math.max(1, Math.floor(processes));
  const result: Record<Operation, readonly Limit[]> = { ...limits };
  for (const op of OPERATIONS) {
    result[op] = limits[op].map((limit) => ({
      count: Math.max(1, Math.floor(limit.count / share)),
      windowMs: limit.windowMs,
    }));
  }
  return result;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: MINUTE, h: 3_600_000, d: DAY };

/**
 * Parses `TTS_LIMITS`, e.g. `generate=20/1m+500/1d,status=60/1m`. Operations
 * not named keep their defaults; throws a readable error on bad syntax.
 */
export function parseLimits(text: string | undefined, defaults: Limits = DEFAULT_LIMITS): Limits {
  if (text === undefined || text.trim() === '') return defaults;
  const result: Record<Operation, readonly Limit[]> = { ...defaults };
  for (const entry of text.split(',')) {
    const [name, spec, ...rest] = entry.trim().split('=');
    if (name === undefined || spec === undefined || rest.length > 0) {
      throw new Error(`"${entry.trim()}" is not of the form operation=count/window`);
    }
    if (!isOperation(name)) {
      throw new Error(`unknown operation "${name}" (expected one of ${OPERATIONS.join(', ')})`);
    }
    result[name] = spec.split('+').map(parseLimit);
  }
  return result;
}

function parseLimit(text: string): Limit {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m|h|d)\s*$/.exec(text);
  const unit = match?.[3] === undefined ? undefined : UNITS[match[3]];
  if (match === null || unit === undefined) {
    throw new Error(`"${text}" is not a limit like 20/1m or 500/1d`);
  }
  const count = Number(match[1]);
  const windowMs = Math.round(Number(match[2] ?? '1') * unit);
  if (count < 1 || windowMs < 1) throw new Error(`"${text}" must allow at least one request`);
  return { count, windowMs };
}

function isOperation(name: string): name is Operation {
  return (OPERATIONS as readonly string[]).includes(name);
}
