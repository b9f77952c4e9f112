import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { VoiceUDPSocket } from '@discordjs/voice';
import { describe, expect, test } from 'vitest';
import { guardUdpSocket, isSocketNotRunning } from '../../src/voice/index.ts';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./udp-guard-child.ts', import.meta.url));

async function runChild(mode: 'guarded' | 'bare') {
  return run(process.execPath, [child, mode]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe('a voice UDP socket closed before its first keep-alive', () => {
  test('bare, @discordjs/voice 0.19 crashes the process (the race the guard exists for)', async () => {
    const result = await runChild('bare');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ERR_SOCKET_DGRAM_NOT_RUNNING');
    expect(result.stdout).not.toContain('survived');
  });

  test('guarded, the keep-alive to the closed socket is dropped and the process lives', async () => {
    const result = await runChild('guarded');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('survived');
  });
});

describe('guardUdpSocket', () => {
  test('drops only the closed-socket error; other send errors still throw', async () => {
    const udp = new VoiceUDPSocket({ ip: '127.0.0.1', port: 9 });
    guardUdpSocket(udp);
    guardUdpSocket(udp); // idempotent: one wrapper
    await new Promise((resolve) => setImmediate(resolve)); // the library's first keep-alive
    expect(() => udp.send(Buffer.alloc(8))).not.toThrow();
    // A buffer of the wrong type is refused by dgram before the socket's state is looked at.
    expect(() => udp.send(42 as unknown as Buffer)).toThrow(TypeError);
    udp.destroy();
    expect(() => udp.send(Buffer.alloc(8))).not.toThrow();
    expect(() => VoiceUDPSocket.prototype.send.call(udp, Buffer.alloc(8))).toThrow(
      expect.objectContaining({ code: 'ERR_SOCKET_DGRAM_NOT_RUNNING' }),
    );
  });

  test.each([
    [
      'the closed-socket code',
      Object.assign(new Error('Not running'), { code: 'ERR_SOCKET_DGRAM_NOT_RUNNING' }),
      true,
    ],
    ['another code', Object.assign(new Error('x'), { code: 'EPIPE' }), false],
    ['no code', new Error('Not running'), false],
    ['not an error', 'ERR_SOCKET_DGRAM_NOT_RUNNING', false],
  ])('isSocketNotRunning: %s → %s', (_, error, expected) => {
    expect(isSocketNotRunning(error)).toBe(expected);
  });
});
