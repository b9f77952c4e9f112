/**
 * Child process for voice-server.test.ts: joins with @discordjs/voice, trusting the fake's
 * certificate through NODE_EXTRA_CA_CERTS as a bot process would, and destroys the connection
 * in the same event-loop turn that created its UDP socket. argv[2]: JSON of `ChildArgs`.
 * With `guard: 'defer'` the destroy waits one `setImmediate` turn instead; with `guard: 'filter'`
 * an uncaughtException handler ignores exactly this error and exits on any other.
 */
import { joinVoiceChannel, NetworkingStatusCode, VoiceConnectionStatus } from '@discordjs/voice';
import { fakeAdapterCreator } from './test-client.ts';

/** What the parent test hands the child. */
export interface ChildArgs {
  endpoint: string;
  token: string;
  guildId: string;
  channelId: string;
  userId: string;
  sessionId: string;
  guard: 'none' | 'defer' | 'filter';
}

const args = JSON.parse(process.argv[2] ?? '{}') as ChildArgs;
const { endpoint, token, guildId, channelId, userId, sessionId, guard } = args;

if (guard === 'filter') {
  process.on('uncaughtException', (error: Error & { code?: string }) => {
    const keepAliveRace =
      error.code === 'ERR_SOCKET_DGRAM_NOT_RUNNING' &&
      error.stack?.includes('VoiceUDPSocket.keepAlive') === true;
    if (keepAliveRace) {
      console.log('ignored ERR_SOCKET_DGRAM_NOT_RUNNING from VoiceUDPSocket.keepAlive');
      return;
    }
    console.error(error);
    process.exit(1);
  });
}

const connection = joinVoiceChannel({
  guildId,
  channelId,
  adapterCreator: fakeAdapterCreator(
    { open: () => ({ endpoint, token }), close: () => undefined },
    { userId, sessionId },
  ),
});
connection.on('error', (error) => console.error(`connection error: ${error.message}`));
connection.on('stateChange', (_, state) => {
  if (state.status !== VoiceConnectionStatus.Connecting) return;
  if (state.networking.state.code !== NetworkingStatusCode.UdpHandshaking) return;
  console.log('udp socket created; destroying');
  if (guard === 'defer') setImmediate(() => connection.destroy());
  else connection.destroy();
});
setTimeout(() => {
  console.log(`survived; connection ${connection.state.status}`);
}, 500);
