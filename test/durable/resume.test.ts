import Keyv from 'keyv';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { describeFailure } from '../../src/discord/index.ts';
import {
  type DeliveryRoute,
  GENERATION_LIFETIME_MS,
  PendingJournal,
  PendingResumer,
  type PendingSpeech,
  type RequeuedEnd,
  type ResultMessage,
  type ResumeOptions,
} from '../../src/durable/index.ts';
import { translatorFor } from '../../src/i18n/index.ts';
import { KeyvLearnedTimesStore, StoreUnavailableError } from '../../src/store/index.ts';
import { systemClock, type TtsClient } from '../../src/tts/index.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { api } from '../support/api-under-test.ts';
import { sentence } from '../tts/emulated.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ synth: 'tone', generationMs: () => 100 });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

/** The secret key and clock the journals here seal with. */
const sealing = { secretKey: Buffer.alloc(32, 9), clock: systemClock };

const request = { text: sentence(), voiceId: 'am_2riuownnf', model: 'base' } as const;
const posts = () => emu.counts()[api.submit]?.total ?? 0;

function entry(overrides: Partial<PendingSpeech> = {}): PendingSpeech {
  const now = Date.now();
  return {
    id: `p${Math.random()}`,
    guildId: 'g1',
    channelId: 'c1',
    requesterId: 'u1',
    requesterName: 'member',
    output: 'file',
    request,
    reply: { applicationId: 'app', token: 'tok', expiresAt: now + 15 * 60_000 },
    recordedAt: now,
    ...overrides,
  };
}

/** A resumer over a real journal and the emulator; what it sends is collected. */
function setup(overrides: Partial<ResumeOptions> = {}) {
  const journal = new PendingJournal(new Keyv(), sealing);
  const client = api.clients(emu).clients.forKey(USER_ONE.apiKey);
  const sent: { route: DeliveryRoute; message: ResultMessage }[] = [];
  const resumer = new PendingResumer({
    journal,
    clientFor: async () => client,
    send: async (route, message) => {
      sent.push({ route, message });
    },
    describeFailure: (error, translator) => describeFailure(error, translator).text,
    voiceChannelOf: () => undefined,
    requeue: () => false,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    voiceWaitMs: 200,
    voiceCheckMs: 20,
    ...overrides,
  });
  return { journal, client, sent, resumer };
}

async function submitted(
  client: TtsClient,
  extra: Partial<PendingSpeech> = {},
): Promise<PendingSpeech> {
  const generationId = await client.submit(request);
  return entry({ generationId, submittedAt: Date.now(), ...extra });
}

