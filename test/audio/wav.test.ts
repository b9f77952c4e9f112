import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { MAX_WAV_HEADER_BYTES, parseWavHeader, readWav } from '../../src/audio/wav.ts';
import { collect, sineWav } from './helpers.ts';

/** A WAV header by hand: format tag, channels, rate, bits; extra chunks before `data`. */
function header(options: {
  tag?: number;
  channels?: number;
  rate?: number;
  bits?: number;
  dataBytes?: number;
  before?: Buffer;
  extensibleTag?: number;
}): Buffer {
  const { tag = 1, channels = 1, rate = 24_000, bits = 16, dataBytes = 0 } = options;
  const fmtSize = options.extensibleTag === undefined ? 16 : 40;
  const fmt = Buffer.alloc(8 + fmtSize);
  fmt.write('fmt ', 0, 'ascii');
  fmt.writeUInt32LE(fmtSize, 4);
  fmt.writeUInt16LE(options.extensibleTag === undefined ? tag : 0xfffe, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE((rate * channels * bits) / 8, 16);
  fmt.writeUInt16LE((channels * bits) / 8, 20);
  fmt.writeUInt16LE(bits, 22);
  if (options.extensibleTag !== undefined) {
    fmt.writeUInt16LE(22, 24);
    fmt.writeUInt16LE(options.extensibleTag, 32);
  }
  const data = Buffer.alloc(8);
  data.write('data', 0, 'ascii');
  data.writeUInt32LE(dataBytes, 4);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.write('WAVE', 8, 'ascii');
  return Buffer.concat([riff, fmt, options.before ?? Buffer.alloc(0), data]);
}

function chunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, Buffer.alloc(body.length % 2)]);
}

describe('parseWavHeader', () => {
  test('16-bit PCM and 32-bit float, mono and stereo, plain and extensible', () => {
    expect(parseWavHeader(sineWav(0.1))).toEqual({
      kind: 'layout',
      layout: {
        format: { format: 's16le', sampleRate: 24_000, channels: 1 },
        dataOffset: 44,
        dataBytes: 4800,
      },
    });
    const float = parseWavHeader(
      header({ tag: 3, bits: 32, channels: 2, rate: 48_000, dataBytes: 8 }),
    );
    expect(float.kind === 'layout' && float.layout.format).toEqual({
      format: 'f32le',
      sampleRate: 48_000,
      channels: 2,
    });
    const extensible = parseWavHeader(header({ extensibleTag: 1, rate: 22_050 }));
    expect(extensible.kind === 'layout' && extensible.layout.format).toEqual({
      format: 's16le',
      sampleRate: 22_050,
      channels: 1,
    });
  });

  test('a LIST chunk (odd length) before the samples is skipped', () => {
    const bytes = header({
      before: chunk('LIST', Buffer.from('INFOISFT\x05\0\0\0Lavf\0')),
      dataBytes: 2,
    });
    const parsed = parseWavHeader(bytes);
    expect(parsed.kind === 'layout' && parsed.layout.dataOffset).toBe(bytes.length);
  });

  test('a length of 0 or 0xffffffff (a streamed WAV) means to the end', () => {
    for (const dataBytes of [0, 0xffffffff]) {
      const parsed = parseWavHeader(header({ dataBytes }));
      expect(parsed.kind === 'layout' && parsed.layout.dataBytes).toBeUndefined();
    }
  });

  test('asks for more bytes while the header is cut short', () => {
    const full = sineWav(0.1);
    for (const length of [0, 11, 20, 40, 43]) {
      expect(parseWavHeader(full.subarray(0, length))).toEqual({ kind: 'more' });
    }
  });

  test('an extensible format cut before its sub-format asks for more (it was read as "other")', () => {
    const full = header({ extensibleTag: 1 });
    // RIFF (12) + chunk head (8) + 20 of its 40 bytes.
    expect(parseWavHeader(full.subarray(0, 40))).toEqual({ kind: 'more' });
  });

  test('leaves to ffmpeg what it does not read: 24-bit, 8-bit, ADPCM, 6 channels, not RIFF', () => {
    for (const bytes of [
      header({ bits: 24 }),
      header({ bits: 8 }),
      header({ tag: 2, bits: 4 }),
      header({ channels: 6 }),
      header({ extensibleTag: 3, bits: 64 }),
      Buffer.from('ID3\x04\0\0\0\0\0\0 an MP3 file, not a WAV'),
    ]) {
      expect(parseWavHeader(bytes).kind).toBe('other');
    }
  });
});

describe('readWav', () => {
  test('gives the samples alone, across chunks that split the header, and stops at the data end', async () => {
    const wav = sineWav(0.2);
    const trailer = chunk('LIST', Buffer.from('INFOtrailer!'));
    const bytes = Buffer.concat([wav, trailer]);
    const parts = [
      bytes.subarray(0, 7),
      bytes.subarray(7, 30),
      bytes.subarray(30, 500),
      bytes.subarray(500),
    ];
    const read = await readWav(Readable.from(parts, { objectMode: false }));
    expect(read.kind).toBe('pcm');
    if (read.kind !== 'pcm') return;
    expect(read.format).toEqual({ format: 's16le', sampleRate: 24_000, channels: 1 });
    expect((await collect(read.pcm)).equals(wav.subarray(44))).toBe(true);
  });

  test('a file it does not read comes back whole, header included', async () => {
    const bytes = Buffer.concat([header({ bits: 24, dataBytes: 6 }), Buffer.alloc(6, 1)]);
    const read = await readWav(
      Readable.from([bytes.subarray(0, 10), bytes.subarray(10)], { objectMode: false }),
    );
    expect(read.kind).toBe('other');
    if (read.kind !== 'other') return;
    expect(read.why).toBe('format 1 at 24 bits');
    expect((await collect(read.file)).equals(bytes)).toBe(true);
  });

  test('gives up past 64 KiB of header', async () => {
    const bytes = header({
      before: chunk('junk', Buffer.alloc(MAX_WAV_HEADER_BYTES)),
      dataBytes: 2,
    });
    const read = await readWav(Readable.from([bytes], { objectMode: false }));
    expect(read.kind).toBe('other');
  });

  test('an input error reaches the reader', async () => {
    const input = new Readable({ read: () => undefined });
    input.push(sineWav(0.1).subarray(0, 20));
    setImmediate(() => input.destroy(new Error('reset')));
    await expect(readWav(input)).rejects.toThrow('reset');
  });

  test('letting the samples go lets the download go', async () => {
    const input = new Readable({ read: () => undefined });
    input.push(sineWav(1));
    const read = await readWav(input);
    if (read.kind !== 'pcm') throw new Error('expected samples');
    read.pcm.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(input.destroyed).toBe(true);
  });
});
