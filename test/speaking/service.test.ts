/**
 * The speaking service on real parts: the TTS client against the emulator, settings in an
 * in-memory keyv, and the real VoiceManager against the fake voice server.
 */
import Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { PreviewCache } from '../../src/preview/index.ts';
import { UserError } from '../../src/refusal/index.ts';
import {
  SpeakingService,
  type SpeechEnd,
  type SpeechInput,
  type SpeechJournal,
} from '../../src/speaking/index.ts';
import { KeyvSettingsStore, KeyvSpeechCacheStore, KeyvUsageLedger } from '../../src/store/index.ts';
import { systemClock, TtsError } from '../../src/tts/index.ts';
import { SpeechCache } from '../../src/tts/speech-cache.ts';
import type { SpeakUpdate, VoiceManager } from '../../src/voice/index.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import {
  type FakeVoiceServer,
  startFakeVoiceServer,
  trustFakeVoiceCertificate,
} from '../fake-discord/voice/index.ts';
import { clientsFor, sentence, TIME_SCALE } from '../tts/emulated.ts';
import { newGuildId, newManager, quietLogger, target } from '../voice/support.ts';

let emulator: Emulator;
let server: FakeVoiceServer;
const managers: VoiceManager[] = [];

beforeAll(async () => {
  await trustFakeVoiceCertificate();
  server = await startFakeVoiceServer({ heartbeatIntervalMs: 500 });
  emulator = await startEmulator({ synth: 'tone', timeScale: TIME_SCALE, generationMs: () => 100 });
});
afterEach(async () => {
  emulator.clearFaults();
  for (const manager of managers.splice(0)) await manager.destroy();
});
afterAll(async () => {
  await server?.close();
  await emulator?.close();
});

/** A service for one guild whose key is USER_ONE's (none when `withKey` is false). */
async function setup(
  options: {
    withKey?: boolean;
    maxQueueLength?: number;
    maxPerRequester?: number;
    filesAtOnce?: number;
    cache?: boolean;
    /** How long a generation may run before it fails (default 15 s). */
    pollDeadlineMs?: number;
    /** The server's language (English when absent). */
    locale?: string;
  } = {},
) {
  const guildId = newGuildId();
  const settings = new KeyvSettingsStore(new Keyv());
  const events: string[] = [];
  const ends: string[] = [];
  const journal: SpeechJournal = {
    submitted: (ticket, generationId) => {
      events.push(`submitted ${generationId}`);
      expect(JSON.stringify(ticket)).not.toContain(USER_ONE.apiKey);
    },
    settled: (_ticket, end: SpeechEnd) => void events.push(`settled ${end.state}`),
  };
  const { manager } = newManager({
    ...(options.maxQueueLength === undefined ? {} : { maxQueueLength: options.maxQueueLength }),
    ...(options.maxPerRequester === undefined ? {} : { maxPerRequester: options.maxPerRequester }),
  });
  const usage = new KeyvUsageLedger(new Keyv());
  managers.push(manager);
  const speaking = new SpeakingService({
    settings,
    apiKeyOf: async (id) =>
      options.withKey === false || id !== guildId ? undefined : USER_ONE.apiKey,
    tts: clientsFor(emulator, {
      ...(options.pollDeadlineMs === undefined ? {} : { pollDeadlineMs: options.pollDeadlineMs }),
      ...(options.cache
        ? {
            cache: new SpeechCache({
              store: new KeyvSpeechCacheStore(new Keyv()),
              ttlMs: 3_600_000,
              clock: systemClock,
              onError: () => undefined,
            }),
          }
        : {}),
    }).clients,
    voice: manager,
    usage,
    previews: new PreviewCache(new Keyv()),
    dailyLimit: 500,
    ...(options.filesAtOnce === undefined ? {} : { filesAtOnce: options.filesAtOnce }),
    clock: systemClock,
    logger: quietLogger,
    minTextLength: 30,
    ...(options.locale === undefined
      ? {}
      : { translatorOf: () => translatorFor(options.locale ?? 'en') }),
    journal,
    onEnd: (state) => void ends.push(state),
  });
  const input = (extra: Partial<SpeechInput> = {}): SpeechInput => ({
    guildId,
    requester: { id: 'member', name: 'Member', canManage: false },
    text: sentence(40),
    origin: { channelId: 'c1' },
    ...extra,
  });
  return { guildId, settings, events, ends, manager, speaking, input, usage };
}

