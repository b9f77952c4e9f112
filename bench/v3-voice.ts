/**
 * The set-up the v3 voice benches share (bench/v3-pace.ts, bench/v3-midplay.ts): a local stack
 * on the v3 API with streaming on, the emulator speaking a tone of a known length a character in
 * 200 ms chunks with 30 % jitter, the member in voice and the bot joined; and `/say` to voice,
 * timed from submit, with the audio the fake voice server heard.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReceivedAudio } from '../test/fake-discord/voice/index.ts';
import type { EmulatorUser } from '../tools/emulator/index.ts';
import { type LocalStack, setApiKey, startLocalStack } from '../tools/local-stack/index.ts';

/** Seconds of tone per character (the emulator's default, like speech). */
export const TONE_SECONDS_PER_CHAR = 0.06;

/** How the emulator sends a v3 stream: times real time, and a pause half-way. */
export interface V3StreamPace {
  readonly speed: number;
  readonly pauseMs?: number;
}

/** One `/say` heard: when it was submitted and what reached the fake voice server. */
export interface V3Said {
  readonly sentAt: number;
  readonly received: ReceivedAudio;
  /** Audio heard ÷ audio generated (the tone's length for the text). */
  readonly heard: number;
}

/** A stack with the bot in voice, ready for {@link V3Voice.say}. */
export interface V3Voice {
  readonly stack: LocalStack;
  /** Says `text` to voice and waits for its item's end (then `settleMs` for the last packets). */
  say(text: string, settleMs?: number): Promise<V3Said>;
}

/** Starts the stack for `user` with streams at `pace`, and has the bot join the member's channel. */
export async function openV3Voice(user: EmulatorUser, pace: V3StreamPace): Promise<V3Voice> {
  const stack = await startLocalStack({
    api: 'v3',
    env: { TTS_STREAMING: 'on' },
    emulator: {
      users: [user],
      toneSecondsPerChar: TONE_SECONDS_PER_CHAR,
      streamChunkMs: 200,
      streamSpeed: pace.speed,
      streamJitter: 0.3,
      ...(pace.pauseMs === undefined ? {} : { streamPauseMs: pace.pauseMs }),
    },
  });
  try {
    const { discord, voiceServer } = stack;
    await setApiKey(discord, user.apiKey);
    discord.moveMember({ userId: 'member', channelId: discord.guild.voiceChannelId });
    await sleep(200);
    const joined = await discord.slash({ user: 'member', name: 'join' }).waitForReply(20_000);
    if (!/Joined/.test(joined.content)) throw new Error(`/join answered "${joined.content}"`);
    const guildId = discord.guild.id;
    const say = async (text: string, settleMs = 0): Promise<V3Said> => {
      voiceServer.reset(guildId);
      const sentAt = Date.now();
      const handle = discord.slash({
        user: 'member',
        name: 'say',
        options: { text, output: 'voice' },
      });
      await handle.waitFor(
        (event) =>
          event.kind === 'edit' && /Played|failed|could not/i.test(JSON.stringify(event.data)),
        90_000,
      );
      if (settleMs > 0) await sleep(settleMs);
      const received = voiceServer.received(guildId);
      const heard = received.durationMs / (text.length * TONE_SECONDS_PER_CHAR * 1000);
      return { sentAt, received, heard };
    };
    return { stack, say };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}
