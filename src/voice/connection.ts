/**
 * One guild's @discordjs/voice connection: join, wait until ready, recover from disconnects
 * with timeouts, and the one destroy path (deferred a turn, see `destroy`).
 */
import {
  type AudioPlayer,
  type DAVESession,
  entersState,
  getVoiceConnection,
  joinVoiceChannel,
  type PlayerSubscription,
  type VoiceConnection,
  type VoiceConnectionState,
  VoiceConnectionStatus,
} from '@discordjs/voice';
import type { Logger } from '../log/index.ts';
import type { Clock } from '../tts/index.ts';
import { causeOf, type DisconnectCause, finalClose, type LostDetail } from './close-causes.ts';
import { daveGroupFormed, daveReady, daveSessionOf } from './dave-ready.ts';
import { deadline } from './deadline.ts';
import { destroyDeferred } from './deferred-destroy.ts';
import {
  type LinkEvent,
  type LinkState,
  nextLinkState,
  type ReconnectPolicy,
  reconnectPlan,
} from './link-state.ts';
import type { VoiceTarget } from './types.ts';
import { guardVoiceConnection } from './udp-guard.ts';

/** Settings of a {@link VoiceLink}. */
export interface VoiceLinkOptions {
  readonly logger: Logger;
  readonly clock: Clock;
  /** Longest wait for Ready after a join, move or reconnect. */
  readonly readyTimeoutMs: number;
  readonly policy: ReconnectPolicy;
  /**
   * Called once when the link cannot recover (`detail`: a close that must not be retried); the
   * owner then leaves (and destroys it).
   */
  readonly onLost: (why: string, detail?: LostDetail) => void;
}

/**
 * The bot's connection to one guild's voice channel. The only way voice connections are made
 * and destroyed: every leave goes through {@link VoiceLink.destroy}.
 */
export class VoiceLink {
  readonly guildId: string;
  readonly connection: VoiceConnection;
  readonly #options: VoiceLinkOptions;
  readonly #stop = new AbortController(); // aborts every wait once the link is left
  #state: LinkState = 'joining';
  #channelId: string;
  #watchdog: AbortController | undefined;
  #destroyed: Promise<void> | undefined;
  #player: AudioPlayer | undefined;
  #subscription: PlayerSubscription | undefined;
  /** The library DAVE session whose events `#gate` follows. */
  #dave: DAVESession | undefined;
  #gating = false;
  readonly #onDave = (): void => this.#gate();
  /** The library networking whose `close` `#followNetworking` put behind its own handler. */
  #networking: object | undefined;

  /** Joins `target`, first destroying any connection the library still tracks for the guild. */
  static async open(target: VoiceTarget, options: VoiceLinkOptions): Promise<VoiceLink> {
    const ghost = getVoiceConnection(target.guildId);
    if (ghost !== undefined) {
      options.logger.warn({ guildId: target.guildId }, 'destroying an untracked voice connection');
      guardVoiceConnection(ghost);
      await destroyDeferred(ghost, options.logger);
    }
    return new VoiceLink(target, options);
  }

