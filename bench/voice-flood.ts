/**
 * A `!voice` flood in one server's Twitch chat (issue 39): 600 `!voice <name>` lines from as
 * many chatters, with 2,000 chatters' chosen voices already stored, posted on the fake Twitch
 * server at 100 lines a second to the bot's Twitch source (its real chat client, settings store
 * with the bot's cache, and chosen-voice records on SQLite, as the bot opens them). CPU per line
 * is `process.cpuUsage` from the first line to the moment a plain line posted after the last one
 * reaches the reader (a server's lines are handled one at a time, in order), divided by the
 * lines; the fake Twitch server runs in this process, so its sending is counted too, and a
 * second run of the same lines as plain chat shows that share.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { TwitchSource } from '../src/reader/index.ts';
import {
  KeyvChatVoices,
  KeyvSettingsStore,
  openKeyv,
  SETTINGS_CACHE_MS,
} from '../src/store/index.ts';
import { systemClock, type Voice } from '../src/tts/index.ts';
import { TwitchChat } from '../src/twitch/index.ts';
import { FakeTwitch } from '../test/fake-twitch/index.ts';
import { PRESET_VOICES } from '../tools/emulator/index.ts';
import { meets, oursRow, type Row } from './stats.ts';

/** The target: CPU per `!voice` line. */
const TARGET_MS = 1;

/** How the flood is played. */
export interface VoiceFloodPlan {
  readonly lines: number;
  readonly stored: number;
  readonly perSecond: number;
}

/** Waits (polling) until `check` holds, or fails after `timeoutMs`. */
async function until(check: () => boolean, timeoutMs = 120_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('the flood was not handled in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** One flood: CPU per line, and what was stored after. `plain`: the same lines as plain chat. */
async function flood(plan: VoiceFloodPlan, plain: boolean) {
  const dir = await mkdtemp(join(tmpdir(), 'voice-flood-'));
  const keyv = await openKeyv(`sqlite://${join(dir, 'bot.sqlite')}`);
  const twitch = await FakeTwitch.start();
  const logger = pino({ level: 'silent' });
  const settings = new KeyvSettingsStore(keyv, { cacheMs: SETTINGS_CACHE_MS });
  const chosen = new KeyvChatVoices(keyv);
  // The key's voices as the emulator lists them, with the key owner's clone.
  const voices: Voice[] = [
    ...PRESET_VOICES.base.map((v) => ({
      ...{ voiceId: v.voice_id, name: v.name, gender: v.gender, accent: v.accent },
      ...{ free: v.free, description: v.description },
    })),
    { voiceId: 'custom_clone', name: 'Streamer Clone', gender: 'Male', accent: 'Custom' },
  ].map((v) => ({ free: false, description: '', ...v }));
  const free = voices.filter((v) => v.free);
  let marker = false;
  const source = new TwitchSource({
    chat: new TwitchChat({ url: twitch.url, logger, clock: systemClock }),
    settings,
    voice: { channelOf: () => 'voice', skip: () => false },
    voices: async () => voices,
    chosenVoices: chosen,
    clock: systemClock,
    logger,
    reader: {
      created: async (message) => {
        if (message.content === 'the flood is over') marker = true;
        return true;
      },
      clear: () => 0,
      withdraw: async () => 0,
    },
  });
  try {
    await settings.updateGuild('g1', (g) => ({
      ...g,
      reader: { ...g.reader, twitchChannels: ['streamer'] },
    }));
    for (let i = 0; i < plan.stored; i++) {
      const voice = free[i % free.length] ?? free[0];
      if (voice !== undefined)
        await chosen.set('g1', String(100_000 + i), { voiceId: voice.voiceId, at: Date.now() });
    }
    await source.sync('g1');
    await until(() => twitch.joined('streamer'));
    // Half the lines from chatters with a stored choice (a third of them asking for it again),
    // half from new chatters; one in ten asks for the clone, one in ten for no voice at all.
    const lineOf = (i: number): { userId: string; text: string } => {
      const known = i % 2 === 0;
      const userId = String(known ? 100_000 + ((i * 7) % plan.stored) : 500_000 + i);
      const name =
        i % 10 === 3
          ? 'clone'
          : i % 10 === 7
            ? 'nobody-by-that-name'
            : known && i % 3 === 0
              ? (free[((i * 7) % plan.stored) % free.length]?.name ?? 'x')
              : (free[i % free.length]?.name ?? 'x');
      return { userId, text: plain ? `plain chat line number ${i}` : `!voice ${name}` };
    };
    const gapMs = 1000 / plan.perSecond;
    const cpu = process.cpuUsage();
    const started = Date.now();
    for (let i = 0; i < plan.lines; i++) {
      const { userId, text } = lineOf(i);
      twitch.post('streamer', { id: `v${i}`, login: `u${userId}`, userId, text });
      const due = started + (i + 1) * gapMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    }
    twitch.post('streamer', { id: 'end', login: 'ender', userId: '9', text: 'the flood is over' });
    await until(() => marker);
    const used = process.cpuUsage(cpu);
    const msPerLine = (used.user + used.system) / 1000 / plan.lines;
    const stored = await chosen.count('g1');
    const record = (await settings.guild('g1')).twitch.voices;
    const cloned = (await chosen.get('g1', String(500_000 + 3)))?.voiceId === 'custom_clone';
    return { msPerLine, stored, inRecord: Object.keys(record).length, cloned };
  } finally {
    await source.close();
    await twitch.close();
    await keyv.disconnect();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The `!voice` flood row: CPU per line, and what was stored; beside it the same lines as plain
 * chat on the same setup, what the transport (the fake Twitch and the chat client) costs alone.
 */
export async function voiceFloodBench(plan: VoiceFloodPlan): Promise<Row[]> {
  const voice = await flood(plan, false);
  const plain = await flood(plan, true);
  const stored = plan.stored.toLocaleString('en');
  return [
    oursRow(
      'Twitch chat',
      `\`!voice\` flood: ${plan.lines} lines at ${plan.perSecond}/s with ${stored} chosen voices stored: CPU per line (SQLite store, settings cache; the fake Twitch in this process included)`,
      `${voice.msPerLine.toFixed(3)} ms; ${voice.stored.toLocaleString('en')} choices stored after, ${voice.inRecord} in the server record, clone chosen: ${voice.cloned ? 'yes' : 'no'}`,
      { text: `≤ ${TARGET_MS} ms`, met: meets(voice.msPerLine, { max: TARGET_MS }) },
    ),
    oursRow(
      'Twitch chat',
      `the same ${plan.lines} lines as plain chat, same setup, read into a stub reader (what the transport and the source cost without \`!voice\`)`,
      `${plain.msPerLine.toFixed(3)} ms`,
    ),
  ];
}
