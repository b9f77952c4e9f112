/**
 * v3 pace (issue 28): `/say` voice items over v3 streams sent at 2×, 1× and 0.5× real time,
 * with 30 % jitter and a 1 s pause half-way: submit → first voice packet, and the audio heard
 * at the fake voice server over the audio generated (a tone of a known length a character).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { setApiKey, startLocalStack } from '../tools/local-stack/index.ts';
import { benchText, benchUser } from './emulator-log.ts';
import { formatSummary, meets, oursRow, type Row, summarize } from './stats.ts';

/** Seconds of tone per character (the emulator's default, like speech). */
const TONE_SECONDS_PER_CHAR = 0.06;
const PACES = [2, 1, 0.5] as const;

/** Runs the pace benchmark: `items` voice items (after one warm-up) at each pace. */
export async function v3PaceBench(items: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const pace of PACES) {
    const user = benchUser(`v3_pace_${String(pace).replace('.', '_')}`);
    const stack = await startLocalStack({
      api: 'v3',
      env: { TTS_STREAMING: 'on' },
      emulator: {
        users: [user],
        toneSecondsPerChar: TONE_SECONDS_PER_CHAR,
        streamChunkMs: 200,
        streamSpeed: pace,
        streamJitter: 0.3,
        streamPauseMs: 1000,
      },
    });
    const firsts: number[] = [];
    const heard: number[] = [];
    try {
      const { discord, voiceServer } = stack;
      await setApiKey(discord, user.apiKey);
      discord.moveMember({ userId: 'member', channelId: discord.guild.voiceChannelId });
      await sleep(200);
      const joined = await discord.slash({ user: 'member', name: 'join' }).waitForReply(20_000);
      if (!/Joined/.test(joined.content)) throw new Error(`/join answered "${joined.content}"`);
      const guildId = discord.guild.id;
      for (let i = 0; i < items + 1; i++) {
        const text = benchText(40 + (i % 4) * 10, i + 100 * pace);
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
        const received = voiceServer.received(guildId);
        const first = received.arrivals[0];
        if (i === 0 || first === undefined) continue;
        firsts.push(first - sentAt);
        heard.push(received.durationMs / (text.length * TONE_SECONDS_PER_CHAR * 1000));
      }
    } finally {
      await stack.stop();
    }
    const worst = Math.min(...heard);
    rows.push(
      oursRow(
        'pace',
        `v3 stream at ${pace}× real time (jitter 30 %, 1 s pause): submit → first voice packet (n=${firsts.length})`,
        formatSummary(summarize(firsts)),
      ),
      oursRow(
        'pace',
        `v3 stream at ${pace}× real time: audio heard ÷ audio generated (lowest of ${heard.length})`,
        worst.toFixed(2),
        { text: '≥ 0.95', met: meets(worst, { min: 0.95 }) },
      ),
    );
  }
  return rows;
}
