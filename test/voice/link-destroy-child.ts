/**
 * Child process for crash-guard.test.ts: joins through `VoiceLink` (trusting the fake voice
 * server through NODE_EXTRA_CA_CERTS) and calls `link.destroy()` at a chosen moment, including
 * the event-loop turn that created the UDP socket, WITHOUT any uncaughtException handler: an
 * ERR_SOCKET_DGRAM_NOT_RUNNING would kill the process. argv[2]: JSON of `LinkChildArgs`.
 */
import { NetworkingStatusCode, VoiceConnectionStatus } from '@discordjs/voice';
import pino from 'pino';
import { systemClock } from '../../src/tts/index.ts';
import { DEFAULT_RECONNECT_POLICY, VoiceLink } from '../../src/voice/index.ts';
import { fakeAdapterCreator } from '../fake-discord/voice/test-client.ts';

/** What the parent hands the child. */
export interface LinkChildArgs {
  endpoint: string;
  token?: string;
  guildId: string;
  channelId: string;
  userId: string;
  sessionId: string;
  /** When to destroy; `udp-closed` closes the new UDP socket itself in the turn it was made. */
  at: 'udp-handshake' | 'signalling' | 'ready' | 'udp-closed';
}

const args = JSON.parse(process.argv[2] ?? '{}') as LinkChildArgs;
const { endpoint, token = '', guildId, channelId, userId, sessionId, at } = args;

const link = await VoiceLink.open(
  {
    guildId,
    channelId,
    adapterCreator: fakeAdapterCreator(
      { open: () => ({ endpoint, token }), close: () => undefined },
      { userId, sessionId },
    ),
  },
  {
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    readyTimeoutMs: 5000,
    policy: DEFAULT_RECONNECT_POLICY,
    onLost: (why) => console.error(`lost: ${why}`),
  },
);
let destroying: Promise<void> | undefined;
const destroy = (): void => {
  if (destroying) return;
  console.log(`destroying at ${at}`);
  destroying = link.destroy();
};
if (at === 'signalling') destroy();
link.connection.on('stateChange', (_, state) => {
  if (at === 'ready' && state.status === VoiceConnectionStatus.Ready) destroy();
  if (state.status !== VoiceConnectionStatus.Connecting) return;
  const networking = state.networking.state;
  if (networking.code !== NetworkingStatusCode.UdpHandshaking) return;
  if (at === 'udp-handshake') destroy();
  // As the library does when the voice server hangs up: the socket closes before its first
  // keep-alive, which @discordjs/voice 0.19 still sends from a setImmediate.
  if (at === 'udp-closed' && !closedUdp) {
    closedUdp = true;
    console.log('closing the UDP socket at once');
    networking.udp.destroy();
  }
});
let closedUdp = false;
setTimeout(() => {
  console.log(`survived; link ${link.state}, connection ${link.connection.state.status}`);
  destroy();
}, 1500);
