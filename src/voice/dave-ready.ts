/**
 * End-to-end encryption (DAVE) readiness of a voice connection: whether its MLS group exists,
 * and a wait until it does.
 */
import { type DAVESession, type VoiceConnection, VoiceConnectionStatus } from '@discordjs/voice';

/**
 * Resolves once the connection's end-to-end encryption (DAVE) group exists, at once when DAVE is
 * not in use. @discordjs/voice 0.19 calls a connection Ready at Session Description, before the
 * MLS group exists, and would send the first frames in plaintext (Discord drops them).
 */
export function daveGroupFormed(connection: VoiceConnection, signal: AbortSignal): Promise<void> {
  if (daveReady(connection)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (): void => {
      if (!daveReady(connection)) return;
      finish();
      resolve();
    };
    const abort = (): void => {
      finish();
      reject(new Error('the end-to-end encryption (DAVE) handshake did not finish'));
    };
    const finish = (): void => {
      connection.off('transitioned', done);
      connection.off('stateChange', done);
      signal.removeEventListener('abort', abort);
    };
    connection.on('transitioned', done);
    connection.on('stateChange', done);
    signal.addEventListener('abort', abort, { once: true });
    if (signal.aborted) abort();
  });
}

/** True when the connection is Ready and either speaks no DAVE or its DAVE session is ready. */
export function daveReady(connection: VoiceConnection): boolean {
  const state = connection.state;
  if (state.status !== VoiceConnectionStatus.Ready) return false;
  const dave = daveSessionOf(connection);
  if (!dave || dave.protocolVersion === 0) return true;
  return dave.session?.ready === true;
}

/** The library's DAVE session of the connection's current networking, if any. */
export function daveSessionOf(connection: VoiceConnection): DAVESession | undefined {
  const state = connection.state;
  const networking = 'networking' in state ? state.networking.state : undefined;
  return networking && 'dave' in networking ? networking.dave : undefined;
}