describe('file output', () => {
  test('a submitted generation is polled, never submitted again, and edits the original reply', async () => {
    const { journal, client, sent, resumer } = setup();
    const pending = await submitted(client);
    await journal.record(pending);
    expect(await resumer.start()).toBe(1);
    await resumer.idle();
    expect(posts()).toBe(1);
    // First the stale progress line gives way to a note, then the audio replaces it.
    expect(sent.map((s) => s.route)).toEqual([
      { kind: 'reply', applicationId: 'app', token: 'tok' },
      { kind: 'reply', applicationId: 'app', token: 'tok' },
    ]);
    expect(sent[0]?.message).toEqual({
      content: expect.stringMatching(
        /^⏳ I restarted; your speech is still being prepared…\n\*\*member\*\* · base/,
      ),
    });
    expect(sent[1]?.message.content).toContain('**member** · base');
    const audio = emu.audioOf(pending.generationId ?? '') ?? Buffer.alloc(0);
    expect(sent[1]?.message.file?.bytes.equals(audio)).toBe(true);
    expect(await journal.list()).toEqual([]);
  });

  test('a reply whose token expired is answered in the channel', async () => {
    const { journal, client, sent, resumer } = setup();
    const past = Date.now() - 1000;
    await journal.record(
      await submitted(client, { reply: { applicationId: 'app', token: 'tok', expiresAt: past } }),
    );
    await resumer.start();
    await resumer.idle();
    expect(sent.map((s) => s.route)).toEqual([{ kind: 'channel', channelId: 'c1' }]);
    expect(sent[0]?.message.file).toBeDefined();
  });

  test('when editing the reply fails, the result goes to the channel', async () => {
    const routes: string[] = [];
    const { journal, client, resumer } = setup({
      send: async (route) => {
        routes.push(route.kind);
        if (route.kind === 'reply') throw new Error('Unknown Webhook');
      },
    });
    await journal.record(await submitted(client));
    await resumer.start();
    await resumer.idle();
    expect(routes).toEqual(['reply', 'reply', 'channel']);
    expect(await journal.list()).toEqual([]);
  });

  test('a failed edit is logged without the interaction token its URL carries', async () => {
    const lines: string[] = [];
    const { journal, client, resumer } = setup({
      logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }),
      send: async (route) => {
        if (route.kind === 'reply') {
          throw Object.assign(new Error('Unknown Webhook'), {
            status: 404,
            url: `https://discord.com/api/v10/webhooks/app/${route.token}/messages/@original`,
          });
        }
      },
    });
    await journal.record(
      await submitted(client, {
        reply: { applicationId: 'app', token: 'secret-token-123', expiresAt: Date.now() + 600_000 },
      }),
    );
    await resumer.start();
    await resumer.idle();
    expect(lines.join('\n')).toContain('Unknown Webhook');
    expect(lines.join('\n')).not.toContain('secret-token-123');
  });

  test('a request that was never submitted is submitted exactly once', async () => {
    const { journal, sent, resumer } = setup();
    await journal.record(entry());
    await resumer.start();
    await resumer.idle();
    expect(posts()).toBe(1);
    expect(sent.at(-1)?.message.file).toBeDefined();
  });

  test('a generation id over a day old is reported lost, without any request', async () => {
    const { journal, sent, resumer } = setup();
    const old = Date.now() - GENERATION_LIFETIME_MS - 1000;
    await journal.record(entry({ generationId: 'base_gone', submittedAt: old }));
    await resumer.start();
    await resumer.idle();
    expect(emu.requests).toEqual([]);
    expect(sent.at(-1)?.message.content).toMatch(/was lost while I restarted.*\/say/);
    expect(await journal.list()).toEqual([]);
  });

  test('a generation that failed is told in words with the next step', async () => {
    const { journal, client, sent, resumer } = setup();
    emu.fault({ kind: 'fail', error: 'Voice model crashed' });
    await journal.record(await submitted(client));
    await resumer.start();
    await resumer.idle();
    expect(sent.at(-1)?.message.content).toMatch(
      /^⚠️ The TTS service could not generate this speech .*Voice model crashed/,
    );
    expect(await journal.list()).toEqual([]);
  });

  test('a guild without a key any more is told how to fix it', async () => {
    const { journal, sent, resumer } = setup({ clientFor: async () => undefined });
    await journal.record(entry({ generationId: 'base_x', submittedAt: Date.now() }));
    await resumer.start();
    await resumer.idle();
    expect(sent[0]?.message.content).toContain('/config api-key');
  });

  test('the guild is told in its own language', async () => {
    const { journal, sent, resumer } = setup({
      clientFor: async () => undefined,
      translatorOf: () => translatorFor('de'),
    });
    await journal.record(entry({ generationId: 'base_x', submittedAt: Date.now() }));
    await resumer.start();
    await resumer.idle();
    expect(sent[0]?.message.content).toContain(
      'Der Audixa-API-Schlüssel des Servers wurde entfernt, während ich neu gestartet bin',
    );
  });

  test('stopping leaves an unfinished generation in the journal for the next start', async () => {
    const { journal, client, sent, resumer } = setup();
    emu.fault({ kind: 'never-complete' });
    const pending = await submitted(client);
    await journal.record(pending);
    await resumer.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await resumer.stop();
    expect(sent.map((s) => s.message.content.split('\n')[0])).toEqual([
      '⏳ I restarted; your speech is still being prepared…',
    ]);
    expect((await journal.list()).map((e) => e.id)).toEqual([pending.id]);
  });
});