  private constructor(target: VoiceTarget, options: VoiceLinkOptions) {
    this.guildId = target.guildId;
    this.#channelId = target.channelId;
    this.#options = options;
    this.connection = joinVoiceChannel({
      guildId: target.guildId,
      channelId: target.channelId,
      adapterCreator: target.adapterCreator,
      selfDeaf: true,
      selfMute: false,
    });
    guardVoiceConnection(this.connection);
    this.connection.on('stateChange', (from, to) => this.#onStateChange(from, to));
    this.connection.on('transitioned', this.#onDave);
    this.connection.on('error', (error) => {
      options.logger.warn({ err: error, guildId: this.guildId }, 'voice connection error');
    });
  }

  /** Where the link is. */
  get state(): LinkState {
    return this.#state;
  }

  /** The voice channel joined (or being joined). */
  get channelId(): string {
    return this.#channelId;
  }

  /** Resolves once audio can flow; rejects after `readyTimeoutMs` or when the link is left. */
  async ready(): Promise<void> {
    const timeout = deadline(this.#options.clock, this.#options.readyTimeoutMs, this.#stop.signal);
    try {
      await entersState(this.connection, VoiceConnectionStatus.Ready, timeout.signal);
      await daveGroupFormed(this.connection, timeout.signal);
    } catch (error) {
      if (this.#stop.signal.aborted) throw new Error('left the voice channel while joining');
      throw new Error(
        `could not connect to the voice channel within ${this.#options.readyTimeoutMs} ms`,
        { cause: error },
      );
    } finally {
      timeout.abort();
    }
  }

  /** Moves to another channel of the guild (the library rejoins); wait with `ready()`. */
  move(channelId: string): void {
    this.#channelId = channelId;
    this.connection.rejoin({ channelId, selfDeaf: true, selfMute: false });
  }

  /** Records a move made by someone else (Discord told us the bot is now in `channelId`). */
  movedTo(channelId: string): void {
    this.#channelId = channelId;
  }

  /**
   * Plays `player` on this connection, but only while its frames leave end-to-end encrypted (see
   * `#gate`).
   */
  subscribe(player: AudioPlayer): void {
    this.#player = player;
    this.#gate();
  }

  /** Whether the player is subscribed now (false while the DAVE session is not ready). */
  get audioOpen(): boolean {
    return this.#subscription !== undefined;
  }

  /**
   * @discordjs/voice 0.19 sends a frame in plaintext whenever its DAVE session is not ready
   * (`DAVESession.encrypt` passes it through): after Session Description, and while the session
   * reinitialises after an invalid commit or Welcome (op 31) until the voice server re-adds it.
   * Discord's clients drop such frames, so the speech was cut. The player is subscribed only
   * while the session is ready; unsubscribed, it pauses on the frame it was at (`noSubscriber:
   * Pause`) and goes on from there: nothing cut, nothing repeated, never a plaintext frame. A
   * session that does not become ready again within `readyTimeoutMs` loses the link.
   */
  #gate(): void {
    // (Un)subscribing sets the connection's state, whose stateChange comes back here.
    if (this.#gating) return;
    this.#gating = true;
    try {
      this.#followDave();
      const player = this.#player;
      if (player === undefined || this.#destroyed !== undefined) return;
      const open = daveReady(this.connection);
      if (open && this.#subscription === undefined) {
        this.#subscription = this.connection.subscribe(player);
        // Ready again (after op 31 the re-add comes as a DAVE `debug` event): the watchdog ends
        // here, not through the stateChange that subscribing happens to emit.
        this.#endWatch();
      } else if (!open && this.#subscription !== undefined) {
        this.#subscription.unsubscribe();
        this.#subscription = undefined;
        if (this.connection.state.status === VoiceConnectionStatus.Ready) this.#watchDave();
      }
    } finally {
      this.#gating = false;
    }
  }

  // The DAVE session changes with each networking; its steps (reinit, commit, Welcome) re-gate.
  #followDave(): void {
    const dave = daveSessionOf(this.connection);
    if (dave === this.#dave) return;
    this.#dave?.off('keyPackage', this.#onDave);
    this.#dave?.off('debug', this.#onDave);
    this.#dave = dave;
    dave?.on('keyPackage', this.#onDave);
    dave?.on('debug', this.#onDave);
  }

  // A DAVE session lost while Ready (op 31) must come back in time, or the link is lost.
  #watchDave(): void {
    if (this.#watchdog !== undefined) return;
    const { readyTimeoutMs, logger } = this.#options;
    logger.info({ guildId: this.guildId }, 'voice paused until the DAVE session is ready again');
    this.#watch(
      (signal) => daveGroupFormed(this.connection, signal),
      `the end-to-end encryption (DAVE) session was not ready again within ${readyTimeoutMs} ms`,
    );
  }

  // A rejoin or move that never reaches Ready must not leave a half-open link.
  #watchReconnect(): void {
    this.#watch(async (signal) => {
      await entersState(this.connection, VoiceConnectionStatus.Ready, signal);
      await daveGroupFormed(this.connection, signal);
    }, `could not reconnect within ${this.#options.readyTimeoutMs} ms`);
  }

  // The one watchdog: the link is lost (`why`) unless `recovered` settles within readyTimeoutMs,
  // or the watch is ended first (`#endWatch`: audio flows again) or the link is left.
  #watch(recovered: (signal: AbortSignal) => Promise<unknown>, why: string): void {
    if (this.#watchdog !== undefined) return;
    const { clock, readyTimeoutMs } = this.#options;
    const watchdog = deadline(clock, readyTimeoutMs, this.#stop.signal);
    this.#watchdog = watchdog;
    recovered(watchdog.signal).then(
      () => {
        if (this.#watchdog === watchdog) this.#watchdog = undefined;
        watchdog.abort();
      },
      () => {
        if (this.#watchdog !== watchdog || this.#stop.signal.aborted) return;
        this.#watchdog = undefined;
        this.#giveUp(why);
      },
    );
  }

  #endWatch(): void {
    this.#watchdog?.abort();
    this.#watchdog = undefined;
  }

  /**
   * The one destroy path. `connection.destroy()` runs one event-loop turn later: destroying in
   * the turn that created the UDP socket makes @discordjs/voice 0.19 throw
   * ERR_SOCKET_DGRAM_NOT_RUNNING from its keep-alive timer, uncaught. The delay alone does not
   * close that window (a socket made in the turn before still races), so every socket is also
   * guarded (`guardVoiceConnection`). Idempotent.
   */
  destroy(): Promise<void> {
    if (this.#destroyed === undefined) {
      this.#apply('leave');
      this.#stop.abort(new Error('voice link destroyed'));
      this.#destroyed = destroyDeferred(this.connection, this.#options.logger).then(() =>
        this.#apply('destroyed'),
      );
    }
    return this.#destroyed;
  }

  #apply(event: LinkEvent): void {
    const next = nextLinkState(this.#state, event);
    if (next === undefined) return; // a late library event after the link was left
    this.#options.logger.debug(
      { guildId: this.guildId, from: this.#state, event, to: next },
      'voice link',
    );
    this.#state = next;
  }

  #onStateChange(from: VoiceConnectionState, to: VoiceConnectionState): void {
    this.#followNetworking();
    this.#gate();
    if (from.status === to.status) return;
    const previous = this.#state;
    switch (to.status) {
      case VoiceConnectionStatus.Signalling:
      case VoiceConnectionStatus.Connecting:
        this.#apply('connecting');
        if (previous === 'ready' || previous === 'reconnecting') this.#watchReconnect();
        return;
      case VoiceConnectionStatus.Ready:
        this.#apply('ready');
        if (daveReady(this.connection)) this.#endWatch();
        return;
      case VoiceConnectionStatus.Disconnected:
        this.#apply('lost');
        void this.#recover(causeOf(to));
        return;
      case VoiceConnectionStatus.Destroyed:
        if (this.#state !== 'leaving' && this.#state !== 'gone') {
          this.#giveUp('the voice connection was destroyed');
        }
        this.#apply('destroyed');
        return;
    }
  }

  // The @discordjs/voice guide's Disconnected recipe, with timeouts on every wait.
  async #recover(cause: DisconnectCause): Promise<void> {
    const { clock, policy, logger } = this.#options;
    const plan = reconnectPlan(cause, this.connection.rejoinAttempts, policy);
    logger.info({ guildId: this.guildId, cause, plan }, 'voice connection disconnected');
    if (plan.kind === 'give-up') {
      this.#giveUp(plan.why);
    } else if (plan.kind === 'await-move') {
      const wait = deadline(clock, plan.timeoutMs, this.#stop.signal);
      try {
        await Promise.race([
          entersState(this.connection, VoiceConnectionStatus.Signalling, wait.signal),
          entersState(this.connection, VoiceConnectionStatus.Connecting, wait.signal),
        ]);
      } catch (error) {
        if (this.#stop.signal.aborted) return;
        logger.debug({ err: error, guildId: this.guildId }, 'no move after a disconnect');
        this.#giveUp('disconnected from the voice channel');
      } finally {
        wait.abort();
      }
    } else {
      try {
        await clock.sleep(plan.delayMs, this.#stop.signal);
      } catch (error) {
        logger.debug({ err: error, guildId: this.guildId }, 'rejoin wait ended: link left');
        return;
      }
      if (this.#state === 'reconnecting') this.connection.rejoin();
    }
  }

  /**
   * @discordjs/voice 0.19 answers every voice close but 4014 by joining again at once, for ever;
   * Discord says 4021 (rate limited) and 4022 (call terminated) must not be retried. Each new
   * networking's `close` goes through this link first: those two end the link once (the
   * library never sees them), any other goes on to the library's own handler, while that
   * networking is still the connection's (the library takes its handler off one it replaced).
   */
  #followNetworking(): void {
    const state = this.connection.state;
    const networking = 'networking' in state ? state.networking : undefined;
    if (networking === undefined || networking === this.#networking) return;
    this.#networking = networking;
    const theirs = networking.listeners('close');
    networking.removeAllListeners('close');
    networking.on('close', (code: number) => {
      const detail = finalClose(code);
      if (detail !== undefined) {
        this.#giveUp(`the voice server closed the connection (code ${code}), not retried`, detail);
        return;
      }
      const now = this.connection.state;
      if (!('networking' in now) || now.networking !== networking) return;
      for (const listener of theirs) Reflect.apply(listener, networking, [code]);
    });
  }

  #giveUp(why: string, detail?: LostDetail): void {
    if (this.#state === 'leaving' || this.#state === 'gone') return;
    this.#options.logger.warn(
      { guildId: this.guildId, why, ...(detail === undefined ? {} : { detail }) },
      'giving up on the voice connection',
    );
    this.#options.onLost(why, detail);
  }
}
