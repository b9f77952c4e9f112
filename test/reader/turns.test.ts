/**
 * A chat turn's source on the live path (v3 streaming): it says ffmpeg should start for raw PCM
 * before it generates and for a live address, streams its batch, lets the stream go (its PCM
 * destroyed) when a message of the batch is edited or deleted before it plays, and is then
 * made again, as a file since ffmpeg was started for one. The voice is a double over the real
 * `LiveStreams` bookkeeping the speaking service's chat voices use.
 */
import { PassThrough, Readable } from 'node:stream';
import pino from 'pino';
import { beforeEach, describe, expect, test } from 'vitest';
import { batchCost, ChatBacklog } from '../../src/reader/backlog.ts';
import { ENGLISH_CROWD_PHRASES } from '../../src/reader/crowd-phrases.ts';
import { ENGLISH_PHRASES } from '../../src/reader/phrases.ts';
import { collapseRepeats } from '../../src/reader/repeats.ts';
import type { ReaderMessage } from '../../src/reader/turn.ts';
import { ReaderTurns } from '../../src/reader/turns.ts';
import type { ChatGenerateOptions, ChatVoice } from '../../src/speaking/index.ts';
import { LiveStreams } from '../../src/speaking/live-streams.ts';
import { type ReaderSettings, readerSettingsSchema } from '../../src/store/index.ts';
import { STREAM_PCM } from '../../src/tts/index.ts';
import { FakeClock, settle } from '../support/fake-clock.ts';

/** One generation the voice was asked for: how, what, and the stream it gave when live. */
interface Made {
  readonly how: 'live' | 'file' | 'recovered';
  readonly text: string;
  readonly speed: number | undefined;
  readonly address: string;
  readonly pcm?: PassThrough;
}

/** A chat voice whose live variant streams (or, when `fallBack`, gives a file as a failed stream would). */
function voiceDouble(options: { live: boolean; speeds?: boolean }) {
  const made: Made[] = [];
  const streams = new LiveStreams();
  const state = { fallBack: false };
  const file = (text: string, speed: number | undefined): string => {
    const address = `https://media.test/audio/${made.length + 1}.wav`;
    made.push({ how: 'file', text, speed, address });
    return address;
  };
  // A file as the media server would serve it: a WAV header (sniffed as audio) and silence.
  const fileClient = {
    stream: async () => Readable.from([Buffer.concat([WAV_HEAD, Buffer.alloc(4800)])]),
  };
  const voice: ChatVoice = {
    key: 'k|v|base|1',
    request: { voiceId: 'v', model: 'base' },
    speeds: options.speeds ?? true,
    usage: async () => [],
    generate: async (text, { speed }: ChatGenerateOptions) => file(text, speed),
    ...(options.live
      ? {
          live: {
            generate: async (text, { speed, signal }: ChatGenerateOptions) => {
              if (state.fallBack) return file(text, speed);
              const pcm = new PassThrough();
              pcm.write(Buffer.alloc(4800));
              const generationId = `gen_${made.length + 1}`;
              const finished = Promise.withResolvers<{ generationId: string; audioUrl: string }>();
              finished.promise.catch(() => undefined);
              // A stream that failed before it played: its generation's file, as polled.
              const recover = async () => {
                const audioUrl = `https://media.test/audio/${generationId}.wav`;
                made.push({ how: 'recovered', text, speed, address: audioUrl });
                return { generationId, audioUrl };
              };
              const speech = { kind: 'live' as const, generationId, format: STREAM_PCM, pcm };
              const address = streams.hold(
                { ...speech, finished: finished.promise, recover },
                signal,
              );
              made.push({ how: 'live', text, speed, address, pcm });
              return address;
            },
            rawFormatOf: (address?: string) =>
              address === undefined ? STREAM_PCM : streams.formatOf(address),
          },
        }
      : {}),
    open: (address, signal) => streams.open(fileClient, address, signal),
  };
  return { voice, made, state };
}

/** The start of a 24 kHz mono 16-bit WAV file. */
const WAV_HEAD = Buffer.from(
  '524946462c12000057415645666d74201000000001000100c05d0000803b0000020010006461746100120000',
  'hex',
);

let clock: FakeClock;
let backlog: ChatBacklog<ReaderMessage>;
let next = 0;

