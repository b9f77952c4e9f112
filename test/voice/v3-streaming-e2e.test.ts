/**
 * v3 streaming end to end: the real bot, with a recognizable API key, speaking /say in voice
 * over the emulator's WebSocket stream, through the faults before the first chunk: an `error`
 * frame, a cut, a connection dropped before `started` (faults while an item plays:
 * v3-midplay-e2e.test.ts). The key travels in the stream's address;
 * no log line, reply, message, metric or logged request path may ever show it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expose, PrometheusMetrics } from '../../src/ops/index.ts';
import { DEFAULT_USERS, type EmulatorUser, type Fault } from '../../tools/emulator/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { sentence } from '../tts/emulated.ts';
import { eventually } from './support.ts';

const SECRET = 'adx_RECOGNIZABLE_stream_key_7f3a9c';
const USER: EmulatorUser = { userId: 'user_stream', apiKey: SECRET, plan: 'paid' };
const metrics = new PrometheusMetrics({ defaultMetrics: false });
let t: TestBot;

beforeAll(async () => {
  t = await startTestBot({
    api: 'v3',
    metrics,
    emulator: { users: [...DEFAULT_USERS, USER], streamChunkMs: 100, streamSpeed: 2 },
    env: { TTS_CACHE_TTL: '1h', QUEUE_MAX_PER_MEMBER: '5' },
  });
  await t.configureKey(SECRET);
  t.discord.moveMember({ userId: 'member', channelId: t.discord.guild.voiceChannelId });
  await eventually('the bot sees the member', () => t.discord.voiceStates().length === 1);
  const joined = await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
  expect(joined.content).toContain('Joined');
});
afterAll(async () => {
  await t?.stop();
});

const guildId = () => t.discord.guild.id;
const counts = () => t.emulator.counts();
const streams = () => t.emulator.v3.generationsOf(USER.userId).filter((g) => g.via === 'stream');

/** The member's generations today in the usage ledger (what their daily share counts). */
async function memberToday(): Promise<number> {
  const now = Date.now();
  const [today] = await t.bot.services.usage.days(guildId(), now, now);
  return today?.members[t.discord.users.member?.id ?? ''] ?? 0;
}

let said = 0;
/** A text of about `length` characters never said before here (the cache is on). */
function fresh(length: number): string {
  said++;
  return `Number ${said}. ${sentence(length)}`;
}

/** Every /say made here, for the check that no reply ever showed the key. */
const handles: ReturnType<TestBot['discord']['slash']>[] = [];

function say(text: string) {
  const handle = t.discord.slash({
    user: 'member',
    name: 'say',
    options: { text, output: 'voice' },
  });
  handles.push(handle);
  return handle;
}

/** The reply once it says the item played, failed or was removed. */
async function outcome(handle: ReturnType<typeof say>): Promise<string> {
  await handle.waitFor(
    (event) =>
      event.kind === 'edit' && /Played|could not|Removed|rejected|lost/.test(JSON.stringify(event)),
    30_000,
  );
  return handle.lastMessage()?.content ?? '';
}

describe('v3 streaming into voice', () => {
  test('speech is heard while it is still being generated, and nothing is downloaded', async () => {
    t.voiceServer.reset(guildId());
    const handle = say(fresh(100));
    await eventually(
      'the first packet',
      () => t.voiceServer.received(guildId()).packets > 0,
      15_000,
    );
    // The emulator completes a stream only after its last chunk: the first was heard before.
    expect(streams().at(-1)?.status).toBe('GENERATING');
    expect(await outcome(handle)).toMatch(/Played/);
    expect(counts()['GET /audio']).toBeUndefined();
    expect(counts()['POST /v3/tts']).toBeUndefined();
  });

  test('the backup file feeds the cache: the same speech again is played from it', async () => {
    const text = `Once more: ${sentence(40)}`;
    expect(await outcome(say(text))).toMatch(/Played/);
    const before = streams().length;
    expect(await outcome(say(text))).toMatch(/Played/);
    expect(streams().length).toBe(before);
    expect(counts()['GET /audio']?.total).toBe(1);
  });

  test.each<[string, Fault]>([
    ['a connection dropped before `started`', { kind: 'stream-drop' }],
    ['an `error` frame before the first chunk', { kind: 'stream-error', afterChunks: 0 }],
    ['a stream cut before the first chunk', { kind: 'stream-cut', afterChunks: 0 }],
  ])(
    '%s falls back to submit-and-poll and plays, counted once for the member',
    async (_name, fault) => {
      const submits = counts()['POST /v3/tts']?.total ?? 0;
      const charged = await memberToday();
      t.emulator.fault(fault);
      expect(await outcome(say(fresh(50)))).toMatch(/Played/);
      expect(counts()['POST /v3/tts']?.total).toBe(submits + 1);
      // An `error` frame started a generation the API gave back: the member pays the one that played.
      expect(await memberToday()).toBe(charged + 1);
    },
  );

  test('a stream cut while its item waits behind another is heard from its file, paid once', async () => {
    t.voiceServer.reset(guildId());
    const first = say(fresh(120));
    await eventually(
      'the first plays',
      () => t.voiceServer.received(guildId()).packets > 0,
      15_000,
    );
    const submits = counts()['POST /v3/tts']?.total ?? 0;
    const charged = await memberToday();
    t.emulator.fault({ kind: 'stream-cut', afterChunks: 3 });
    const second = say(fresh(60));
    expect(await outcome(first)).toMatch(/Played/);
    expect(await outcome(second)).toMatch(/Played/);
    // The emulator fails (and gives back) a cut generation: it is made once more, as a file.
    expect(counts()['POST /v3/tts']?.total).toBe(submits + 1);
    expect(await memberToday()).toBe(charged + 1);
  }, 60_000);

  test('an invalid key stored earlier: the stream is refused and the member told the way out', async () => {
    const revoked = 'adx_RECOGNIZABLE_revoked_key_0c0c0c';
    await t.bot.services.apiKeys.set(guildId(), revoked);
    const reply = await outcome(say(fresh(40)));
    expect(reply).toContain('rejected this server’s API key');
    await t.configureKey(SECRET);
  });

  test('no 429, and the key is in no log line, reply, message, metric or logged address', async () => {
    for (const [endpoint, count] of Object.entries(counts())) {
      expect(count.byStatus[429], endpoint).toBeUndefined();
    }
    const secrets = [SECRET, 'adx_RECOGNIZABLE_revoked_key_0c0c0c', 'RECOGNIZABLE'];
    const places = {
      logs: t.logs,
      replies: handles.flatMap((handle) => handle.events.map((event) => JSON.stringify(event))),
      messages: t.discord
        .channelMessages(t.discord.guild.textChannelId)
        .map((message) => JSON.stringify(message)),
      metrics: [(await expose(metrics.registry)).body],
      requests: t.emulator.requests.map((entry) => entry.path),
    };
    expect(places.logs.length).toBeGreaterThan(50);
    expect(places.requests.some((path) => path.includes('api_key=<redacted>'))).toBe(true);
    for (const [where, lines] of Object.entries(places)) {
      for (const line of lines) {
        for (const secret of secrets) expect(line, where).not.toContain(secret);
      }
    }
  });
});