async function refused(promise: Promise<unknown>): Promise<UserError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UserError);
  return error as UserError;
}

const posts = () => emulator.counts()['POST /v2/tts']?.total ?? 0;

describe('prepare', () => {
  test.each([
    [false, 'no_api_key_member', 'Ask a server admin (Manage Server)'],
    [true, 'no_api_key_admin', 'Set one with `/config api-key`'],
  ])('without a key (manager: %s) says who can set one', async (canManage, id, message) => {
    const { speaking, input } = await setup({ withKey: false });
    const requester = { id: 'member', name: 'Member', canManage };
    const error = await refused(speaking.prepare(input({ requester })));
    expect(error.id).toBe(id);
    expect(error.message).toContain(message);
  });

  test('with blocked: bleep, /say says the server’s own word for "beep"', async () => {
    const { speaking, settings, guildId, input } = await setup({ locale: 'de' });
    const guild = await settings.guild(guildId);
    await settings.setGuild(guildId, {
      ...guild,
      blockedWords: ['badword'],
      reader: { ...guild.reader, blocked: 'bleep' },
    });
    const text = `${sentence(40)} badword`;
    const { validated } = await speaking.prepare(input({ text }));
    const beep = translatorFor('de').t('reader.speech.bleep');
    expect(validated.text).toBe(`${sentence(40)} ${beep}`);
    expect(beep).not.toBe(translatorFor('en').t('reader.speech.bleep'));
  });

  test('the requester’s own voice beats the server’s; a chosen voice beats both', async () => {
    const { speaking, settings, guildId, input } = await setup();
    await settings.setGuild(guildId, { defaults: { voiceId: 'server_voice', speed: 1.5 } });
    expect((await speaking.prepare(input())).validated).toMatchObject({
      voiceId: 'server_voice',
      speed: 1.5,
    });
    await settings.setUser('member', { voiceId: 'member_voice' });
    expect((await speaking.prepare(input())).validated.voiceId).toBe('member_voice');
    const chosen = await speaking.prepare(input({ choices: { voice: 'chosen', speed: 0.5 } }));
    expect(chosen.validated).toMatchObject({ voiceId: 'chosen', speed: 0.5 });
  });

  test.each([
    [{ text: 'too short' }, 'text_too_short', 'too short'],
    [{ choices: { emotion: 'happy' } }, 'emotion_needs_advance', 'only with the `advance` model'],
    [{ output: 'voice' as const }, 'say_not_in_voice', '/join'],
  ])('%j is refused before any generation', async (extra, id, message) => {
    const { speaking, input } = await setup();
    const before = posts();
    const error = await refused(speaking.prepare(input(extra)));
    expect([error.id, error.message]).toEqual([id, expect.stringContaining(message)]);
    expect(posts()).toBe(before);
  });

  test('file by default while the bot is in no voice channel', async () => {
    const { speaking, input } = await setup();
    expect((await speaking.prepare(input({ requesterChannelId: 'vc' }))).output).toBe('file');
  });
});

