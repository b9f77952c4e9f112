/**
 * `npm run demo`'s tour end to end: the real bot as a child process against the emulator and
 * the fake Discord, so the demo cannot silently rot.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runTour } from '../../tools/demo/tour.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { childrenOf, startLocalStack } from '../../tools/local-stack/index.ts';
import { wavDurationMs } from '../voice/support.ts';

test('the tour sets the key, lists voices, saves a /say file and the voice channel audio, then leaves', async () => {
  const outDir = await mkdtemp(join(tmpdir(), 'demo-test-'));
  const stack = await startLocalStack();
  const lines: string[] = [];
  try {
    const result = await runTour({
      stack,
      apiKey: USER_ONE.apiKey,
      outDir,
      print: (l) => lines.push(l),
    });
    const transcript = lines.join('\n');
    expect(transcript).toContain('checked and saved');
    expect(transcript).toContain('Voices for the base model');
    expect(transcript).toMatch(/Joined <#\d+>/);
    expect(transcript).toMatch(/Played \(\d+ s\)/);
    expect(transcript).toMatch(/Left <#\d+>/);
    expect(transcript).not.toContain(USER_ONE.apiKey);
    // The attachment is the emulator's audio, byte for byte.
    const attachment = await readFile(result.attachment);
    const generated = stack.emulator.requests
      .map((e) => /\/audio\/([^/.?]+)/.exec(e.path)?.[1])
      .filter((g): g is string => g !== undefined);
    expect(
      generated.some((g) => attachment.equals(stack.emulator.audioOf(g) ?? Buffer.alloc(0))),
    ).toBe(true);
    // The voice WAV holds what the fake voice server decoded: about as long as the generated audio.
    const voice = await readFile(result.voiceWav);
    const heardMs = wavDurationMs(voice);
    expect(Math.abs(heardMs - result.voiceMs)).toBeLessThan(50);
    const spokenId = generated.at(-1) ?? '';
    const expectedMs = wavDurationMs(stack.emulator.audioOf(spokenId) ?? Buffer.alloc(0));
    expect(Math.abs(heardMs - expectedMs) / expectedMs).toBeLessThan(0.1);
  } finally {
    await stack.stop();
    await rm(outDir, { recursive: true, force: true });
  }
  expect(existsSync(`/proc/${stack.bot.pid}`)).toBe(false);
  expect(childrenOf(process.pid).filter((pid) => existsSync(`/proc/${pid}/cmdline`))).toEqual([]);
}, 90_000);
