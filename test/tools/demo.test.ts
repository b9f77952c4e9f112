/**
 * `npm run demo`'s tour end to end: the real bot as a child process against the emulator and
 * the fake Discord, so the demo cannot silently rot; on the run's API version (`vitest.config.ts`
 * runs it on v2 and on v3, as `TTS_API_VERSION=v3 npm run demo` does).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { unheard } from '../../tools/demo/heard.ts';
import { DEMO_DISCORD, runTour } from '../../tools/demo/tour.ts';
import { pcmWav } from '../../tools/demo/wav.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { childrenOf, startLocalStack } from '../../tools/local-stack/index.ts';
import { FakeTwitch } from '../fake-twitch/index.ts';
import { api } from '../support/api-under-test.ts';
import { wavDurationMs } from '../voice/support.ts';

test.each([
  { phrases: ['a b', 'c'], texts: ['x A B y', 'C'], left: [] },
  { phrases: ['a b', 'c'], texts: ['a b'], left: ['c'] },
  { phrases: ['a b'], texts: ['a', 'b'], left: ['a b'] },
  { phrases: ['a'], texts: [], left: ['a'] },
  { phrases: [], texts: ['a'], left: [] },
])('unheard($phrases, $texts) = $left', ({ phrases, texts, left }) => {
  expect(unheard(phrases, texts)).toEqual(left);
});

test.each([
  { rate: 48_000, channels: 2, samples: 48_000, ms: 1000 },
  { rate: 22_050, channels: 1, samples: 11_025, ms: 500 },
  { rate: 16_000, channels: 1, samples: 0, ms: 0 },
])(
  'a $rate Hz × $channels WAV of $samples samples lasts $ms ms',
  ({ rate, channels, samples, ms }) => {
    const wav = pcmWav(Buffer.alloc(samples * channels * 2), rate, channels);
    expect(wavDurationMs(wav)).toBe(ms);
  },
);

test('the tour sets the key, lists voices, saves a /say file and the voice channel audio, reads the chat and a Twitch chat aloud, then leaves', async () => {
  const outDir = await mkdtemp(join(tmpdir(), 'demo-test-'));
  const twitch = await FakeTwitch.start();
  const stack = await startLocalStack({
    discord: DEMO_DISCORD,
    api: api.version,
    env: { TWITCH_CHAT_URL: twitch.url },
  });
  const lines: string[] = [];
  try {
    const result = await runTour({
      stack,
      twitch,
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
    // Everything printed as spoken was played before the leave: nothing waits to be cleared.
    expect(transcript).not.toMatch(/cleared \d+ queued/);
    expect(transcript).not.toContain(USER_ONE.apiKey);
    // The attachment is the emulator's audio, byte for byte.
    const attachment = await readFile(result.attachment);
    // What the bot heard (v3: streams too; speech heard again from the cache is downloaded), each once.
    const generated = [...new Set(api.heard(stack.emulator))];
    const textOf = (id: string) => api.textOf(stack.emulator, id) ?? '';
    const audioMs = (id: string) => wavDurationMs(stack.emulator.audioOf(id) ?? Buffer.alloc(0));
    expect(
      generated.some((g) => attachment.equals(stack.emulator.audioOf(g) ?? Buffer.alloc(0))),
    ).toBe(true);
    // The voice WAV holds what the fake voice server decoded: about as long as the generated audio.
    const voice = await readFile(result.voiceWav);
    const heardMs = wavDurationMs(voice);
    expect(Math.abs(heardMs - result.voiceMs)).toBeLessThan(50);
    const spokenId = generated.find((g) => textOf(g).includes('speaking in the voice channel'));
    const expectedMs = audioMs(spokenId ?? '');
    expect(Math.abs(heardMs - expectedMs) / expectedMs).toBeLessThan(0.1);

    // Streamer mode: the posts are in the transcript, then what the bot spoke for them, cleaned.
    expect(transcript).toMatch(/I will read <#\d+> aloud/);
    expect(transcript).toContain('bobby (in #chat) › GG, the boss is finally down 🔥');
    expect(transcript).toContain('carol (in #chat) › **clip it!** https://clips.twitch.tv/');
    const spokenLines = lines.filter((l) => l.startsWith('  bot (in voice) › '));
    const spoken = spokenLines.join('\n');
    expect(spoken).toContain('Bobby the Great said GG, the boss is finally down fire.');
    expect(spoken).toContain('carol said clip it! a link to clips.twitch.tv.');
    expect(spoken).toContain('see you all tomorrow pog.');
    expect(spoken).not.toMatch(/https:|\*\*|<:pog/);
    expect(transcript.indexOf(spokenLines[0] ?? '?')).toBeLessThan(
      transcript.indexOf('member › /leave'),
    );
    // What was printed is what the emulator generated after the /say in voice, and nothing else.
    const twitchSpoken = result.twitch?.spoken ?? [];
    const chatIds = generated
      .slice(generated.indexOf(spokenId ?? '') + 1)
      .filter((id) => !twitchSpoken.some((line) => line.text === textOf(id)));
    expect(chatIds.length).toBeGreaterThan(0);
    expect(result.chat.spoken).toEqual(chatIds.map(textOf));
    for (const text of result.chat.spoken) expect(spoken).toContain(`“${text}”`);
    // chat.wav holds the voice audio of those generations: about as long as all of them.
    const chatWav = await readFile(result.chat.wav);
    expect(result.chat.wav).toBe(join(outDir, 'chat.wav'));
    const chatHeardMs = wavDurationMs(chatWav);
    expect(Math.abs(chatHeardMs - result.chat.ms)).toBeLessThan(50);
    const chatExpectedMs = chatIds.reduce((sum, id) => sum + audioMs(id), 0);
    expect(Math.abs(chatHeardMs - chatExpectedMs) / chatExpectedMs).toBeLessThan(0.1);

    // Twitch: three chatters heard by display name, `/me` as an action, each in their own voice.
    expect(transcript).toContain('I will read the chat of `demostreamer`');
    const twitchText = twitchSpoken.map((line) => line.text).join('\n');
    expect(twitchText).toContain('RonniTV said hello from Twitch, great stream today.');
    expect(twitchText).toContain('PixelFox said that jump was insane Kappa.');
    expect(twitchText).toContain('ModMia cheers the streamer on.');
    expect(new Set(twitchSpoken.map((line) => line.voiceId)).size).toBe(3);
  } finally {
    await stack.stop();
    await twitch.close();
    await rm(outDir, { recursive: true, force: true });
  }
  expect(existsSync(`/proc/${stack.bot.pid}`)).toBe(false);
  expect(childrenOf(process.pid).filter((pid) => existsSync(`/proc/${pid}/cmdline`))).toEqual([]);
}, 120_000);