describe('attach (file)', () => {
  test('journals the submit before generating, delivers the emulator’s bytes, then settles', async () => {
    const { speaking, input, events, guildId } = await setup();
    const speech = await speaking.chooseVoice(await speaking.prepare(input()));
    expect(speech.ticket).toMatchObject({
      guildId,
      requesterId: 'member',
      requesterName: 'Member',
      output: 'file',
      origin: { channelId: 'c1' },
      request: { text: sentence(40), model: 'base', voiceId: speech.voice.voiceId },
    });
    const stages: string[] = [];
    let delivered: Buffer | undefined;
    await speaking.attach(speech, {
      maxBytes: 10_000_000,
      onProgress: (progress) => {
        stages.push(progress.stage);
        if (progress.stage === 'generating') events.push('told generating');
      },
      deliver: async (file) => {
        delivered = file.bytes;
        events.push('delivered');
      },
    });
    const [submitted] = events;
    const generationId = submitted?.replace('submitted ', '') ?? '';
    expect(events).toEqual([submitted, 'told generating', 'delivered', 'settled delivered']);
    expect(delivered?.equals(emulator.audioOf(generationId) ?? Buffer.alloc(0))).toBe(true);
    expect(stages).toEqual(['waiting', 'generating', 'downloading']);
  });

  test('a failed generation settles as failed and reaches the caller', async () => {
    const { speaking, input, events } = await setup();
    const speech = await speaking.chooseVoice(await speaking.prepare(input()));
    emulator.fault({ kind: 'fail', error: 'engine melted' });
    const attached = speaking.attach(speech, {
      maxBytes: 10_000_000,
      onProgress: () => undefined,
      deliver: async () => undefined,
    });
    await expect(attached).rejects.toBeInstanceOf(TtsError);
    expect(events).toEqual([expect.stringMatching(/^submitted /), 'settled failed']);
  });

  test('audio larger than the server allows is refused with the way out, and settles as failed', async () => {
    const { speaking, input, events } = await setup();
    const speech = await speaking.chooseVoice(await speaking.prepare(input()));
    const error = await refused(
      speaking.attach(speech, {
        maxBytes: 100,
        onProgress: () => undefined,
        deliver: async () => undefined,
      }),
    );
    expect(error.id).toBe('too_large');
    expect(error.message).toContain('/join');
    expect(events.at(-1)).toBe('settled failed');
  });
});

describe('speak (voice)', () => {
  test('queues in the voice channel; the journal sees the submit, then delivery when played', async () => {
    const { speaking, input, events, manager, guildId } = await setup();
    await manager.join(target(server, guildId));
    const speech = await speaking.chooseVoice(
      await speaking.prepare(input({ requesterChannelId: target(server, guildId).channelId })),
    );
    expect(speech.output).toBe('voice');
    const updates: SpeakUpdate[] = [];
    const ended = new Promise<void>((resolve) => {
      const queued = speaking.speak(speech, (update) => {
        updates.push(update);
        if (update.state === 'played') resolve();
      });
      expect(queued.position).toBe(1);
    });
    await ended;
    expect(updates.map((update) => update.state)).toEqual(['generating', 'playing', 'played']);
    expect(events).toEqual([expect.stringMatching(/^submitted /), 'settled delivered']);
  });

  test('a full queue is refused with its length; nothing is journalled', async () => {
    const { speaking, input, events, manager, guildId } = await setup({ maxQueueLength: 1 });
    await manager.join(target(server, guildId));
    emulator.fault({ kind: 'never-complete' });
    const speech = await speaking.chooseVoice(await speaking.prepare(input({ output: 'voice' })));
    speaking.speak(speech, () => undefined);
    expect(() => speaking.speak(speech, () => undefined)).toThrow(
      expect.objectContaining({ id: 'queue_full', message: expect.stringContaining('(1 items)') }),
    );
    expect(events).toEqual([]);
  });
});