function turnsOver(busyChat = false, settings?: Partial<ReaderSettings>): ReaderTurns {
  return new ReaderTurns({
    guildId: 'g1',
    backlog,
    speaking: { skip: () => true },
    clock,
    logger: pino({ level: 'silent' }),
    minTextLength: 0,
    busyChat,
    current: () => ({
      ...(settings === undefined
        ? {}
        : { settings: { ...readerSettingsSchema.parse({}), ...settings } }),
      phrases: ENGLISH_PHRASES,
      crowd: ENGLISH_CROWD_PHRASES,
    }),
    onProgress: () => undefined,
    onCancelled: () => undefined,
  });
}

function post(voice: ChatVoice, text: string, authorId = 'bobby'): ReaderMessage {
  const message: ReaderMessage = {
    id: `m${++next}`,
    authorId,
    authorName: authorId,
    text,
    kind: 'said',
    at: clock.now(),
    voiceKey: voice.key,
    voice,
  };
  backlog.add(message);
  return message;
}

const spoken = { kind: 'said' as const };

/** Far more chat than half of max-age can say at the voice's pace: 40 long messages, 40 chatters. */
function longBacklog(voice: ChatVoice): void {
  for (let i = 0; i < 40; i++)
    post(voice, `message ${i} ${'is rather long chat '.repeat(3)}`, `c${i}`);
}

beforeEach(() => {
  clock = new FakeClock();
  backlog = new ChatBacklog<ReaderMessage>({ holdMs: 0, batchChars: 600 });
});

describe('a chat turn on the live path', () => {
  test('rawFormatOf: PCM before it generates and for its live address; a file after a fallback', async () => {
    const { voice, made, state } = voiceDouble({ live: true });
    const turns = turnsOver();
    post(voice, 'hello there stream');
    const { source } = turns.open();
    expect(source.rawFormatOf()).toEqual(STREAM_PCM);
    const address = await source.generate(new AbortController().signal);
    expect(made.map((m) => [m.how, m.text])).toEqual([['live', 'bobby said hello there stream.']]);
    expect(address).toBe('live:gen_1');
    expect(source.rawFormatOf(address)).toEqual(STREAM_PCM);
    expect(source.rawFormatOf('https://media.test/audio/9.wav')).toBeUndefined();

    state.fallBack = true;
    post(voice, 'and a second one here');
    const second = turns.open().source;
    const file = await second.generate(new AbortController().signal);
    expect(file).toMatch(/^https:/);
    expect(second.rawFormatOf(file)).toBeUndefined();
  });

  test('a voice that does not stream: files, and no PCM hint', async () => {
    const { voice, made } = voiceDouble({ live: false });
    const turns = turnsOver();
    post(voice, 'hello there stream');
    const { source } = turns.open();
    expect(source.rawFormatOf()).toBeUndefined();
    const address = await source.generate(new AbortController().signal);
    expect(made.map((m) => m.how)).toEqual(['file']);
    expect(source.rawFormatOf(address)).toBeUndefined();
  });

  test('played: the live PCM goes to voice as raw input, and the turn ending does not cut it', async () => {
    const { voice, made } = voiceDouble({ live: true });
    const turns = turnsOver();
    post(voice, 'hello there stream');
    const { source, onUpdate } = turns.open();
    const address = await source.generate(new AbortController().signal);
    onUpdate({ state: 'playing' });
    const audio = await source.open(address, new AbortController().signal);
    expect(audio.raw).toEqual(STREAM_PCM);
    // The stream's PCM, passed through (counted, so a failure mid-way can carry on from its file).
    const chunk = Buffer.from([1, 2, 3, 4]);
    const got: Buffer[] = [];
    const heard = new Promise<Buffer>((resolve) =>
      audio.stream.on('data', (data: Buffer) => {
        got.push(data);
        if (Buffer.concat(got).length >= 4804) resolve(Buffer.concat(got));
      }),
    );
    made[0]?.pcm?.write(chunk);
    expect(await heard).toEqual(Buffer.concat([Buffer.alloc(4800), chunk]));
    onUpdate({ state: 'played', durationMs: 1800 });
    expect(made[0]?.pcm?.destroyed).toBe(false);
  });

  test.each([
    [
      'edited',
      (turns: ReaderTurns, id: string) =>
        turns.edit(id, { ...spoken, text: 'hello everyone, fixed' }),
    ],
    ['deleted', (turns: ReaderTurns, id: string) => turns.remove(id)],
  ])(
    'a message %s before the turn plays: the stream is destroyed and the turn made again as a file',
    async (_name, change) => {
      const { voice, made } = voiceDouble({ live: true });
      const turns = turnsOver();
      const first = post(voice, 'hello evryone');
      post(voice, 'second message here', 'carol');
      const { source, onUpdate } = turns.open();
      const address = await source.generate(new AbortController().signal);
      const stream = made[0]?.pcm;
      expect(stream?.destroyed).toBe(false);
      expect(change(turns, first.id)).toBe(true);
      await settle();
      expect(stream?.destroyed).toBe(true);
      // Voice asks before it opens: ffmpeg for a file, since the turn is made again as one.
      expect(source.rawFormatOf(address)).toBeUndefined();
      onUpdate({ state: 'playing' });
      const audio = await source.open(address, new AbortController().signal);
      expect(audio.raw).toBeUndefined();
      expect(made.map((m) => m.how)).toEqual(['live', 'file']);
      expect(made[1]?.text).not.toContain('evryone');
      expect(made[1]?.text).toContain('second message here');
    },
  );

  test('the item leaving before it plays lets its stream go', async () => {
    const { voice, made } = voiceDouble({ live: true });
    const turns = turnsOver();
    post(voice, 'hello there stream');
    const { source } = turns.open();
    const item = new AbortController();
    const address = await source.generate(item.signal);
    item.abort(new Error('skipped'));
    expect(made[0]?.pcm?.destroyed).toBe(true);
    expect(source.rawFormatOf(address)).toBeUndefined();
  });

  test('a stream that fails while its turn waits is heard from its file, not dropped', async () => {
    const { voice, made } = voiceDouble({ live: true });
    const turns = turnsOver();
    post(voice, 'hello there stream that will fail');
    const { source, onUpdate } = turns.open();
    const address = await source.generate(new AbortController().signal);
    made[0]?.pcm?.on('error', () => undefined);
    made[0]?.pcm?.destroy(new Error('the v3 stream failed: the connection was cut (close 1006)'));
    await settle();
    // Voice asks before it opens: ffmpeg for a file, since the failed stream is not played.
    expect(source.rawFormatOf(address)).toBeUndefined();
    onUpdate({ state: 'playing' });
    const audio = await source.open(address, new AbortController().signal);
    expect(audio.raw).toBeUndefined();
    // The same generation's file: nothing generated again.
    expect(made.map((m) => [m.how, m.text])).toEqual([
      ['live', 'bobby said hello there stream that will fail.'],
      ['recovered', 'bobby said hello there stream that will fail.'],
    ]);
  });
});

