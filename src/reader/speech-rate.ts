/**
 * How long the chat's speech takes per character, learned from the turns that played, so the
 * backlog can tell which messages could still be heard within max-age (voices, speeds and
 * languages differ from the textbook rate). Pure.
 */
import { SPOKEN_CHARACTERS_PER_SECOND } from '../queue/index.ts';

/** Weight of the newest turn in the running average, once the first turns are learned. */
const WEIGHT = 0.3;
/** Turns shorter than this (in characters) say little about the rate and are not learned from. */
const MIN_CHARACTERS = 20;
/** Bounds of a believable rate in ms per character: a glitch never stops the chat being read. */
export const RATE_BOUNDS = { min: 5, max: 400 } as const;

/** A running estimate of ms of speech per character of chat. */
export class SpeechRate {
  #msPerChar: number;
  /** Turns learned from so far: the first ones are averaged plainly, so the textbook start goes at once. */
  #observed = 0;

  constructor(initialMsPerChar = 1000 / SPOKEN_CHARACTERS_PER_SECOND) {
    this.#msPerChar = initialMsPerChar;
  }

  /** The current estimate, in ms per character. */
  get msPerChar(): number {
    return this.#msPerChar;
  }

  /** A turn of `characters` (as the backlog counts them) played for `durationMs`. */
  observe(characters: number, durationMs: number): void {
    if (!(characters >= MIN_CHARACTERS) || !(durationMs > 0)) return;
    const sample = Math.min(RATE_BOUNDS.max, Math.max(RATE_BOUNDS.min, durationMs / characters));
    this.#observed += 1;
    this.#msPerChar += Math.max(WEIGHT, 1 / this.#observed) * (sample - this.#msPerChar);
  }
}
