import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test, vi } from 'vitest';
import { installVoiceCrashGuard, isVoiceKeepAliveRace } from '../../src/voice/index.ts';
import { fakeVoiceCertificate, startFakeVoiceServer } from '../fake-discord/voice/index.ts';
import type { LinkChildArgs } from './link-destroy-child.ts';

function keepAliveRace(): Error {
  const error = Object.assign(new Error('Not running'), { code: 'ERR_SOCKET_DGRAM_NOT_RUNNING' });
  error.stack = `Error [ERR_SOCKET_DGRAM_NOT_RUNNING]: Not running
    at healthCheck (node:dgram:908:11)
    at Socket.send (node:dgram:622:3)
    at VoiceUDPSocket.keepAlive (node_modules/@discordjs/voice/dist/index.mjs:870:15)
    at listOnTimeout (node:internal/timers:588:17)`;
  return error;
}

function fakeProcess() {
  const emitter = new EventEmitter();
  const exit = vi.fn();
  const target = Object.assign(emitter, { exit: exit as unknown as (code: number) => never });
  return { target, exit };
}

describe('isVoiceKeepAliveRace', () => {
  test.each([
    ['the race', keepAliveRace(), true],
    [
      'the code from elsewhere',
      Object.assign(new Error('x'), { code: 'ERR_SOCKET_DGRAM_NOT_RUNNING' }),
      false,
    ],
    [
      'a keep-alive stack with another code',
      Object.assign(keepAliveRace(), { code: 'EPIPE' }),
      false,
    ],
    ['a plain error', new Error('boom'), false],
    ['not an error', 'ERR_SOCKET_DGRAM_NOT_RUNNING VoiceUDPSocket.keepAlive', false],
  ])('%s → %s', (_, error, expected) => {
    expect(isVoiceKeepAliveRace(error)).toBe(expected);
  });
});

describe('installVoiceCrashGuard', () => {
  test('ignores the race with a warning, logs and exits 1 on anything else', () => {
    const { target, exit } = fakeProcess();
    const logger = { warn: vi.fn(), fatal: vi.fn() };
    const uninstall = installVoiceCrashGuard(target, logger);
    target.emit('uncaughtException', keepAliveRace());
    expect(exit).not.toHaveBeenCalled();
    expect(logger.warn).toHaveBeenCalledOnce();
    const other = new TypeError('undefined is not a function');
    target.emit('uncaughtException', other);
    expect(logger.fatal).toHaveBeenCalledWith({ err: other }, 'uncaught exception');
    expect(exit).toHaveBeenCalledWith(1);
    uninstall();
    expect(target.listenerCount('uncaughtException')).toBe(0);
  });
});

describe('the one destroy path in a child process (no guard installed)', () => {
  const run = promisify(execFile);
  const child = fileURLToPath(new URL('./link-destroy-child.ts', import.meta.url));

  async function runChild(at: LinkChildArgs['at']) {
    const server = await startFakeVoiceServer({ heartbeatIntervalMs: 500 });
    try {
      const args: LinkChildArgs = {
        guildId: '220000000000000001',
        channelId: '300000000000000001',
        userId: '100000000000000001',
        sessionId: `child-${at}`,
        at,
        endpoint: server.endpoint,
      };
      const opened = server.open(args);
      const { certPath } = await fakeVoiceCertificate();
      const env = { ...process.env, NODE_EXTRA_CA_CERTS: certPath };
      return await run(
        process.execPath,
        [child, JSON.stringify({ ...args, token: opened.token })],
        {
          env,
        },
      ).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    } finally {
      await server.close();
    }
  }

  test.each(['udp-handshake', 'signalling', 'ready'] as const)(
    'VoiceLink.destroy() during %s: no uncaught ERR_SOCKET_DGRAM_NOT_RUNNING',
    async (at) => {
      const result = await runChild(at);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`destroying at ${at}`);
      expect(result.stdout).toContain('survived; link gone, connection destroyed');
    },
  );

  test('a UDP socket the library closes in the turn it made it: no uncaught error', async () => {
    const result = await runChild('udp-closed');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('closing the UDP socket at once');
    expect(result.stdout).toContain('survived');
  });
});