describe('the speed a turn is generated at follows the voice of its batch', () => {
  test('a priority message in a voice that takes no speed goes first: sent at its own speed', async () => {
    const base = voiceDouble({ live: false, speeds: true });
    const other = voiceDouble({ live: false, speeds: false });
    const advance = {
      ...other.voice,
      key: 'k|v2|advance|1',
      request: { voiceId: 'v2', model: 'advance' as const },
    };
    const turns = turnsOver(true);
    // The chat is sped up.
    longBacklog(base.voice);
    const vip: ReaderMessage = { ...post(advance, 'the vip says something long', 'vip') };
    backlog.delete(vip.id);
    backlog.add({ ...vip, priority: true });
    const generating = turns.open().source.generate(new AbortController().signal);
    await clock.advance(0);
    await settle();
    await generating;
    expect(base.made).toEqual([]);
    expect(other.made.map((m) => [m.text, m.speed])).toEqual([
      ['vip, the vip says something long.', undefined],
    ]);
  });

  test('a calm chat whose oldest message went stale: the next voice keeps its own speed', async () => {
    const plain = voiceDouble({ live: false });
    const fast = voiceDouble({ live: false });
    const fastVoice = {
      ...fast.voice,
      key: 'k|v|base|1.5',
      request: { voiceId: 'v', model: 'base' as const, speed: 1.5 },
    };
    const turns = turnsOver();
    post(plain.voice, 'an old message nobody will hear now', 'old');
    await clock.advance(61_000); // past the default max-age of 60 s
    post(fastVoice, 'a fresh message from a member who reads at 1.5', 'fast');
    const generating = turns.open().source.generate(new AbortController().signal);
    await settle();
    await generating;
    expect(plain.made).toEqual([]);
    // Its own speed is in its request: nothing else is sent (before: speed 1, the stale voice's).
    expect(fast.made.map((m) => m.speed)).toEqual([undefined]);
  });
});

