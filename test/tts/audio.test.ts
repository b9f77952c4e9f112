import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { downloadAudio, type MediaPolicy, openAudio } from '../../src/tts/audio.ts';
import {
  DEFAULT_LIMITS,
  MemoryBudgetStore,
  productionClientOptions,
  systemClock,
  TtsError,
} from '../../src/tts/index.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A WAV header, so a download sniffs as audio. */
function wavHeader(dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** Writes `chunks` chunks of `size` bytes, `gapMs` apart, after a WAV header. */
async function trickle(response: ServerResponse, chunks: number, size: number, gapMs: number) {
  response.writeHead(200, { 'content-type': 'audio/wav' });
  response.write(wavHeader(chunks * size));
  for (let i = 0; i < chunks && !response.destroyed; i++) {
    await sleep(gapMs);
    response.write(Buffer.alloc(size, i));
  }
  response.end();
}

const BIG = 32 * 1024 * 1024;
const MEDIUM = 2 * 1024 * 1024;

/** Media server: `/trickle` (slow but steady), `/big` (fast, larger than socket buffers), `/stall` (one chunk, then silence). */
let server: Server;
let origin = '';
const open = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((request, response) => {
    open.add(response);
    response.on('close', () => open.delete(response));
    if (request.url === '/trickle') {
      void trickle(response, 24, 1000, 50);
    } else if (request.url === '/big') {
      response.writeHead(200, { 'content-type': 'audio/wav' });
      response.end(Buffer.concat([wavHeader(BIG), Buffer.alloc(BIG, 1)]));
    } else if (request.url === '/medium') {
      response.writeHead(200, { 'content-type': 'audio/wav' });
      response.end(Buffer.concat([wavHeader(MEDIUM), Buffer.alloc(MEDIUM, 1)]));
    } else if (request.url === '/drip') {
      // Never idle for long, never done soon: 60 bytes, 30 ms apart.
      void trickle(response, 60, 1, 30);
    } else if (request.url === '/stall') {
      response.writeHead(200, { 'content-type': 'audio/wav' });
      response.write(wavHeader(1_000_000));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of open) response.destroy();
  await new Promise((resolve) => server.close(resolve));
});

function policy(timeoutMs: number, deadlineMs?: number): MediaPolicy {
  return {
    origins: [origin],
    maxBytes: 64 * 1024 * 1024,
    timeoutMs,
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
    fetch: globalThis.fetch,
  };
}

async function drain(stream: Readable): Promise<number> {
  let total = 0;
  for await (const chunk of stream) total += (chunk as Buffer).length;
  return total;
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('media timeout: until the headers, then idle between chunks', () => {
  test('a steady stream that lasts longer than the timeout is read to the end', async () => {
    // 24 chunks 50 ms apart: about 1.2 s in all, against a 500 ms timeout.
    const stream = await openAudio(`${origin}/trickle`, policy(500));
    expect(await drain(stream)).toBe(44 + 24 * 1000);
    const audio = await downloadAudio(`${origin}/trickle`, policy(500));
    expect(audio.bytes.length).toBe(44 + 24 * 1000);
  });

  test('a consumer paced slower than the timeout is not cut off (playback reads at real time)', async () => {
    // A generous timeout keeps a loaded machine's slow local server from counting as a stall;
    // the consumer still holds the stream far longer (about 3 s) than the timeout.
    const stream = await openAudio(`${origin}/big`, policy(1500));
    let total = 0;
    let reads = 0;
    for await (const chunk of stream) {
      total += (chunk as Buffer).length;
      if (reads++ < 12) await sleep(250);
    }
    expect(total).toBe(44 + BIG);
  });

  test('a server that stops sending mid-body → TtsError timeout, from the stream and from download', async () => {
    const stream = await openAudio(`${origin}/stall`, policy(300));
    const streamed = await failureOf(drain(stream));
    expect(streamed).toBeInstanceOf(TtsError);
    expect(streamed).toMatchObject({ kind: 'timeout', message: expect.stringMatching(/300 ms/) });

    const downloaded = await failureOf(downloadAudio(`${origin}/stall`, policy(300)));
    expect(downloaded).toBeInstanceOf(TtsError);
    expect(downloaded).toMatchObject({ kind: 'timeout' });
  });

  test("the caller's abort still surfaces as its own reason", async () => {
    const controller = new AbortController();
    const stream = await openAudio(`${origin}/stall`, policy(5000), controller.signal);
    const reason = new Error('skipped');
    setTimeout(() => controller.abort(reason), 50);
    expect(await failureOf(drain(stream))).toBe(reason);
  });
});

describe('media deadline: the whole time spent waiting on the network', () => {
  test('a server that drips bytes just faster than the idle timeout is cut at the deadline', async () => {
    const downloaded = await failureOf(downloadAudio(`${origin}/drip`, policy(500, 400)));
    expect(downloaded).toBeInstanceOf(TtsError);
    expect(downloaded).toMatchObject({
      kind: 'timeout',
      message: expect.stringMatching(/took longer than 400 ms/),
    });
    const stream = await openAudio(`${origin}/drip`, policy(500, 400));
    expect(await failureOf(drain(stream))).toMatchObject({ kind: 'timeout' });
  });

  test('time the reader holds the stream back (playback) does not count', async () => {
    // About 1.2 s of slow reads against a 600 ms deadline; the bytes themselves arrive at once.
    const stream = await openAudio(`${origin}/medium`, policy(5000, 600));
    let total = 0;
    let reads = 0;
    for await (const chunk of stream) {
      total += (chunk as Buffer).length;
      if (reads++ < 12) await sleep(100);
    }
    expect(total).toBe(44 + MEDIUM);
  });

  test('the production client settings give downloads a 2-minute deadline', () => {
    const options = productionClientOptions({
      baseUrl: 'http://127.0.0.1:1/v2',
      mediaOrigins: [origin],
      pollDeadlineMs: 60_000,
      budgets: new MemoryBudgetStore(DEFAULT_LIMITS),
      clock: systemClock,
      onBackgroundError: () => undefined,
    });
    expect(options.media.deadlineMs).toBe(120_000);
    expect(options.maxResponseBytes).toBe(1024 * 1024);
  });
});