describe('the store away', () => {
  test('at start: the journal is read again until it can be, then everything resumes', async () => {
    const keyv = new Keyv();
    const { client, sent } = setup();
    const pending = await submitted(client);
    await new PendingJournal(keyv, sealing).record(pending);
    const get = keyv.get.bind(keyv);
    let failures = 2;
    keyv.get = (async (...args: Parameters<typeof get>) => {
      if (failures-- > 0) throw new StoreUnavailableError('the store failed get: offline');
      return get(...args);
    }) as typeof keyv.get;
    const { resumer } = setup({
      journal: new PendingJournal(keyv, sealing),
      send: async (route, message) => void sent.push({ route, message }),
    });
    expect(await resumer.startWhenReadable(20)).toBe(1);
    await resumer.idle();
    expect(sent.at(-1)?.message.file).toBeDefined();
  });

  test('while resuming: the request is tried again, not reported lost', async () => {
    let away = true;
    const { journal, client, sent, resumer } = setup({
      clientFor: async () => {
        if (away) {
          away = false;
          throw new StoreUnavailableError('the store failed get: offline');
        }
        return client;
      },
      clock: { now: () => Date.now(), sleep: (_ms, signal) => systemClock.sleep(20, signal) },
    });
    await journal.record(await submitted(client));
    await resumer.start();
    await resumer.idle();
    expect(sent.map((s) => s.message.content)).not.toContainEqual(expect.stringMatching(/storage/));
    expect(sent.at(-1)?.message.file).toBeDefined();
    expect(await journal.list()).toEqual([]);
  });
});

