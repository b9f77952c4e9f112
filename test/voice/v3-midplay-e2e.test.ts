/**
 * v3 streams heard in full, end to end, on one bot (one stack serves every case: the emulator's
 * pace is set per test):
 * - whatever its pace: the service may send its PCM at the pace of the audio (a streaming TTS
 *   service does, and any service does under load) or slower, and the player must wait for it
 *   rather than end the item at the first pause in its input;
 * - when it fails while its item plays (cut, `error` frame, closed without `completed`): the rest
 *   comes from the generation's file (polled when the generation went on, made again when the API
 *   said it failed), from where the stream stopped, so nothing is heard twice; the member's share
 *   counts the item once, and the next item follows;
 * - a stream cut and polled to its end teaches the poll schedule nothing (its time is the
 *   stream's pace): an item made again later is polled as soon as on a fresh key.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_USERS, type EmulatorUser, type Fault } from '../../tools/emulator/index.ts';
import { wavDurationMs } from '../../tools/emulator/wav.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { sentence } from '../tts/emulated.ts';
import { eventually } from './support.ts';

const KEY = 'adx_midplay_stream_key_9d21e7';
const USER: EmulatorUser = { userId: 'user_midplay', apiKey: KEY, plan: 'paid' };
/** 200 ms chunks: the fault strikes after about a second of audio. */
const CHUNK_MS = 200;
const AFTER_CHUNKS = 5;
let t: TestBot;

beforeAll(async () => {
  t = await startTestBot({
    api: 'v3',
    emulator: {
      users: [...DEFAULT_USERS, USER],
      streamChunkMs: CHUNK_MS,
      streamSpeed: 2,
      streamJitter: 0.3,
    },
  });
  await t.configureKey(KEY);
  t.discord.moveMember({ userId: 'member', channelId: t.discord.guild.voiceChannelId });
  await eventually('the bot sees the member', () => t.discord.voiceStates().length === 1);
  const joined = await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
  expect(joined.content).toContain('Joined');
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

const guildId = () => t.discord.guild.id;
const posts = () => t.emulator.counts()['POST /v3/tts']?.total ?? 0;

/** The duration of a file, whatever its format (decoded to WAV by ffmpeg). */
function fileDurationMs(file: Buffer): number {
  const wav = execFileSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 'wav', 'pipe:1'], {
    input: file,
  });
  return wavDurationMs(wav);
}

/** How long the speech of `text` is: its completed generation's file. */
function speechMs(text: string): number {
  const done = t.emulator.v3
    .generationsOf(USER.userId)
    .filter((g) => g.status === 'COMPLETED' && text.includes(g.text.slice(0, 20)));
  const last = done.at(-1);
  if (last === undefined) throw new Error(`no completed generation for ${text.slice(0, 20)}`);
  return fileDurationMs(t.emulator.audioOf(last.id) ?? Buffer.alloc(0));
}

/** The member's generations today in the usage ledger (what their daily share counts). */
async function memberToday(): Promise<number> {
  const now = Date.now();
  const [today] = await t.bot.services.usage.days(guildId(), now, now);
  return today?.members[t.discord.users.member?.id ?? ''] ?? 0;
}

/** `/say` to voice; resolves once the item ended (played, failed or removed). */
async function sayEnded(text: string): Promise<string> {
  const handle = t.discord.slash({
    user: 'member',
    name: 'say',
    options: { text, output: 'voice' },
  });
  await handle.waitFor(
    (event) => event.kind === 'edit' && /Played|could not|Removed/.test(JSON.stringify(event)),
    60_000,
  );
  return handle.lastMessage()?.content ?? '';
}

let said = 0;
/** Says a text never said before here, and resolves with the reply once the item ended. */
async function say(length: number): Promise<{ text: string; reply: string }> {
  said++;
  const text = `Item ${said}. ${sentence(length)}`;
  return { text, reply: await sayEnded(text) };
}