describe('a busy chat turn made again as it plays', () => {
  test('takes its batch at once, not after the turn queued behind it has taken', async () => {
    const { voice, made } = voiceDouble({ live: false });
    const turns = turnsOver(true, { maxAgeMs: 20_000 });
    longBacklog(voice);
    const a = turns.open();
    const aGenerated = a.source.generate(new AbortController().signal);
    await clock.advance(0);
    await settle();
    const addressA = await aGenerated;
    // The next turn waits to take until A's speech leaves room in the forecast window.
    const b = turns.open();
    void b.source.generate(new AbortController().signal).catch(() => undefined);
    await settle();
    const madeBeforeDelete = made.length;
    // A moderator deletes one of A's messages before A plays.
    expect(turns.remove(a.turn.batch[0]?.id ?? '')).toBe(true);
    a.onUpdate({ state: 'playing' });
    let opened = false;
    void a.source.open(addressA, new AbortController().signal).then(() => {
      opened = true;
    });
    await settle();
    expect(opened).toBe(true);
    expect(made).toHaveLength(madeBeforeDelete + 1);
  });
});

describe('a busy chat read faster', () => {
  test.each([
    [true, 'faster than the voice'],
    [false, 'at the voice’s own speed: the API would not apply another (v3’s Advanced)'],
  ])(
    'with a voice that takes speed: %s, the first turn of a long backlog is read %s',
    async (speeds) => {
      const { voice, made } = voiceDouble({ live: false, speeds });
      const turns = turnsOver(true);
      longBacklog(voice);
      const generating = turns.open().source.generate(new AbortController().signal);
      await clock.advance(0);
      await settle();
      await generating;
      const [first] = made;
      if (speeds) expect(first?.speed).toBeGreaterThan(1);
      else expect(first?.speed).toBeUndefined();
    },
  );
});

describe('the speed after a burst, once the chat calmed', () => {
  test('a message after three seconds of silence, nothing waiting, is read at the voice’s own speed', async () => {
    const { voice, made } = voiceDouble({ live: false });
    const turns = turnsOver(true);
    // Two turns of a burst step the speed up twice (1.15×, then 1.3×).
    for (let i = 0; i < 2; i++) {
      longBacklog(voice);
      const opened = turns.open();
      const generating = opened.source.generate(new AbortController().signal);
      await clock.advance(0);
      await settle();
      await generating;
      opened.onUpdate({ state: 'playing' });
      opened.onUpdate({ state: 'skipped' });
      backlog.clear();
    }
    expect(made.map((m) => m.speed)).toEqual([1.15, 1.3]);
    await clock.advance(3000);
    post(voice, 'a quiet hello from one chatter', 'dana');
    const calm = turns.open();
    const generating = calm.source.generate(new AbortController().signal);
    await clock.advance(0);
    await settle();
    await generating;
    expect(made.at(-1)?.text).toBe('dana said a quiet hello from one chatter.');
    expect(made.at(-1)?.speed).toBeUndefined();
    expect(calm.turn.factor).toBe(1);
  });
});

describe('a busy chat read with the compact glue', () => {
  const generate = async (turns: ReaderTurns) => {
    const opened = turns.open();
    const generating = opened.source.generate(new AbortController().signal);
    await clock.advance(0);
    await settle();
    await generating;
    return opened;
  };

  test('a long backlog is read "c0, …" and forecast with the shorter glue; off, as before', async () => {
    const { voice, made } = voiceDouble({ live: false });
    longBacklog(voice);
    const { turn } = await generate(turnsOver(true));
    expect(made[0]?.text).toMatch(/^c0, message 0 is rather long chat/);
    expect(made[0]?.text).not.toMatch(/c\d+ said/);
    expect(turn.compact).toBe(true);
    // A chorus (here "message 1" and "message 11" fold alike) counts once, at its first message.
    const spoken = collapseRepeats(turn.batch).flatMap((group) => group.messages.slice(0, 1));
    expect(turn.cost).toBe(spoken.reduce((sum, m) => sum + batchCost(m, 4), 0));

    backlog.clear();
    const off = voiceDouble({ live: false });
    longBacklog(off.voice);
    const { turn: before } = await generate(turnsOver(false));
    expect(off.made[0]?.text).toMatch(/^c0 said message 0/);
    expect(before.compact).toBe(false);
    expect(before.cost).toBe(before.batch.reduce((sum, m) => sum + batchCost(m), 0));
  });

  test('once the chat calms, the full form comes back', async () => {
    const { voice, made } = voiceDouble({ live: false });
    const turns = turnsOver(true);
    longBacklog(voice);
    const first = await generate(turns);
    first.onUpdate({ state: 'skipped' });
    backlog.clear();
    post(voice, 'a quiet hello from one chatter', 'dana');
    const second = await generate(turns);
    expect(second.turn.compact).toBe(false);
    expect(made.at(-1)?.text).toBe('dana said a quiet hello from one chatter.');
  });
});
