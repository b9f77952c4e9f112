/**
 * Why a voice connection went down: the library's disconnect state as a `DisconnectCause`, and
 * the voice close codes that must not be retried (4021, 4022).
 */
import {
  VoiceConnectionDisconnectReason,
  type VoiceConnectionState,
  VoiceConnectionStatus,
} from '@discordjs/voice';

/** Why the library says the connection is down (its `VoiceConnectionDisconnectReason`, by name). */
export type DisconnectCause =
  | { readonly kind: 'websocket-close'; readonly closeCode: number }
  | { readonly kind: 'adapter-unavailable' }
  | { readonly kind: 'endpoint-removed' }
  | { readonly kind: 'manual' };

/** Why a link ended that must not be retried, as the server is told (`notices.lost_<detail>`). */
export type LostDetail = 'rate_limited' | 'call_terminated';

/**
 * Voice close codes Discord documents as "should not reconnect": 4021, the bot was rate limited;
 * 4022, the call was terminated (a full or ended call). Retrying them only repeats the refusal.
 */
const FINAL_CLOSE_CODES: ReadonlyMap<number, LostDetail> = new Map([
  [4021, 'rate_limited'],
  [4022, 'call_terminated'],
]);

/** The detail of a voice close code that must not be retried; undefined for any other code. */
export function finalClose(code: number): LostDetail | undefined {
  return FINAL_CLOSE_CODES.get(code);
}

/** The cause of a Disconnected state, as the reconnect plan reads it; `manual` for any other state. */
export function causeOf(state: VoiceConnectionState): DisconnectCause {
  if (state.status !== VoiceConnectionStatus.Disconnected) return { kind: 'manual' };
  switch (state.reason) {
    case VoiceConnectionDisconnectReason.WebSocketClose:
      return { kind: 'websocket-close', closeCode: state.closeCode };
    case VoiceConnectionDisconnectReason.AdapterUnavailable:
      return { kind: 'adapter-unavailable' };
    case VoiceConnectionDisconnectReason.EndpointRemoved:
      return { kind: 'endpoint-removed' };
    default:
      return { kind: 'manual' };
  }
}
