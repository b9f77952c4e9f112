/**
 * Child process for udp-guard.test.ts: makes a real @discordjs/voice `VoiceUDPSocket` and closes
 * it in the same turn, before the first keep-alive the library sends from a setImmediate, with
 * no uncaughtException handler. argv[2]: `guarded` (through `guardUdpSocket`) or `bare`.
 */
import { VoiceUDPSocket } from '@discordjs/voice';
import { guardUdpSocket } from '../../src/voice/index.ts';

const udp = new VoiceUDPSocket({ ip: '127.0.0.1', port: 9 });
if (process.argv[2] === 'guarded') guardUdpSocket(udp);
udp.destroy();
setTimeout(() => console.log('survived'), 50);