describe('per-member limits', () => {
  const member = (id: string, canManage = false) => ({ id, name: id, canManage });
  const file = {
    maxBytes: 10_000_000,
    onProgress: () => undefined,
    deliver: async () => undefined,
  };

  test('the daily share: counted from the ledger, refused with when it frees up, Manage Server exempt', async () => {
    const { speaking, settings, guildId, input, usage } = await setup();
    expect(await speaking.memberShareOf(guildId)).toBe(100); // a fifth of 500
    await settings.setGuild(guildId, { limits: { memberDaily: 2 } });
    expect(await speaking.memberShareOf(guildId)).toBe(2);
    for (let i = 0; i < 2; i += 1) {
      const speech = await speaking.chooseVoice(await speaking.prepare(input()));
      await speaking.attach(speech, file);
    }
    const now = Date.now();
    expect(usage.memberToday(guildId, 'member', now)).toBe(2);
    const before = posts();
    const error = await refused(speaking.chooseVoice(await speaking.prepare(input())));
    const midnight = (Math.floor(now / 86_400_000) + 1) * 86_400;
    expect(error.id).toBe('member_daily_limit');
    expect(error.message).toContain('(2 per member per day)');
    expect(error.message).toContain(`<t:${midnight}:R>`);
    expect(posts()).toBe(before);
    // Another member has their own share; a manager has none.
    await speaking.chooseVoice(await speaking.prepare(input({ requester: member('other') })));
    await speaking.chooseVoice(
      await speaking.prepare(input({ requester: member('member', true) })),
    );
  });

  test('requests at the same moment cannot both take the last generation of the share', async () => {
    const { speaking, settings, guildId, input } = await setup();
    await settings.setGuild(guildId, { limits: { memberDaily: 2 } });
    const prepared = await Promise.all([1, 2, 3].map(() => speaking.prepare(input())));
    const outcomes = await Promise.allSettled(prepared.map((p) => speaking.chooseVoice(p)));
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(speaking.reservedFor(guildId, 'member')).toBe(2);
    for (const outcome of outcomes)
      if (outcome.status === 'fulfilled') await speaking.attach(outcome.value, file);
    expect(speaking.reservedFor(guildId, 'member')).toBe(0);
    await refused(speaking.chooseVoice(await speaking.prepare(input())));
  });

  test('a request that ends before its generation gives its place in the share back', async () => {
    const { speaking, settings, guildId, input, manager } = await setup({ maxPerRequester: 1 });
    await settings.setGuild(guildId, { limits: { memberDaily: 1 } });
    await manager.join(target(server, guildId));
    const speech = await speaking.chooseVoice(await speaking.prepare(input({ output: 'voice' })));
    expect(speaking.reservedFor(guildId, 'member')).toBe(1);
    manager.stop(guildId); // nothing queued yet: still reserved
    speaking.speak(speech, () => undefined);
    expect(manager.stop(guildId)).toBe(1); // cancelled while waiting or before the submit
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(speaking.reservedFor(guildId, 'member')).toBe(0);
  });

  test('the voice queue cap: the fourth waiting item is refused with when a place frees up', async () => {
    const { speaking, input, manager, guildId } = await setup({ maxPerRequester: 3 });
    await manager.join(target(server, guildId));
    emulator.fault({ kind: 'never-complete' });
    const voice = { output: 'voice' as const };
    const queue = async (requester = member('member')) =>
      speaking.speak(
        await speaking.chooseVoice(await speaking.prepare(input({ ...voice, requester }))),
        () => undefined,
      );
    await queue(member('first')); // someone else's item is ahead of all of them
    for (let i = 0; i < 3; i += 1) await queue();
    const started = Date.now();
    const error = (await queue().then(
      () => undefined,
      (caught: unknown) => caught,
    )) as UserError;
    expect(error).toBeInstanceOf(UserError);
    expect(error.id).toBe('member_queue_full');
    expect(error.message).toContain('You already have 3 items waiting');
    // First's 40 characters (about 2.7 s) play before the member's first item.
    const at = Number(/<t:(\d+):R>/.exec(error.message)?.[1]) * 1000;
    expect(at).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000 + 2000);
    expect(at).toBeLessThanOrEqual(Date.now() + 4000);
    expect(speaking.reservedFor(guildId, 'member')).toBe(3); // the refused one gave its back
    await queue(member('other')); // others are not affected
  });

  test('identical requests at once share one generation, counted once in the ledger', async () => {
    const { speaking, input, usage, guildId } = await setup({ cache: true });
    const before = posts();
    const text = `Shared ${sentence(40)}`;
    const speeches = await Promise.all(
      ['m1', 'm2'].map(async (id) =>
        speaking.chooseVoice(await speaking.prepare(input({ requester: member(id), text }))),
      ),
    );
    await Promise.all(speeches.map((speech) => speaking.attach(speech, file)));
    expect(posts() - before).toBe(1);
    const [today] = await usage.days(guildId, Date.now(), Date.now());
    expect(today?.total).toBe(1);
    expect(Object.values(today?.members ?? {})).toEqual([1]); // whoever submitted
    expect(speaking.reservedFor(guildId, 'm1') + speaking.reservedFor(guildId, 'm2')).toBe(0);
  });

  test('file mode: a few at once per server, the others wait with their place shown', async () => {
    const { speaking, input } = await setup({ filesAtOnce: 2 });
    const progress: string[][] = [[], [], []];
    const speeches = await Promise.all(
      [0, 1, 2].map(async (i) =>
        speaking.chooseVoice(await speaking.prepare(input({ requester: member(`m${i}`) }))),
      ),
    );
    await Promise.all(
      speeches.map((speech, i) =>
        speaking.attach(speech, {
          ...file,
          onProgress: (p) =>
            progress[i]?.push(p.stage === 'queued' ? `queued ${p.place}` : p.stage),
        }),
      ),
    );
    expect(progress[0]?.[0]).toBe('waiting');
    expect(progress[1]?.[0]).toBe('waiting');
    expect(progress[2]?.slice(0, 2)).toEqual(['queued 1', 'waiting']);
  });

  test('file mode: a request leaves the line once submitted, so the next generates meanwhile', async () => {
    // One place in line: were it held until the audio is there, the second request could not
    // be submitted before the first ends, and budget freed meanwhile would go unused.
    const { speaking, input } = await setup({ filesAtOnce: 1, pollDeadlineMs: 3000 });
    const [first, second] = await Promise.all(
      ['m0', 'm1'].map(async (id) =>
        speaking.chooseVoice(await speaking.prepare(input({ requester: member(id) }))),
      ),
    );
    if (first === undefined || second === undefined) throw new Error('two speeches expected');
    emulator.fault({ kind: 'never-complete' }); // the first one's generation
    let firstEnded = false;
    const firstAttached = speaking.attach(first, file).finally(() => {
      firstEnded = true;
    });
    const stages: string[] = [];
    await speaking.attach(second, {
      ...file,
      onProgress: (p) => stages.push(p.stage === 'queued' ? `queued ${p.place}` : p.stage),
      deliver: async () => {
        stages.push(firstEnded ? 'delivered after the first ended' : 'delivered');
      },
    });
    expect(stages).toEqual(['queued 1', 'waiting', 'generating', 'downloading', 'delivered']);
    await expect(firstAttached).rejects.toMatchObject({ kind: 'generation_timeout' });
  });

  test('file mode: a few download at once per server', async () => {
    const { speaking, input } = await setup({ filesAtOnce: 1 });
    const speeches = await Promise.all(
      ['m0', 'm1', 'm2'].map(async (id) =>
        speaking.chooseVoice(await speaking.prepare(input({ requester: member(id) }))),
      ),
    );
    const from = emulator.requests.length;
    emulator.fault({ kind: 'delay', endpoint: 'GET /audio', ms: 300 }); // the first download
    await Promise.all(speeches.map((speech) => speaking.attach(speech, file)));
    const downloads = emulator.requests
      .slice(from)
      .filter((e) => e.endpoint === 'GET /audio')
      .sort((a, b) => a.at - b.at);
    expect(downloads).toHaveLength(3);
    downloads.forEach((download, i) => {
      const previous = downloads[i - 1];
      if (previous !== undefined) expect(download.at).toBeGreaterThanOrEqual(previous.doneAt);
    });
  });
});

describe('onEnd (metrics)', () => {
  test('each request ends once: delivered, failed (also before reaching the API), skipped', async () => {
    const { speaking, input, ends, manager, guildId } = await setup();
    const file = {
      maxBytes: 10_000_000,
      onProgress: () => undefined,
      deliver: async () => undefined,
    };
    await speaking.attach(await speaking.chooseVoice(await speaking.prepare(input())), file);
    const tooLarge = await speaking.chooseVoice(await speaking.prepare(input()));
    await refused(speaking.attach(tooLarge, { ...file, maxBytes: 100 }));
    expect(ends).toEqual(['delivered', 'failed']);

    await manager.join(target(server, guildId));
    const voice = await speaking.chooseVoice(await speaking.prepare(input({ output: 'voice' })));
    const skipped = new Promise<void>((resolve) =>
      speaking.speak(voice, (update) => {
        if (update.state === 'playing') manager.skip(guildId);
        if (update.state === 'skipped') resolve();
      }),
    );
    await skipped;
    expect(ends).toEqual(['delivered', 'failed', 'skipped']);
  });
});