/** Audio heard in the guild so far, once it reached `atLeast` (or after 5 s, for the failure's figures). */
async function heardMs(atLeast: number): Promise<number> {
  const received = () => t.voiceServer.received(guildId()).durationMs;
  for (let waited = 0; received() < atLeast && waited < 5_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return received();
}

describe.each([2, 1, 0.5])(
  'a v3 stream at %s× real time, with jitter and a 1 s pause half-way',
  (streamSpeed) => {
    test('each item is heard for its whole duration, and the next one follows', async () => {
      t.emulator.v3.setStreamSpeed(streamSpeed);
      t.emulator.v3.setStreamPause(1000);
      const streams = () =>
        t.emulator.v3.generationsOf(USER.userId).filter((g) => g.via === 'stream');
      const before = new Set(streams().map((g) => g.id));
      const mine = () => streams().filter((g) => !before.has(g.id));
      // Texts of this pace alone: the same text at another pace would come from the cache.
      const texts = [
        `First at ${streamSpeed}. ${sentence(40)}`,
        `Second at ${streamSpeed}. ${sentence(30)}`,
      ];
      t.voiceServer.reset(guildId());
      try {
        const replies = texts.map((text) => sayEnded(text));
        for (const reply of replies) expect(await reply).toMatch(/Played/);
      } finally {
        t.emulator.v3.setStreamPause(0);
      }
      // Listened to until their last frame (an item cut short lets its stream go unfinished).
      await eventually(
        'both streams completed',
        () => mine().filter((g) => g.status === 'COMPLETED').length === 2,
        10_000,
      );
      const generated = mine().map((g) =>
        fileDurationMs(t.emulator.audioOf(g.id) ?? Buffer.alloc(0)),
      );
      expect(generated).toHaveLength(2);
      const expectedMs = generated.reduce((sum, ms) => sum + ms, 0);
      const heard = await t.voiceServer.waitForAudio(guildId(), { timeoutMs: 10_000 });
      // Heard in full: within 10 % of what was generated (Opus frames round each item up).
      expect(heard.durationMs / expectedMs).toBeGreaterThan(0.9);
    }, 90_000);
  },
);

describe.each([2, 1])('a v3 stream at %s× real time failing after ~1 s of audio', (speed) => {
  test.each<[string, Fault, number]>([
    [
      'cut, the generation going on',
      { kind: 'stream-cut', afterChunks: AFTER_CHUNKS, completes: true },
      0,
    ],
    [
      'an `error` frame',
      { kind: 'stream-error', afterChunks: AFTER_CHUNKS, message: 'engine overheated' },
      1,
    ],
    [
      'closed without `completed`',
      { kind: 'stream-close', afterChunks: AFTER_CHUNKS, completes: true },
      0,
    ],
  ])(
    '%s: heard in full, once, paid once; the next follows',
    async (_name, fault, madeAgain) => {
      t.emulator.v3.setStreamSpeed(speed);
      t.voiceServer.reset(guildId());
      const submits = posts();
      const charged = await memberToday();
      t.emulator.fault(fault);
      const failing = await say(60);
      expect(failing.reply).toMatch(/Played/);
      const expected = speechMs(failing.text);
      const heard = await heardMs(0.9 * expected);
      // The rest from the file where the stream stopped: whole, and nothing twice.
      expect(heard / expected).toBeGreaterThan(0.9);
      expect(heard / expected).toBeLessThan(1.1);
      // Polled where the generation went on; made once more where the API said it failed.
      expect(posts()).toBe(submits + madeAgain);
      expect(await memberToday()).toBe(charged + 1);
      const next = await say(30);
      expect(next.reply).toMatch(/Played/);
      const total = await heardMs(heard + 0.9 * speechMs(next.text));
      expect((total - heard) / speechMs(next.text)).toBeGreaterThan(0.9);
    },
    90_000,
  );
});

describe('a v3 stream at half the pace of speech, on a key that polled a cut stream to its end', () => {
  test('an item whose stream sent an `error` frame while it waited is heard in full, made again and polled within a second', async () => {
    t.emulator.v3.setStreamSpeed(0.5);
    t.emulator.v3.setStreamPause(0);
    // A stream cut mid-play, its generation going on at the stream's pace and polled to its end:
    // timed from the stream's start, that is 2 × its speech, not what a submitted one takes.
    t.emulator.fault({ kind: 'stream-cut', afterChunks: 3, completes: true });
    expect((await say(40)).reply).toMatch(/Played/);

    t.voiceServer.reset(guildId());
    said++;
    const firstText = `Item ${said}. ${sentence(60)}`;
    said++;
    const secondText = `Item ${said}. ${sentence(40)}`;
    const first = sayEnded(firstText);
    await eventually(
      'the first plays',
      () => t.voiceServer.received(guildId()).packets > 0,
      15_000,
    );
    // The waiting item's stream: an `error` frame after three chunks (given back, made again).
    t.emulator.fault({ kind: 'stream-error', afterChunks: 3, message: 'engine overheated' });
    const second = sayEnded(secondText);
    expect(await first).toMatch(/Played/);
    expect(await second).toMatch(/Played/);
    const expected = speechMs(firstText) + speechMs(secondText);
    const heard = await heardMs(0.9 * expected);
    expect(heard / expected).toBeGreaterThan(0.9);
    expect(heard / expected).toBeLessThan(1.1);

    const remade = t.emulator.v3
      .generationsOf(USER.userId)
      .find((g) => g.via === 'http' && secondText.includes(g.text.slice(0, 20)));
    const firstPoll = t.emulator.requests.find(
      (r) => r.endpoint === 'GET /v3/tts' && r.path.endsWith(`generation_id=${remade?.id}`),
    );
    // The poller plans that first poll at most the estimate + 300 ms after the submit (a probe
    // earlier), and the key learned only submitted generations (the emulator's 150 ms + its
    // queue, about 0.3 s): by 0.6 s, a time the code sets, not the machine; the bound leaves the
    // rest of the second for the request itself (measured: 253 ms). Taught the stream's pace,
    // it came 5.3 s after the submit.
    expect((firstPoll?.at ?? Number.NaN) - (remade?.createdAt ?? Number.NaN)).toBeLessThan(1000);
  }, 90_000);
});
