import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Emulator, startEmulator, USER_ONE, USER_TWO } from '../../tools/emulator/index.ts';

const CLI = join(import.meta.dirname, '../../tools/tts-cli.ts');
const TEXT = 'Hello there, this is a test of the admin command line tool.';

let emulator: Emulator;
let dir: string;
beforeAll(async () => {
  emulator = await startEmulator({ synth: 'tone', generationMs: () => 50 });
  dir = await mkdtemp(join(tmpdir(), 'tts-cli-'));
});
afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI under the same Node as the tests, with only the environment given. */
function cli(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: {
          PATH: process.env.PATH ?? '',
          TTS_API_URL: emulator.baseUrl,
          TTS_MEDIA_ORIGINS: emulator.mediaOrigin,
          TTS_API_KEY: USER_ONE.apiKey,
          ...env,
        },
        timeout: 20_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function expectNoKey(run: Run, key: string): void {
  expect(run.stdout).not.toContain(key);
  expect(run.stderr).not.toContain(key);
}

describe('tts CLI against the emulator', () => {
  test('--voices lists the voices as a table, with the key masked', async () => {
    const run = await cli(['--voices', '--model', 'advance'], { TTS_API_KEY: USER_TWO.apiKey });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^VOICE ID\s+NAME\s+GENDER\s+ACCENT\s+PLAN$/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^adv_user_clone_abc\s+My Custom Voice\s+Male\s+Custom\s+paid$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^af_adv_w3n8q1\s+Aria\s+Female\s+American\s+free$/),
    );
    expect(run.stderr).toContain('key adx…0002');
    expectNoKey(run, USER_TWO.apiKey);
  });

  test('generates, saves with the sniffed extension and prints path, size and id', async () => {
    const run = await cli(['--voice', 'am_2riuownnf', '--out', dir, TEXT]);
    expect(run.code).toBe(0);
    const path = /^saved (.+)$/m.exec(run.stdout)?.[1] ?? '';
    const id = /^generation (\S+)$/m.exec(run.stdout)?.[1] ?? '';
    expect(path).toBe(join(dir, `${id}.wav`));
    const bytes = await readFile(path);
    expect(bytes.equals(emulator.audioOf(id) ?? Buffer.alloc(0))).toBe(true);
    expect(run.stdout).toContain(`size ${bytes.length} bytes (audio/wav)`);
    expect(run.stderr).toMatch(/generating base_/);
    expectNoKey(run, USER_ONE.apiKey);
  });

  test('a file name given with the wrong extension gets the one from the bytes', async () => {
    const run = await cli(['--voice', 'am_2riuownnf', '--out', join(dir, 'speech.mp3'), TEXT]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`saved ${join(dir, 'speech.wav')}`);
  });

  test('an invalid key → exit 1, one readable line, no stack, no key', async () => {
    const key = 'adx_wrong_key_000012345';
    const run = await cli(['--voices'], { TTS_API_KEY: key });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('tts: Invalid API Key (invalid_key, HTTP 401): check TTS_API_KEY');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expectNoKey(run, key);
  });

  test('an API error while generating is one line too (premium voice on the free plan)', async () => {
    const run = await cli(['--voice', 'am_9wq4n1kzd', TEXT], { TTS_API_KEY: USER_TWO.apiKey });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /tts: This voice is only available for paid plans.*\(plan_required, HTTP 403\)/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  test.each([
    ['no key', ['--voices'], { TTS_API_KEY: '' }, 'TTS_API_KEY is not set'],
    ['no voice', [TEXT], {}, '--voice is required'],
    ['bad model', ['--voices', '--model', 'turbo'], {}, '--model must be one of base, advance'],
    ['unknown flag', ['--colour'], {}, "Unknown option '--colour'"],
    ['bad url', ['--voices'], { TTS_API_URL: 'not a url' }, 'TTS_API_URL'],
  ])('usage error (%s) → exit 2 with the usage', async (_name, args, env, message) => {
    const run = await cli(args, env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('Usage: npm run tts');
  });

  test('--help prints the usage', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--voices');
  });
});
