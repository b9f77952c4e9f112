import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FfmpegNotFoundError } from '../../src/audio/errors.ts';
import type { RunVersion } from '../../src/audio/resolve.ts';
import { parseFfmpegVersion, resolveFfmpeg } from '../../src/audio/resolve.ts';
import { ffmpegChildren } from './helpers.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audio-resolve-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  expect(ffmpegChildren()).toEqual([]);
});

/** Writes an executable shell script standing in for ffmpeg. */
async function fakeFfmpeg(name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

/** Wraps a real runner so `ffmpeg` on PATH looks absent. */
const noPathFfmpeg: RunVersion = async (path) => {
  if (path === 'ffmpeg') throw Object.assign(new Error('spawn ffmpeg ENOENT'), { code: 'ENOENT' });
  throw new Error(`unexpected candidate ${path}`);
};

describe('parseFfmpegVersion', () => {
  test.each<[string, string, string | undefined]>([
    ['debian', 'ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026', '5.1.9-0+deb12u1'],
    ['git build', 'ffmpeg version N-113001-g1234abcd Copyright', 'N-113001-g1234abcd'],
    ['static build', 'ffmpeg version 6.0-static https://johnvansickle.com/ffmpeg/', '6.0-static'],
    ['after other lines', 'warning: something\nffmpeg version 7.1 Copyright', '7.1'],
    ['not ffmpeg', 'avconv version 12', undefined],
    ['empty', '', undefined],
  ])('%s', (_name, stdout, expected) => {
    expect(parseFfmpegVersion(stdout)).toBe(expected);
  });
});

describe('resolveFfmpeg', () => {
  test('finds the system ffmpeg on PATH', async () => {
    const found = await resolveFfmpeg({ env: {}, staticPath: null });
    expect(found).toMatchObject({ path: 'ffmpeg', source: 'PATH' });
    expect(found.version).toMatch(/\d/);
    expect(found.failures).toEqual([]);
  });

  test('uses FFMPEG_PATH first and parses its version', async () => {
    const path = await fakeFfmpeg(
      'ffmpeg-fake',
      'echo "ffmpeg version 9.9.9-fake Copyright (c) test"',
    );
    const found = await resolveFfmpeg({ env: { FFMPEG_PATH: path }, staticPath: null });
    expect(found).toEqual({ path, source: 'FFMPEG_PATH', version: '9.9.9-fake', failures: [] });
  });

  test('falls back from a missing FFMPEG_PATH and the absent ffmpeg-static package to PATH', async () => {
    const found = await resolveFfmpeg({ env: { FFMPEG_PATH: join(dir, 'nope') } });
    expect(found.source).toBe('PATH');
    expect(found.failures).toEqual([
      { source: 'FFMPEG_PATH', path: join(dir, 'nope'), error: 'not found (ENOENT)' },
      { source: 'ffmpeg-static', path: null, error: 'package not installed' },
    ]);
  });

  test('uses a given ffmpeg-static path', async () => {
    const path = await fakeFfmpeg('static-ffmpeg', 'echo "ffmpeg version 6.1-static"');
    const found = await resolveFfmpeg({ env: { FFMPEG_PATH: '' }, staticPath: path });
    expect(found).toMatchObject({ path, source: 'ffmpeg-static', version: '6.1-static' });
  });

  test('throws listing every candidate and why it failed', async () => {
    const garbage = await fakeFfmpeg('garbage', 'echo "hello"');
    const failing = await fakeFfmpeg('failing', 'exit 3');
    const run: RunVersion = async (path, timeoutMs) => {
      if (path === 'ffmpeg') return noPathFfmpeg(path, timeoutMs);
      const { execFileSync } = await import('node:child_process');
      return execFileSync(path, { encoding: 'utf8' });
    };
    const error = await resolveFfmpeg({
      env: { FFMPEG_PATH: garbage },
      staticPath: failing,
      run,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegNotFoundError);
    const candidates = (error as FfmpegNotFoundError).candidates;
    expect(candidates.map((c) => [c.source, c.path])).toEqual([
      ['FFMPEG_PATH', garbage],
      ['ffmpeg-static', failing],
      ['PATH', 'ffmpeg'],
    ]);
    expect(candidates[0]?.error).toMatch(/no "ffmpeg version" line/);
    expect(candidates[1]?.error).toMatch(/failed/i);
    expect(candidates[2]?.error).toBe('not found (ENOENT)');
    const message = (error as Error).message;
    for (const text of [garbage, failing, 'PATH', 'FFMPEG_PATH']) expect(message).toContain(text);
  });

  test('gives up on a candidate that hangs', async () => {
    const hanging = await fakeFfmpeg('hanging', 'exec sleep 30');
    const quick = await fakeFfmpeg('quick', 'echo "ffmpeg version 1.2.3"');
    const found = await resolveFfmpeg({
      env: { FFMPEG_PATH: hanging },
      staticPath: quick,
      timeoutMs: 1000,
    });
    expect(found).toMatchObject({ source: 'ffmpeg-static', version: '1.2.3' });
    expect(found.failures).toEqual([
      { source: 'FFMPEG_PATH', path: hanging, error: 'no answer to -version within 1000 ms' },
    ]);
  });

  test('reports a file that is not executable', async () => {
    const path = join(dir, 'not-executable');
    await writeFile(path, 'echo "ffmpeg version 1"\n');
    const found = await resolveFfmpeg({ env: { FFMPEG_PATH: path }, staticPath: null });
    expect(found.failures[0]?.error).toBe('not executable (EACCES)');
  });
});
