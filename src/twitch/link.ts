/**
 * The link to Twitch chat: one connection at a time, and a new one after it ends, with a
 * backoff, for as long as the owner wants it (some channel is read).
 */
import type { Logger } from '../log/index.ts';
import type { Clock } from '../tts/index.ts';
import { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from './backoff.ts';
import { TwitchConnection } from './connection.ts';
import type { IrcMessage } from './irc.ts';

/** Settings and callbacks of a {@link ChatLink}. */
export interface ChatLinkOptions {
  readonly url: string;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly random: () => number;
  readonly backoff?: BackoffPolicy;
  readonly pingIntervalMs?: number;
  readonly answerTimeoutMs?: number;
  /** Asked before each connection: false lets the link rest until `start` again. */
  readonly wanted: () => boolean;
  /** A connection logged in: join the channels. */
  readonly onRegistered: () => void;
  readonly onLine: (message: IrcMessage, receivedAt: number) => void;
  /** A connection ended; another follows if still wanted. */
  readonly onClosed: (why: string) => void;
}

/** Keeps one anonymous chat connection up while wanted. */
export class ChatLink {
  readonly #options: ChatLinkOptions;
  readonly #stop = new AbortController();
  #connection: TwitchConnection | undefined;
  #registered = false;
  #loop: Promise<void> | undefined;

  constructor(options: ChatLinkOptions) {
    this.#options = options;
  }

  /** Logged in on the current connection. */
  get registered(): boolean {
    return this.#registered;
  }

  /** The current connection's nick (its own JOIN and PART echoes carry it). */
  get nick(): string | undefined {
    return this.#connection?.nick;
  }

  /** The stop signal: aborted once the link is closed for good. */
  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** Connects unless a connection (or the wait for one) is under way. */
  start(): void {
    if (this.#loop !== undefined || !this.#wanted()) return;
    this.#loop = this.#run().then(
      () => {
        this.#loop = undefined;
        this.start();
      },
      (error: unknown) => {
        this.#loop = undefined;
        this.#options.logger.error({ err: error }, 'Twitch chat stopped');
      },
    );
  }

  /** Sends a line on the current connection; false when there is none logged in. */
  send(line: string): boolean {
    return this.#registered && (this.#connection?.send(line) ?? false);
  }

  /** Ends the current connection; a new one follows if still wanted. */
  drop(why: string): void {
    this.#connection?.close(why);
  }

  /** Closes for good (shutdown). */
  async close(): Promise<void> {
    this.#stop.abort();
    this.#connection?.close('shutting down');
    await this.#loop;
  }

  #wanted(): boolean {
    return !this.#stop.signal.aborted && this.#options.wanted();
  }

  async #run(): Promise<void> {
    const policy = this.#options.backoff ?? DEFAULT_BACKOFF;
    let attempt = 0;
    for (let first = true; this.#wanted(); first = false) {
      if (!first) {
        const delayMs = backoffDelay(attempt++, this.#options.random, policy);
        this.#options.logger.info({ delayMs, attempt }, 'reconnecting to Twitch chat');
        if (!(await this.#pause(delayMs)) || !this.#wanted()) return;
      }
      if (await this.#session()) attempt = 0;
    }
  }

  /** Waits `ms`; false when the link closed meanwhile. */
  async #pause(ms: number): Promise<boolean> {
    try {
      await this.#options.clock.sleep(ms, this.#stop.signal);
      return true;
    } catch (error) {
      if (this.#stop.signal.aborted) return false;
      throw error;
    }
  }

  /** One connection, until it ends; true if it got as far as logging in. */
  #session(): Promise<boolean> {
    const options = this.#options;
    return new Promise((resolve) => {
      let registered = false;
      this.#connection = new TwitchConnection({
        url: options.url,
        nick: `justinfan${10_000 + Math.floor(options.random() * 90_000)}`,
        logger: options.logger,
        clock: options.clock,
        pingIntervalMs: options.pingIntervalMs ?? 60_000,
        answerTimeoutMs: options.answerTimeoutMs ?? 10_000,
        onRegistered: () => {
          registered = true;
          this.#registered = true;
          options.onRegistered();
        },
        onLine: options.onLine,
        onClosed: (why) => {
          this.#connection = undefined;
          this.#registered = false;
          options.onClosed(why);
          resolve(registered);
        },
      });
    });
  }
}
