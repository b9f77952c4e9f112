/**
 * Delivery: from the poll that saw `Completed` to the attachment at the fake Discord, and to
 * the first voice packet at the fake voice server, with the real bot as a child process;
 * against the naive client (download, then transcode the whole file).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeDiscord } from '../test/fake-discord/index.ts';
import { setApiKey, startLocalStack } from '../tools/local-stack/index.ts';
import { benchText, benchUser, noticeOf, polledGenerations } from './emulator-log.ts';
import { naiveGenerate } from './naive.ts';
import { formatRatio, formatSummary, meets, type Row, summarize } from './stats.ts';

/** Sizes of the delivery runs. */
export interface DeliveryPlan {
  readonly warmUp: number;
  readonly files: number;
  readonly voice: number;
}

/** Runs the delivery benchmark and returns its rows. */
export async function deliveryBench(plan: DeliveryPlan): Promise<Row[]> {
  const botUser = benchUser('delivery_bot');
  const naiveUser = benchUser('delivery_naive');
  const stack = await startLocalStack({
    emulator: { users: [botUser, naiveUser], maxLogEntries: 100_000 },
  });
  const { discord, emulator, voiceServer } = stack;
  try {
    await setApiKey(discord, botUser.apiKey);

    // One /say at a time; the generation it made is the one polled for the first time.
    const sayOnce = async (i: number, output: 'file' | 'voice') => {
      const before = new Set(polledGenerations(emulator.requests, [botUser]));
      const text = benchText(40 + (i % 4) * 10, i);
      const handle = discord.slash({
        user: 'member',
        name: 'say',
        options: { text, output, speed: 2 },
      });
      return {
        handle,
        newId: () => polledGenerations(emulator.requests, [botUser]).find((id) => !before.has(id)),
      };
    };

    const fileMs: number[] = [];
    for (let i = 0; i < plan.warmUp + plan.files; i++) {
      const { handle, newId } = await sayOnce(i, 'file');
      await handle.waitFor((event) => event.kind === 'edit' && event.files.length > 0, 30_000);
      const attachedAt = Date.now();
      const id = newId();
      const notice = id === undefined ? undefined : noticeOf(emulator, emulator.requests, id);
      if (i >= plan.warmUp && notice !== undefined) fileMs.push(attachedAt - notice.seenAt);
    }

    const guildId = discord.guild.id;
    discord.moveMember({ userId: 'member', channelId: discord.guild.voiceChannelId });
    await sleep(200);
    await discord.slash({ user: 'member', name: 'join' }).waitForReply(20_000);
    const voiceMs: number[] = [];
    for (let i = 0; i < plan.voice; i++) {
      voiceServer.reset(guildId);
      const { handle, newId } = await sayOnce(100 + i, 'voice');
      await handle.waitFor(
        (event) =>
          event.kind === 'edit' && /Played|failed|could not/i.test(JSON.stringify(event.data)),
        60_000,
      );
      const first = voiceServer.received(guildId).arrivals[0];
      const id = newId();
      const notice = id === undefined ? undefined : noticeOf(emulator, emulator.requests, id);
      if (first !== undefined && notice !== undefined) voiceMs.push(first - notice.seenAt);
    }

    // The naive client on the same texts, one at a time.
    const naiveFile: number[] = [];
    const naiveVoice: number[] = [];
    for (let i = 0; i < Math.max(plan.files, plan.voice); i++) {
      const done = await naiveGenerate({
        baseUrl: emulator.baseUrl,
        apiKey: naiveUser.apiKey,
        text: benchText(40 + (i % 4) * 10, i),
        voiceId: 'am_2riuownnf',
        ffmpegPath: 'ffmpeg',
        deliver: (audio) => uploadToChannel(discord, audio),
      });
      naiveFile.push(done.deliveredAt - done.completedSeenAt);
      if (done.transcodedAt !== undefined)
        naiveVoice.push(done.transcodedAt - done.completedSeenAt);
    }
    const file = summarize(fileMs);
    const voice = summarize(voiceMs);
    const naiveF = summarize(naiveFile);
    const naiveV = summarize(naiveVoice);
    return [
      {
        section: 'Delivery',
        measure: `Completed poll → attachment at the fake Discord (n=${file.n}; naive: download, then upload)`,
        ours: formatSummary(file),
        naive: formatSummary(naiveF),
        ratio: formatRatio(file.median, naiveF.median),
        target: '',
        met: undefined,
      },
      {
        section: 'Delivery',
        measure: `Completed poll → first voice packet at the fake voice server (n=${voice.n}; naive: download, then transcode the whole file)`,
        ours: formatSummary(voice),
        naive: formatSummary(naiveV),
        ratio: formatRatio(voice.median, naiveV.median),
        target: 'p50 ≤ 150 ms',
        met: meets(voice.median, { max: 150 }),
      },
    ];
  } finally {
    await stack.stop();
  }
}

/** What the naive client does with a file: posts it to the guild's text channel, as a bot would. */
async function uploadToChannel(discord: FakeDiscord, audio: Buffer): Promise<void> {
  const form = new FormData();
  form.append('payload_json', JSON.stringify({ content: '', attachments: [{ id: '0' }] }));
  form.append('files[0]', new Blob([audio], { type: 'audio/wav' }), 'speech.wav');
  const answer = await fetch(
    `${discord.apiUrl}/v10/channels/${discord.guild.textChannelId}/messages`,
    {
      method: 'POST',
      headers: { authorization: `Bot ${discord.token}` },
      body: form,
    },
  );
  if (!answer.ok) throw new Error(`naive: upload answered ${answer.status}`);
  await answer.body?.cancel();
}
