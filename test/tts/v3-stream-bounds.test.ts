/**
 * A v3 stream is bounded: a server that sends audio endlessly is failed once the stream gave
 * more than its text can, and a stream whose audio is let go hangs up its socket (which holds one
 * of the key's job slots).
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { openStream, streamByteCap } from '../../src/tts/v3/stream.ts';

/** A stream server that answers `started`, then sends 96 kB chunks (1 s of PCM) without end. */
function endlessServer(): { url: Promise<string>; closed: Promise<void>; stop: () => void } {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  const closed = Promise.withResolvers<void>();
  const timers = new Set<NodeJS.Timeout>();
  server.on('connection', (socket: WebSocket) => {
    socket.send(JSON.stringify({ type: 'started', generation_id: 'gen_endless' }));
    const timer = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN) socket.send(Buffer.alloc(96_000));
    }, 5);
    timers.add(timer);
    socket.on('close', () => {
      clearInterval(timer);
      closed.resolve();
    });
  });
  const url = new Promise<string>((resolve) =>
    server.on('listening', () => {
      resolve(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/v3/tts/stream`);
    }),
  );
  return {
    url,
    closed: closed.promise,
    stop: () => {
      for (const timer of timers) clearInterval(timer);
      for (const client of server.clients) client.terminate();
      server.close();
    },
  };
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('a bounded v3 stream', () => {
  test.each([
    [0, 30],
    [100, 100],
    [5_000, 600],
  ])('a text of %i characters may give %i s of PCM', (length, seconds) => {
    expect(streamByteCap('a'.repeat(length))).toBe(seconds * 96_000);
  });

  test('a stream that sends more than its text can give fails and hangs up', async () => {
    const server = endlessServer();
    stops.push(server.stop);
    const live = await openStream(
      { url: await server.url, apiKey: 'k', timeoutMs: 5_000 },
      { text: 'Short text.' },
    );
    let bytes = 0;
    const failed = await new Promise<unknown>((resolve) => {
      live.pcm.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      live.pcm.on('error', resolve);
    });
    expect(failed).toMatchObject({ kind: 'malformed_response' });
    expect(bytes).toBeLessThanOrEqual(streamByteCap('Short text.'));
    await server.closed;
  });

  test('letting go of its audio closes the socket', async () => {
    const server = endlessServer();
    stops.push(server.stop);
    const live = await openStream(
      { url: await server.url, apiKey: 'k', timeoutMs: 5_000 },
      { text: 'a'.repeat(600) },
    );
    live.pcm.destroy();
    await server.closed;
    await expect(live.completed).rejects.toMatchObject({ kind: 'network' });
  });
});
