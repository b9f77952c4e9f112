/** The one way a voice connection is destroyed: one event-loop turn later. */
import { type VoiceConnection, VoiceConnectionStatus } from '@discordjs/voice';
import type { Logger } from '../log/index.ts';

/** Destroys a connection one event-loop turn later (see `VoiceLink.destroy`). */
export function destroyDeferred(connection: VoiceConnection, logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(() => {
      if (connection.state.status !== VoiceConnectionStatus.Destroyed) {
        try {
          connection.destroy();
        } catch (error) {
          logger.warn({ err: error }, 'destroying the voice connection failed');
        }
      }
      resolve();
    });
  });
}
