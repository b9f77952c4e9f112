/**
 * Lifecycle of the bot's link to one guild's voice channel: a string union, the one
 * transition function every change goes through, and the reconnect plan for a disconnect.
 * Pure: no timers, no sockets.
 */
import type { DisconnectCause } from './close-causes.ts';

/** Where a guild's voice link is. `gone` is final: a new `/join` makes a new link. */
export type LinkState = 'joining' | 'ready' | 'reconnecting' | 'leaving' | 'gone';

/**
 * What can happen to a link. `connecting`: the library is signalling or connecting (first
 * join, a move, a rejoin); `ready`: audio can flow; `lost`: the library reports Disconnected;
 * `leave`: the one destroy path starts; `destroyed`: the library connection is destroyed.
 */
export type LinkEvent = 'connecting' | 'ready' | 'lost' | 'leave' | 'destroyed';

const TRANSITIONS: Readonly<Record<LinkState, Partial<Record<LinkEvent, LinkState>>>> = {
  joining: { connecting: 'joining', ready: 'ready', lost: 'reconnecting', leave: 'leaving' },
  ready: { connecting: 'joining', ready: 'ready', lost: 'reconnecting', leave: 'leaving' },
  reconnecting: { connecting: 'joining', ready: 'ready', lost: 'reconnecting', leave: 'leaving' },
  leaving: { connecting: 'leaving', ready: 'leaving', lost: 'leaving', destroyed: 'gone' },
  gone: {},
};

/** The state after `event` in `from`; undefined when the move is not allowed (a late event). */
export function nextLinkState(from: LinkState, event: LinkEvent): LinkState | undefined {
  return TRANSITIONS[from][event];
}

/** What to do about a disconnect. */
export type ReconnectPlan =
  /** Discord may be moving us (4014): wait for Signalling/Connecting, else destroy. */
  | { readonly kind: 'await-move'; readonly timeoutMs: number }
  /** Ask to join again after a pause that grows with each attempt. */
  | { readonly kind: 'rejoin'; readonly delayMs: number }
  /** Destroy the link and tell the guild why. */
  | { readonly kind: 'give-up'; readonly why: string };

/** Settings of the reconnect plan; the defaults are the @discordjs/voice guide's. */
export interface ReconnectPolicy {
  /** How long a 4014 close may take to turn into a move; default 5000. */
  readonly moveTimeoutMs: number;
  /** Rejoin attempts before giving up; default 5. */
  readonly maxRejoinAttempts: number;
  /** Pause before rejoin attempt n (1-based) is n times this; default 5000. */
  readonly rejoinBackoffMs: number;
}

/** The @discordjs/voice guide's reconnect timings. */
export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = {
  moveTimeoutMs: 5000,
  maxRejoinAttempts: 5,
  rejoinBackoffMs: 5000,
};

/** Decides how to recover from a disconnect, given the library's rejoin attempts so far. */
export function reconnectPlan(
  cause: DisconnectCause,
  rejoinAttempts: number,
  policy: ReconnectPolicy = DEFAULT_RECONNECT_POLICY,
): ReconnectPlan {
  if (cause.kind === 'manual') return { kind: 'give-up', why: 'the connection was closed' };
  if (cause.kind === 'websocket-close' && cause.closeCode === 4014) {
    return { kind: 'await-move', timeoutMs: policy.moveTimeoutMs };
  }
  if (rejoinAttempts < policy.maxRejoinAttempts) {
    return { kind: 'rejoin', delayMs: (rejoinAttempts + 1) * policy.rejoinBackoffMs };
  }
  const what =
    cause.kind === 'websocket-close'
      ? `the voice server closed the connection (code ${cause.closeCode})`
      : cause.kind === 'adapter-unavailable'
        ? 'the gateway connection was not available'
        : 'Discord removed the voice server';
  return { kind: 'give-up', why: `${what}, ${rejoinAttempts} reconnect attempts failed` };
}
