/**
 * A v3 stream plays in full whatever its pace: the service may send its PCM at the pace of the
 * audio (a streaming TTS service does, and any service does under load) or slower, and the
 * player must wait for it rather than end the item at the first pause in its input.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_USERS, type EmulatorUser } from '../../tools/emulator/index.ts';
import { wavDurationMs } from '../../tools/emulator/wav.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { sentence } from '../tts/emulated.ts';
import { eventually } from './support.ts';

/** The duration of a generation's file, whatever its format (decoded to WAV by ffmpeg). */
function fileDurationMs(file: Buffer): number {
  const wav = execFileSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 'wav', 'pipe:1'], {
    input: file,
  });
  return wavDurationMs(wav);
}

const KEY = 'adx_pace_stream_key_51c0de';
const USER: EmulatorUser = { userId: 'user_pace', apiKey: KEY, plan: 'paid' };

describe.each([2, 1, 0.5])(
  'a v3 stream at %s× real time, with jitter and a 1 s pause half-way',
  (streamSpeed) => {
    let t: TestBot;
    beforeAll(async () => {
      t = await startTestBot({
        api: 'v3',
        emulator: {
          users: [...DEFAULT_USERS, USER],
          streamChunkMs: 200,
          streamSpeed,
          streamJitter: 0.3,
          streamPauseMs: 1000,
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

    test('each item is heard for its whole duration, and the next one follows', async () => {
      const guildId = t.discord.guild.id;
      const texts = [`First. ${sentence(40)}`, `Second. ${sentence(30)}`];
      t.voiceServer.reset(guildId);
      const handles = texts.map((text) =>
        t.discord.slash({ user: 'member', name: 'say', options: { text, output: 'voice' } }),
      );
      for (const handle of handles) {
        await handle.waitFor(
          (event) =>
            event.kind === 'edit' && /Played|could not|Removed/.test(JSON.stringify(event)),
          60_000,
        );
        expect(handle.lastMessage()?.content ?? '').toMatch(/Played/);
      }
      const streams = () =>
        t.emulator.v3.generationsOf(USER.userId).filter((g) => g.via === 'stream');
      // Listened to until their last frame (an item cut short lets its stream go unfinished).
      await eventually(
        'both streams completed',
        () => streams().filter((g) => g.status === 'COMPLETED').length === 2,
        10_000,
      );
      const generated = streams().map((g) =>
        fileDurationMs(t.emulator.audioOf(g.id) ?? Buffer.alloc(0)),
      );
      expect(generated).toHaveLength(2);
      const expectedMs = generated.reduce((sum, ms) => sum + ms, 0);
      const heard = await t.voiceServer.waitForAudio(guildId, { timeoutMs: 10_000 });
      // Heard in full: within 10 % of what was generated (Opus frames round each item up).
      expect(heard.durationMs / expectedMs).toBeGreaterThan(0.9);
    }, 90_000);
  },
);
