import { describe, expect, test } from 'vitest';
import { oggOpusDurationMs } from '../../src/audio/ogg.ts';

/** One Ogg page (CRC left zero: the reader does not check it). */
function page(granule: bigint, payload: Buffer, serial = 1): Buffer {
  const lacing: number[] = [];
  let left = payload.length;
  while (left >= 255) {
    lacing.push(255);
    left -= 255;
  }
  lacing.push(left);
  const header = Buffer.alloc(27);
  header.write('OggS', 0, 'ascii');
  header.writeBigInt64LE(granule, 6);
  header.writeUInt32LE(serial, 14);
  header[26] = lacing.length;
  return Buffer.concat([header, Buffer.from(lacing), payload]);
}

function opusHead(preSkip: number): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'ascii');
  head[8] = 1;
  head[9] = 2;
  head.writeUInt16LE(preSkip, 10);
  head.writeUInt32LE(48_000, 12);
  return head;
}

const head = page(0n, opusHead(312));
const tags = page(0n, Buffer.from('OpusTags........'));
const audio = (granule: bigint, size = 300, serial = 1): Buffer =>
  page(granule, Buffer.alloc(size, 7), serial);

describe('oggOpusDurationMs', () => {
  test.each<[string, Buffer, number | null]>([
    ['empty', Buffer.alloc(0), null],
    ['not ogg', Buffer.from('RIFF....WAVEfmt '), null],
    ['OpusHead only', head, null],
    ['headers only: no audio yet', Buffer.concat([head, tags]), 0],
    ['one second after pre-skip', Buffer.concat([head, tags, audio(48_312n)]), 1000],
    ['last page wins', Buffer.concat([head, tags, audio(24_312n), audio(144_312n)]), 3000],
    [
      'page with no finished packet (-1) skipped',
      Buffer.concat([head, audio(48_312n), audio(-1n)]),
      1000,
    ],
    [
      'truncated last page ignored',
      Buffer.concat([head, audio(48_312n), audio(96_312n).subarray(0, 100)]),
      1000,
    ],
    [
      'garbage before the first page',
      Buffer.concat([Buffer.from('junkOgg'), head, audio(48_312n)]),
      1000,
    ],
    [
      'other logical stream ignored',
      Buffer.concat([head, audio(48_312n), audio(960_000n, 10, 2)]),
      1000,
    ],
    ['granule below pre-skip clamps to 0', Buffer.concat([head, audio(100n)]), 0],
    [
      'no OpusHead (e.g. Vorbis)',
      Buffer.concat([page(0n, Buffer.from('\x01vorbis.............')), audio(48_000n)]),
      null,
    ],
  ])('%s', (_name, buffer, expected) => {
    expect(oggOpusDurationMs(buffer)).toBe(expected);
  });

  test('works on a subarray with a non-zero byteOffset', () => {
    const whole = Buffer.concat([Buffer.alloc(13), head, audio(48_312n)]);
    expect(
      oggOpusDurationMs(new Uint8Array(whole.buffer, whole.byteOffset + 13, whole.length - 13)),
    ).toBe(1000);
  });
});
