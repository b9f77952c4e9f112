/**
 * A v3 stream is bounded: a server that sends audio endlessly is failed once the stream gave
 * more than its text can, and a stream whose audio is let go hangs up its socket (which holds one
 * of the key's job slots).
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { openStream } from '../../src/tts/v3/stream.ts';
import { PAUSE_BYTES, streamByteCap } from '../../src/tts/v3/stream-bounds.ts';

/** A stream server that answers `started`, then sends `chunkBytes` (96 kB: 1 s of PCM) every 5 ms without end. */
function endlessServer(chunkBytes = 96_000): {
  url: Promise<string>;
  closed: Promise<void>;
  stop: () => void;
} {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  const closed = Promise.withResolvers<void>();
  const timers = new Set<NodeJS.Timeout>();
  server.on('connection', (socket: WebSocket) => {
    socket.send(JSON.stringify({ type: 'started', generation_id: 'gen_endless' }));
    const timer = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN) socket.send(Buffer.alloc(chunkBytes));
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

  test('a stream that never completes fails at its overall deadline', async () => {
    const server = endlessServer(8);
    stops.push(server.stop);
    const live = await openStream(
      { url: await server.url, apiKey: 'k', timeoutMs: 5_000, deadlineMs: 300 },
      { text: 'a'.repeat(600) },
    );
    live.pcm.resume();
    await expect(live.completed).rejects.toMatchObject({ kind: 'timeout' });
    await server.closed;
  });

  test('an unread stream pauses its socket instead of buffering without bound', async () => {
    const server = endlessServer(960_000);
    stops.push(server.stop);
    let received = 0;
    const live = await openStream(
      {
        url: await server.url,
        apiKey: 'k',
        timeoutMs: 5_000,
        onChunk: () => {
          received += 960_000;
        },
      },
      { text: 'a'.repeat(5_000) },
    );
    // Far more than PAUSE_BYTES is sent meanwhile (960 kB every 5 ms); none of it is read.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(live.pcm.errored).toBeNull();
    expect(received).toBeLessThanOrEqual(PAUSE_BYTES + 960_000);
    // Read, it goes on.
    live.pcm.resume();
    const before = received;
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (received > before) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    live.pcm.destroy();
    await server.closed;
  });
});
