import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import {
  type Emulator,
  type EmulatorOptions,
  startEmulator,
  toneWav,
  USER_ONE,
} from '../../tools/emulator/index.ts';
import { fixWavSizes } from '../../tools/emulator/wav.ts';
import { settled, submit, text } from './helpers.ts';

function installed(command: string, flag: string): boolean {
  try {
    execFileSync(command, [flag], { stdio: 'ignore' });
    return true;
  } catch {
    return false; // not installed: the tests that need it are skipped
  }
}
const hasEspeak = installed('espeak-ng', '--version');
const hasFfmpeg = installed('ffmpeg', '-version');

/** Reads a PCM WAV's header: sizes must match the byte length. */
function wavInfo(bytes: Buffer): { riffSize: number; dataSize: number; seconds: number } {
  expect(bytes.toString('ascii', 0, 4)).toBe('RIFF');
  expect(bytes.toString('ascii', 8, 12)).toBe('WAVE');
  const byteRate = bytes.readUInt32LE(28);
  const dataAt = bytes.indexOf('data', 12, 'ascii');
  const dataSize = bytes.readUInt32LE(dataAt + 4);
  return { riffSize: bytes.readUInt32LE(4), dataSize, seconds: dataSize / byteRate };
}

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function generate(
  options: EmulatorOptions,
  chars = 60,
): Promise<{ id: string; url: string }> {
  emu = await startEmulator({ generationMs: () => 10, ...options });
  const id = await submit(emu, USER_ONE.apiKey, { text: text(chars) });
  await settled(emu, id);
  expect(emu.generation(id)?.status).toBe('Completed');
  return { id, url: `${emu.mediaOrigin}/audio/${id}.wav` };
}

async function fetchBytes(url: string): Promise<{ bytes: Buffer; res: Response }> {
  const res = await fetch(url);
  return { bytes: Buffer.from(await res.arrayBuffer()), res };
}

test('a generation records when it turned Completed, after its generation time', async () => {
  const { id } = await generate({ synth: 'tone', generationMs: () => 120 });
  const snapshot = emu?.generation(id);
  expect(snapshot?.completedAt).toBeGreaterThanOrEqual((snapshot?.createdAt ?? 0) + 120);
});

describe('tone fallback', () => {
  test('serves a valid WAV, byte-identical on every fetch, with Content-Length', async () => {
    const { id, url } = await generate({ synth: 'tone' });
    const first = await fetchBytes(url);
    const second = await fetchBytes(url);
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get('content-length')).toBe(String(first.bytes.length));
    expect(first.bytes.equals(second.bytes)).toBe(true);
    expect(first.bytes.equals(emu?.audioOf(id) ?? Buffer.alloc(0))).toBe(true);
    const info = wavInfo(first.bytes);
    expect(info.riffSize).toBe(first.bytes.length - 8);
    expect(emu?.audioSource).toBe('tone');
  });

  test('duration follows the text length', () => {
    expect(wavInfo(toneWav(300)).seconds).toBeGreaterThan(wavInfo(toneWav(30)).seconds * 5);
  });

  test('unknown or unfinished audio answers 404', async () => {
    emu = await startEmulator({ synth: 'tone' });
    expect((await fetch(`${emu.mediaOrigin}/audio/base_nope.wav`)).status).toBe(404);
  });
});

describe.skipIf(!hasEspeak)('espeak-ng speech', () => {
  test('is a WAV with repaired sizes, longer for longer text, identical on two fetches', async () => {
    const short = await generate({ synth: 'espeak' }, 40);
    const a = await fetchBytes(short.url);
    const b = await fetchBytes(short.url);
    expect(a.bytes.equals(b.bytes)).toBe(true);
    const shortInfo = wavInfo(a.bytes);
    expect(shortInfo.riffSize).toBe(a.bytes.length - 8);
    expect(shortInfo.dataSize).toBeLessThanOrEqual(a.bytes.length - 44);
    await emu?.close();
    const long = await generate({ synth: 'espeak' }, 400);
    const longInfo = wavInfo((await fetchBytes(long.url)).bytes);
    expect(longInfo.seconds).toBeGreaterThan(shortInfo.seconds * 3);
  });
});

describe.skipIf(!hasFfmpeg)('audioFormat mp3', () => {
  test('serves MP3 bytes at a .wav address', async () => {
    const { url } = await generate({ synth: 'tone', audioFormat: 'mp3' });
    const { bytes, res } = await fetchBytes(url);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(bytes.toString('ascii', 0, 4)).not.toBe('RIFF');
    const id3 = bytes.toString('ascii', 0, 3) === 'ID3';
    const frameSync = bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0;
    expect(id3 || frameSync).toBe(true);
  });
});

describe('fixWavSizes', () => {
  test('rewrites placeholder sizes left by a streamed WAV', () => {
    const wav = toneWav(40);
    wav.writeUInt32LE(0x7ffff024, 4);
    wav.writeUInt32LE(0x7ffff000, 40);
    const fixed = fixWavSizes(wav);
    expect(fixed.readUInt32LE(4)).toBe(wav.length - 8);
    expect(fixed.readUInt32LE(40)).toBe(wav.length - 44);
  });

  test('rejects bytes that are not a WAV', () => {
    expect(() => fixWavSizes(Buffer.from('ID3 not a wav file'))).toThrow();
  });
});
