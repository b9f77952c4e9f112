/**
 * Keeps a closed voice UDP socket from crashing the process. @discordjs/voice 0.19 sends a
 * socket's first keep-alive from a `setImmediate` that its `destroy()` never cancels: a socket
 * closed before that turn (a leave a few milliseconds into a join, a voice server that hangs up
 * right after Ready) throws ERR_SOCKET_DGRAM_NOT_RUNNING from a timer, where nothing can catch
 * it. No delay on our side closes that window, since the library may close the socket itself.
 * So each socket a connection makes gets a `send` that drops a datagram to a closed socket, as
 * UDP drops datagrams anyway; every other error is thrown as before.
 */
import type {
  NetworkingState,
  VoiceConnection,
  VoiceConnectionState,
  VoiceUDPSocket,
} from '@discordjs/voice';

const guarded = new WeakSet<object>();

/** True for the error `dgram` throws when sending on a socket that is closed. */
export function isSocketNotRunning(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as Error & { code?: unknown }).code === 'ERR_SOCKET_DGRAM_NOT_RUNNING'
  );
}

/** Makes `udp.send` drop a datagram once the socket is closed, instead of throwing. Idempotent. */
export function guardUdpSocket(udp: VoiceUDPSocket): void {
  if (guarded.has(udp)) return;
  guarded.add(udp);
  const send = udp.send.bind(udp);
  udp.send = (buffer: Buffer): void => {
    try {
      send(buffer);
    } catch (error) {
      if (!isSocketNotRunning(error)) throw error;
    }
  };
}

function udpOf(state: NetworkingState): VoiceUDPSocket | undefined {
  return 'udp' in state ? state.udp : undefined;
}

/**
 * Guards every UDP socket `connection` makes, now and on every reconnect. The library creates a
 * socket and announces it (networking `stateChange`) in the same turn, before its first
 * keep-alive, so the guard is always in place in time.
 */
export function guardVoiceConnection(connection: VoiceConnection): void {
  const watch = (state: VoiceConnectionState): void => {
    const networking = 'networking' in state ? state.networking : undefined;
    if (networking === undefined || guarded.has(networking)) return;
    guarded.add(networking);
    const udp = udpOf(networking.state);
    if (udp !== undefined) guardUdpSocket(udp);
    networking.on('stateChange', (_from, to) => {
      const next = udpOf(to);
      if (next !== undefined) guardUdpSocket(next);
    });
  };
  watch(connection.state);
  connection.on('stateChange', (_from, to) => watch(to));
}