describe('voice output', () => {
  test('re-queued once the bot is back in its channel; forgotten when played', async () => {
    let channel: string | undefined;
    const queued: { audioUrl: string; end: (end: RequeuedEnd) => void }[] = [];
    const { journal, client, sent, resumer } = setup({
      voiceWaitMs: 5000,
      voiceChannelOf: () => channel,
      requeue: (_entry, audio, onEnd) => {
        queued.push({ audioUrl: audio.audioUrl, end: onEnd });
        return true;
      },
    });
    const pending = await submitted(client, { output: 'voice', voiceChannelId: 'v1' });
    await journal.record(pending);
    await resumer.start();
    await new Promise((resolve) => setTimeout(resolve, 150));
    channel = 'v2'; // another channel: not where the item was asked for
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(queued).toEqual([]);
    channel = 'v1';
    while (queued.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(queued[0]?.audioUrl).toBe(`${emu.mediaOrigin}/audio/${pending.generationId}.wav`);
    expect((await journal.list()).length).toBe(1);
    queued[0]?.end('played');
    await resumer.idle();
    expect(await journal.list()).toEqual([]);
    // The reply (token still valid) says it waits, then that it was played; nothing else is posted.
    expect(
      sent.map((s) => [s.route.kind, s.message.content.split(/\n| \*\*/)[0], s.message.file]),
    ).toEqual([
      [
        'reply',
        '⏳ I restarted; this will be played once I am back in the voice channel.',
        undefined,
      ],
      ['reply', '🔊 Played after a restart.', undefined],
    ]);
    expect(posts()).toBe(1);
  });

  test('stopping while a re-queued item waits to play leaves it journalled', async () => {
    const { journal, client, resumer } = setup({
      voiceWaitMs: 5000,
      voiceChannelOf: () => 'v1',
      requeue: () => true, // queued; it never ends before the stop
    });
    const pending = await submitted(client, { output: 'voice', voiceChannelId: 'v1' });
    await journal.record(pending);
    await resumer.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await resumer.stop();
    expect((await journal.list()).map((e) => e.id)).toEqual([pending.id]);
  });

  test('the bot not back in time: reported in the channel with the audio, nobody pinged', async () => {
    const { journal, client, sent, resumer } = setup();
    const { reply: _reply, ...noReply } = await submitted(client, {
      output: 'voice',
      voiceChannelId: 'v1',
    });
    await journal.record(noReply);
    await resumer.start();
    await resumer.idle();
    expect(sent[0]?.route).toEqual({ kind: 'channel', channelId: 'c1' });
    expect(sent[0]?.message.content).toContain('I restarted and am not back in <#v1>');
    expect(sent[0]?.message.content).toContain('/join');
    expect(sent[0]?.message.content).not.toMatch(/<@/);
    expect(sent[0]?.message.file).toBeDefined();
    expect(await journal.list()).toEqual([]);
  });
});

describe('sealed reply tokens', () => {
  test('written under another SECRET_KEY: no reply edit, the result goes to the channel', async () => {
    const keyv = new Keyv();
    const { client, sent } = setup();
    await new PendingJournal(keyv, { ...sealing, secretKey: Buffer.alloc(32, 1) }).record(
      await submitted(client),
    );
    const { resumer } = setup({
      journal: new PendingJournal(keyv, sealing),
      send: async (route, message) => void sent.push({ route, message }),
    });
    expect(await resumer.start()).toBe(1);
    await resumer.idle();
    expect(sent.map((s) => s.route)).toEqual([{ kind: 'channel', channelId: 'c1' }]);
    expect(sent[0]?.message.file).toBeDefined();
    expect(posts()).toBe(1);
  });

  test('an entry an earlier version wrote with its token in clear still edits the reply', async () => {
    const map = new Map();
    const keyv = new Keyv({ store: map });
    const { client, sent } = setup();
    const pending = await submitted(client);
    await keyv.set(`pending:${pending.id}`, pending);
    await keyv.set('pending:index', [pending.id]);
    const { resumer } = setup({
      journal: new PendingJournal(keyv, sealing),
      send: async (route, message) => void sent.push({ route, message }),
    });
    await resumer.start();
    await resumer.idle();
    expect(sent.map((s) => s.route)).toEqual([
      { kind: 'reply', applicationId: 'app', token: 'tok' },
      { kind: 'reply', applicationId: 'app', token: 'tok' },
    ]);
    expect(sent[1]?.message.file).toBeDefined();
    expect(JSON.stringify([...map])).not.toContain(pending.id);
  });
});

describe('shards', () => {
  test('two shards over one journal each resume only their own guilds: every entry once', async () => {
    const keyv = new Keyv();
    const { client } = setup();
    const first = await submitted(client, { guildId: 'g1' });
    const second = await submitted(client, { guildId: 'g2' });
    await new PendingJournal(keyv, sealing).record(first);
    await new PendingJournal(keyv, sealing).record(second);
    const sent: { guildId: string; file: boolean }[] = [];
    const shard = (guildId: string) =>
      setup({
        journal: new PendingJournal(keyv, sealing),
        owns: (id) => id === guildId,
        send: async (_route, message) => void sent.push({ guildId, file: !!message.file }),
      }).resumer;
    const [one, two] = [shard('g1'), shard('g2')];
    // Shard one resumes first and finishes before shard two lists the journal.
    expect(await one.start()).toBe(1);
    await one.idle();
    expect((await new PendingJournal(keyv, sealing).list()).map((e) => e.id)).toEqual([second.id]);
    expect(await two.start()).toBe(1);
    await two.idle();
    expect(sent.filter((s) => s.file)).toEqual([
      { guildId: 'g1', file: true },
      { guildId: 'g2', file: true },
    ]);
    expect(posts()).toBe(2);
    expect(await new PendingJournal(keyv, sealing).list()).toEqual([]);
  });
});

describe('learned times', () => {
  test('a generation resumed from the journal is polled, and teaches the key nothing', async () => {
    const store = new KeyvLearnedTimesStore(new Keyv());
    const client = api.clients(emu, { learning: { store } }).clients.forKey(USER_ONE.apiKey);
    const { journal, sent, resumer } = setup({ clientFor: async () => client });
    // Its submit time is the journal's: an earlier run's, before the restart (or a stream's start).
    await journal.record(await submitted(client, { submittedAt: Date.now() - 5000 }));
    await resumer.start();
    await resumer.idle();
    expect(sent.at(-1)?.message.file).toBeDefined();
    await client.saveLearned();
    expect(await store.load(client.keyId)).toBeUndefined();
  });
});
