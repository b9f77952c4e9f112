/**
 * Speed that follows the backlog: when the chat's speech is forecast to run late, turns are
 * generated faster with the API's `speed`, a step per turn up to the server's `max-speed`, and
 * back down a step per turn once the chat calms, and a step per second of silence. The rate model learns ms per character at
 * speed 1 and scales by 1/speed, so the backlog's forecasts stay right while the speed moves.
 * Pure.
 */
import { SpeechRate } from './speech-rate.ts';

/** The speeds the API accepts. */
export const API_SPEED = { min: 0.5, max: 2 } as const;
/** `max-speed` when the server has not set one; 1 turns speeding up off. */
export const DEFAULT_MAX_SPEED = 1.5;
/**
 * Factors on the member's or server's speed a busy chat steps through, one step per turn, so a
 * voice never lurches. Neighbours differ by far less than {@link SPEED_UP_AT}/{@link CALM_BELOW}
 * (2), so a step up never makes the next turn step down again, nor the reverse.
 */
export const SPEED_STEPS = [1, 1.15, 1.3, 1.5, 1.75, 2] as const;
/** A step up when the backlog's forecast wait passes this share of max-age. */
export const SPEED_UP_AT = 0.5;
/** A step down when it falls below this share; between the two the speed holds. */
export const CALM_BELOW = 0.25;

/**
 * A step down per this much silence before a turn (no chat speech since the last turn ended),
 * so the first message after a burst, once the chat calmed, is read at the voice's own speed.
 */
export const CALM_STEP_MS = 1000;

/** What {@link speedFor} decides from. */
export interface SpeedInput {
  /** How long until the newest waiting message would be heard, forecast at the current speed. */
  readonly forecastWaitMs: number;
  readonly maxAgeMs: number;
  /** The member's or server's speed for the turn (`request.speed ?? 1`). */
  readonly baseSpeed: number;
  /** The server's `max-speed`: the largest factor on the base speed (1: off). */
  readonly maxSpeed: number;
  /** The factor returned for the previous turn; 1 at first. */
  readonly current: number;
  /** How long no chat speech has played before this turn (0 when some is ahead of it). */
  readonly quietMs?: number;
}

/** The factor to keep for the next call, and the speed to send with this turn. */
export interface ChatSpeed {
  readonly factor: number;
  readonly speed: number;
}

/** The steps up to `maxSpeed`, ending at `maxSpeed` itself. */
export function speedSteps(maxSpeed: number): number[] {
  const top = Math.min(API_SPEED.max, maxSpeed);
  if (!(top > 1)) return [1];
  return [...SPEED_STEPS.filter((step) => step < top), top];
}

/**
 * The speed of the next chat turn: a step up from `current` when the forecast wait passes half
 * of max-age, a step down below a quarter, else the same step; first a step down per
 * {@link CALM_STEP_MS} of silence; never below the base speed.
 */
export function speedFor(input: SpeedInput): ChatSpeed {
  const steps = speedSteps(input.maxSpeed);
  let index = 0;
  steps.forEach((step, i) => {
    if (step <= input.current + 1e-9) index = i;
  });
  const quietSteps = Math.floor(Math.max(0, input.quietMs ?? 0) / CALM_STEP_MS);
  index = Math.max(0, index - quietSteps);
  const pressure = input.maxAgeMs > 0 ? input.forecastWaitMs / input.maxAgeMs : 0;
  if (pressure > SPEED_UP_AT) index = Math.min(steps.length - 1, index + 1);
  else if (pressure < CALM_BELOW) index = Math.max(0, index - 1);
  const factor = steps[index] ?? 1;
  return { factor, speed: speedAt(input.baseSpeed, factor) };
}

/** The API speed of a voice whose own speed is `baseSpeed`, sped up by `factor`; never below its own. */
export function speedAt(baseSpeed: number, factor: number): number {
  const base = Math.min(API_SPEED.max, Math.max(API_SPEED.min, baseSpeed));
  const speed = Math.min(API_SPEED.max, Math.round(base * factor * 100) / 100);
  return factor === 1 ? base : Math.max(base, speed);
}

/**
 * How long chat speech takes per character at any speed: learned at speed 1 from turns played
 * at whatever speed they had (the API's speech is assumed to last 1/speed as long).
 */
export class SpeedAwareRate {
  readonly #atNormal: SpeechRate;

  constructor(initialMsPerChar?: number) {
    this.#atNormal = new SpeechRate(initialMsPerChar);
  }

  /** The estimate at speed 1, in ms per character. */
  get msPerCharAtNormal(): number {
    return this.#atNormal.msPerChar;
  }

  /** The forecast in ms per character for turns generated at `speed`. */
  msPerChar(speed: number): number {
    return this.#atNormal.msPerChar / (speed > 0 ? speed : 1);
  }

  /** A turn of `characters` (as the backlog counts them), generated at `speed`, played for `durationMs`. */
  observe(characters: number, durationMs: number, speed: number): void {
    this.#atNormal.observe(characters, durationMs * (speed > 0 ? speed : 1));
  }
}

/**
 * Whether a busy chat's next turn names its authors in the compact form ("Bobby, …"): from
 * when the forecast wait passes half of max-age (where speed-ups step up) until it falls below
 * a quarter (where they step down), so the glue follows the same signal and never flaps.
 */
export function compactGlue(forecastWaitMs: number, maxAgeMs: number, current: boolean): boolean {
  const pressure = maxAgeMs > 0 ? forecastWaitMs / maxAgeMs : 0;
  if (pressure > SPEED_UP_AT) return true;
  if (pressure < CALM_BELOW) return false;
  return current;
}
