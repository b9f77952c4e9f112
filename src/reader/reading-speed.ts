/**
 * How fast one server's chat is read now: the rate its speech was heard at, learned from what
 * played, the busy chat's speed-up and compact glue decided turn by turn from the backlog's
 * forecast, and how long the chat has been quiet (see `chat-speed.ts` for the rules).
 */
import type { Logger } from '../log/index.ts';
import type { ChatBacklog } from './backlog.ts';
import { compactGlue, SpeedAwareRate, speedFor } from './chat-speed.ts';
import type { ReaderMessage } from './turn.ts';

/** What {@link ReadingSpeed} works with. */
export interface ReadingSpeedOptions {
  readonly guildId: string;
  readonly backlog: Pick<ChatBacklog<ReaderMessage>, 'oldest' | 'chars'>;
  readonly logger: Logger;
  /** Choruses, chatter shares, priority and speed-ups; false reads as before them. */
  readonly busyChat: boolean;
}

/** The speed a server's chat turns are read at, and the speech rate the forecasts use. */
export class ReadingSpeed {
  readonly #options: ReadingSpeedOptions;
  /** How long the chat's speech takes per character (at speed 1), learned from what played. */
  readonly #rate = new SpeedAwareRate();
  /** How much faster than its voice the chat is read now (1: not at all). */
  #speedFactor = 1;
  /** When the last chat speech ended with none playing after it; undefined while some plays. */
  #quietSince: number | undefined;
  /** Whether the chat is read with the compact glue now (busy chat only). */
  #compact = false;

  constructor(options: ReadingSpeedOptions) {
    this.#options = options;
  }

  /** How much faster than its voice the chat is read now (1: not at all). */
  get factor(): number {
    return this.#speedFactor;
  }

  /** Whether the chat is read with the compact glue now. */
  get compact(): boolean {
    return this.#compact;
  }

  /** The forecast in ms per character for turns generated at `speed`. */
  msPerChar(speed: number): number {
    return this.#rate.msPerChar(speed);
  }

  /** A turn of `characters` (as the backlog counts them), generated at `speed`, played for `durationMs`. */
  played(characters: number, durationMs: number, speed: number): void {
    this.#rate.observe(characters, durationMs, speed);
  }

  /** Chat speech started playing: the chat is not quiet. */
  playing(): void {
    this.#quietSince = undefined;
  }

  /** Chat speech ended with none playing after it: quiet from `now`, unless it already was. */
  quiet(now: number): void {
    this.#quietSince ??= now;
  }

  /** How long the chat has been quiet before a turn: 0 while speech is ahead of it. */
  quietMs(aheadMs: number, now: number): number {
    return aheadMs > 0 || this.#quietSince === undefined ? 0 : now - this.#quietSince;
  }

  /**
   * The speed of the next turn: faster, a step a turn, while the newest waiting message is
   * forecast to be heard late (past half of max-age), and back as the chat calms; the compact
   * glue follows the same forecast (at the glue of the moment: `glue` characters when compact).
   */
  speedOf(
    aheadMs: number,
    maxAgeMs: number,
    maxSpeed: number,
    glue: number,
    quietMs: number,
  ): number {
    const { backlog, busyChat } = this.#options;
    const base = backlog.oldest()?.voice.request.speed ?? 1;
    const chars = backlog.chars(this.#compact ? glue : undefined);
    const forecastWaitMs = aheadMs + this.#rate.msPerChar(base * this.#speedFactor) * chars;
    this.#compact = busyChat && compactGlue(forecastWaitMs, maxAgeMs, this.#compact);
    const chosen = speedFor({
      forecastWaitMs,
      maxAgeMs,
      baseSpeed: base,
      maxSpeed,
      current: this.#speedFactor,
      quietMs,
    });
    if (chosen.factor !== this.#speedFactor) {
      const { guildId, logger } = this.#options;
      logger.info({ guildId, factor: chosen.factor, forecastWaitMs }, 'chat speed changed');
    }
    this.#speedFactor = chosen.factor;
    return chosen.speed;
  }
}
