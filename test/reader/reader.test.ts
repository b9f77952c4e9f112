import { Readable } from 'node:stream';
import Keyv from 'keyv';
import pino from 'pino';
import { beforeEach, describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { SpeechQueue } from '../../src/queue/index.ts';
import { PAID_WAITING_MAX } from '../../src/reader/backlog.ts';
import {
  ChatReader,
  type ChatSpeaking,
  type ChatTurn,
  type IncomingMessage,
} from '../../src/reader/index.ts';
import { UserError, userRefusal } from '../../src/refusal/index.ts';
import {
  defaultReaderSettings,
  defaultTwitchSettings,
  type GuildSettings,
  KeyvMemberSettings,
} from '../../src/store/index.ts';
import type { LimitUsage } from '../../src/tts/index.ts';
import { FakeClock, settle } from '../support/fake-clock.ts';

const GUILD = 'g1';

/**
 * The reader's speaking path, built on the real pure SpeechQueue: turns generate when they
 * reach the window and play one at a time. The TTS client is a test double: each generation
 * waits until the test releases it.
 */
class Stage {
  readonly queue: SpeechQueue<ChatTurn>;
  readonly submitted: string[] = [];
  readonly played: string[] = [];
  readonly pending: Array<{ text: string; release: () => void }> = [];
  autoRelease = true;
  inVoice: string | undefined = 'voice';
  /** What the key's budget says (none used by default). */
  usages: LimitUsage[] = [];
  /** The API applies speed to the voice's model (v3's Advanced does not). */
  speeds = true;
  /** The language the voice reads the line in (v3's `language_code`); none: v2. */
  language: string | undefined;
  #texts = new Map<string, string>();
  #generations = 0;
  #playing = false;

  constructor(clock: FakeClock) {
    this.queue = new SpeechQueue<ChatTurn>({ now: () => clock.now(), lookahead: 2 });
  }

  channelOf(): string | undefined {
    return this.inVoice;
  }

  async voiceOf() {
    return {
      key: `k|v|${this.language ?? ''}`,
      request: {
        voiceId: 'v',
        model: 'base' as const,
        ...(this.language === undefined ? {} : { language: this.language }),
      },
      speeds: this.speeds,
      usage: async () => this.usages,
      generate: (text: string, options: { signal: AbortSignal }) =>
        new Promise<string>((resolve, reject) => {
          const url = `audio:${++this.#generations}`;
          const release = () => {
            this.submitted.push(text);
            this.#texts.set(url, text);
            resolve(url);
          };
          options.signal.addEventListener('abort', () => reject(options.signal.reason), {
            once: true,
          });
          if (this.autoRelease) release();
          else this.pending.push({ text, release });
        }),
      open: async (url: string) => ({
        stream: Readable.from([this.#texts.get(url) ?? '']),
        extension: 'txt',
      }),
    };
  }

  queueTurn(turn: ChatTurn) {
    const result = this.queue.enqueue({ requesterId: turn.requesterId, payload: turn });
    if (!result.ok) return { ok: false as const };
    this.pump();
    return { ok: true as const, itemId: result.item.id };
  }

  skip(): boolean {
    for (const { item } of this.queue.skip()) item.payload.onUpdate({ state: 'skipped' });
    return true;
  }

  stop(): void {
    for (const { item } of this.queue.clear()) item.payload.onUpdate({ state: 'cancelled' });
  }

  async join(): Promise<void> {
    this.inVoice = 'voice';
  }

  pump(): void {
    for (const item of this.queue.toGenerate()) {
      if (!this.queue.markGenerating(item.id).ok) continue;
      item.payload.source.generate(new AbortController().signal).then(
        (url) => {
          if (this.queue.markReady(item.id).ok) this.#texts.set(item.id, url);
          this.pump();
        },
        (error: unknown) => {
          if (this.queue.markFailed(item.id, String(error)).ok)
            item.payload.onUpdate({ state: 'failed', error });
          this.pump();
        },
      );
    }
    if (this.#playing) return;
    const next = this.queue.next();
    if (next === undefined) return;
    this.#playing = true;
    next.payload.onUpdate({ state: 'playing' });
    next.payload.source
      .open(this.#texts.get(next.id) ?? '', new AbortController().signal)
      .then(async ({ stream }) => {
        let text = '';
        for await (const chunk of stream) text += String(chunk);
        this.played.push(text);
        this.queue.finish(next.id);
        next.payload.onUpdate({ state: 'played', durationMs: 1 });
      })
      .catch((error: unknown) => {
        this.queue.markFailed(next.id, String(error));
        next.payload.onUpdate({ state: 'failed', error });
      })
      .finally(() => {
        this.#playing = false;
        this.pump();
      });
  }
}

let clock: FakeClock;
let stage: Stage;
let reader: ChatReader;
let guild: GuildSettings;
/** Members' own settings, in a real store over memory. */
let members: KeyvMemberSettings;
let nextId = 0;

/**
 * A reader over the stage; `locale` is the server's community locale, when it has one. Its
 * quiet chat is held as a busy one's (`holdQuietChat`), so the hold's own rules can be seen
 * on one or two messages; the quiet chat read at once has its tests below.
 */
function newReader(locale?: () => string, holdQuietChat = true): ChatReader {
  return new ChatReader({
    settings: { guild: async () => guild },
    members,
    speaking: {
      channelOf: () => stage.inVoice,
      voiceOf: () => stage.voiceOf(),
      queue: (turn) => stage.queueTurn(turn),
      skip: () => stage.skip(),
      join: () => stage.join(),
    },
    clock,
    logger: pino({ level: 'silent' }),
    minTextLength: 30,
    holdQuietChat,
    ...(locale === undefined ? {} : { translatorOf: () => translatorFor(locale()) }),
  });
}

beforeEach(() => {
  clock = new FakeClock();
  stage = new Stage(clock);
  members = new KeyvMemberSettings(new Keyv());
  guild = {
    defaults: {},
    limits: {},
    reader: { ...defaultReaderSettings(), channels: ['text'] },
    blockedWords: [],
    dictionary: [{ word: 'gg', replacement: 'good game' }],
    twitch: defaultTwitchSettings(),
  };
  reader = newReader();
});

function post(
  author: string,
  content: string,
  change: Partial<IncomingMessage> = {},
): IncomingMessage {
  const message: IncomingMessage = {
    id: String(++nextId),
    guildId: GUILD,
    channelId: 'text',
    authorId: author.toLowerCase(),
    authorName: author,
    self: false,
    bot: false,
    webhook: false,
    roleIds: [],
    authorVoiceChannelId: 'voice',
    content,
    message: { content, attachments: [], stickers: [] },
    names: { user: () => undefined, role: () => undefined, channel: () => undefined },
    ...change,
  };
  void reader.created(message);
  return message;
}

const wait = async (ms: number) => {
  await clock.advance(ms);
  for (let i = 0; i < 5; i++) await settle();
};

describe('ChatReader', () => {
  test('messages within the hold merge into one generation, with who said what', async () => {
    post('Bobby', 'hello everyone, welcome in');
    await wait(50);
    post('Carol', 'hi there!');
    await wait(1000);
    expect(stage.submitted).toEqual([
      'Bobby said hello everyone, welcome in. Carol said hi there!',
    ]);
    expect(stage.played).toEqual(stage.submitted);
  });

  test('gg alone is read, made long enough naturally; the dictionary applies', async () => {
    post('Bobby', 'gg');
    await wait(1500);
    expect(stage.played).toEqual(['Here is what the chat says. Bobby said good game.']);
  });

  test('a message deleted during its hold costs no generation', async () => {
    const message = post('Bobby', 'oops, wrong channel, sorry all');
    await wait(500);
    await reader.deleted(GUILD, message.id);
    await wait(2000);
    expect(stage.submitted).toEqual([]);
    expect(reader.stats(GUILD).waiting).toBe(0);
  });

  test('a message deleted while its batch generates is never spoken; the rest is', async () => {
    stage.autoRelease = false;
    post('Bobby', 'this one stays in the chat');
    const bad = post('Carol', 'this one gets deleted by a mod');
    await wait(1100);
    expect(stage.pending.map((p) => p.text)).toEqual([
      'Bobby said this one stays in the chat. Carol said this one gets deleted by a mod.',
    ]);
    await reader.deleted(GUILD, bad.id);
    await wait(10);
    stage.autoRelease = true;
    for (const p of stage.pending.splice(0)) p.release();
    await wait(10);
    expect(stage.played).toEqual(['Bobby said this one stays in the chat.']);
    expect(stage.played.join()).not.toContain('deleted');
  });

  test('an edit before the turn is read in its latest form; after generation, the audio is made again', async () => {
    const first = post('Bobby', 'I think the answer is 41');
    await reader.edited({
      ...first,
      content: 'I think the answer is 42',
      message: { ...first.message, content: 'I think the answer is 42' },
    });
    await wait(1100);
    expect(stage.played).toEqual(['Bobby said I think the answer is 42.']);
  });

  test('paid messages: a blocked word still keeps one unread; past PAID_WAITING_MAX they are counted for /queue', async () => {
    guild.blockedWords = ['frack'];
    const paid = { paid: true, twitchChannel: 'chan' } as const;
    guild.reader.twitchChannels = ['chan'];
    post('Payer', 'a paid frack message', paid);
    for (let i = 0; i < PAID_WAITING_MAX + 7; i++) post(`Fan${i}`, `cheer number ${i}`, paid);
    await wait(0);
    expect(reader.stats(GUILD)).toMatchObject({
      blocked: 1,
      waiting: PAID_WAITING_MAX + 7,
      waitingPaid: PAID_WAITING_MAX,
      paidOverCap: 7,
    });
    await wait(1100);
    expect(stage.submitted.join(' ')).not.toContain('frack');
  });

  test('messages that could not be heard within max-age are dropped and counted', async () => {
    stage.inVoice = 'voice';
    guild.reader.maxAgeMs = 6000; // the forecast aims at 4.5 s
    stage.autoRelease = false;
    post('Bobby', 'first message of many in the chat');
    await wait(1100); // the first turn generates (held by the test); 3 s of speech
    // Taken by a second turn 1 s later, behind Bobby's 3 s, its own 3.5 s would end 7.7 s
    // after it was posted: dropped at once instead of being read late.
    post('Carol', 'this will be too old when its turn comes');
    await wait(1100);
    post('Dave', 'and this one too, sadly for Dave');
    await wait(10_000);
    for (const p of stage.pending.splice(0)) p.release();
    stage.autoRelease = true;
    await wait(100);
    expect(reader.stats(GUILD).droppedStale).toBe(2);
    // Its 3 s of speech already pass half of max-age: a busy chat, read in the compact form.
    expect(stage.played.join(' ')).toContain('Bobby, first message');
    expect(stage.played.join(' ')).not.toContain('Carol');
    expect(stage.played.join(' ')).not.toContain('Dave');
  });

  test('a backlog drains many messages per generation, in order per member', async () => {
    guild.reader.maxAgeMs = 120_000; // about a minute of speech: every message can be heard
    stage.autoRelease = false;
    for (let i = 0; i < 30; i++) {
      post(['Ann', 'Ben', 'Cat'][i % 3] ?? 'Ann', `message number ${i}`);
      await wait(100);
    }
    await wait(1000);
    while (stage.pending.length > 0) {
      for (const p of stage.pending.splice(0)) p.release();
      await wait(100);
    }
    const spoken = stage.played.join(' ');
    for (let i = 0; i < 30; i++) expect(spoken).toContain(`message number ${i}.`);
    expect(stage.submitted.length).toBeLessThan(10);
    const order = [...spoken.matchAll(/message number (\d+)/g)].map((m) => Number(m[1]));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  test('/stop (the queue cancelled) drops the backlog', async () => {
    stage.autoRelease = false;
    post('Bobby', 'first message in the chat here');
    await wait(1100);
    post('Carol', 'second message in the chat here');
    await wait(200);
    stage.stop();
    reader.clear(GUILD);
    for (const p of stage.pending.splice(0)) p.release();
    stage.autoRelease = true;
    await wait(3000);
    expect(stage.played).toEqual([]);
    expect(reader.stats(GUILD).waiting).toBe(0);
  });

  test('not in voice: nothing is read unless auto-join is on and the author is in voice', async () => {
    stage.inVoice = undefined;
    post('Bobby', 'nobody hears this message at all');
    await wait(2000);
    expect(stage.submitted).toEqual([]);
    guild.reader.autoJoin = true;
    post('Bobby', 'this one makes the bot join the channel');
    await wait(2000);
    expect(stage.played).toEqual(['Bobby said this one makes the bot join the channel.']);
  });

  test('the words around the chat follow the server’s locale, as it is when a message comes', async () => {
    let locale = 'de';
    reader = newReader(() => locale);
    post('Bobby', 'hallo zusammen, schön euch zu sehen');
    post('Carol', '', {
      message: { content: '', attachments: [{ name: 'a.png', contentType: null }], stickers: [] },
    });
    await wait(1100);
    post('Bobby', 'gg');
    await wait(1500);
    locale = 'ja';
    post('Carol', 'こんばんは https://example.com/x');
    await wait(1500);
    expect(stage.played).toEqual([
      'Bobby schreibt: hallo zusammen, schön euch zu sehen. Carol schickt ein Bild.',
      'Hier kommt, was im Chat steht. Bobby schreibt: good game.',
      'Carolさん：こんばんは example.comへのリンク。',
    ]);
  });
});

describe('ChatReader, a line read in its own language (v3)', () => {
  beforeEach(() => {
    reader = newReader(() => 'de');
    guild.blockedWords = ['darn'];
    guild.reader.blocked = 'bleep';
  });

  test.each([
    // A translation of the line's language: its glue, its bleep, its preface.
    [
      'en',
      'Anna said hello everyone, beep that was a close one.',
      'Here is what the chat says. Anna said beep ok.',
    ],
    [
      'es',
      'Anna dijo: hello everyone, pip that was a close one.',
      'Esto es lo que dice el chat. Anna dijo: pip ok.',
    ],
    // None (Italian): the name and the text, no German word a foreign voice would mangle.
    ['it', 'Anna: hello everyone, … that was a close one.', `${'…'.padEnd(27)} Anna: … ok.`],
    // The server's own language, and v2 (no language): the server's glue as before.
    [
      'de',
      'Anna schreibt: hello everyone, piep that was a close one.',
      'Hier kommt, was im Chat steht. Anna schreibt: piep ok.',
    ],
    [
      undefined,
      'Anna schreibt: hello everyone, piep that was a close one.',
      'Hier kommt, was im Chat steht. Anna schreibt: piep ok.',
    ],
  ])('a line in %s on a German server', async (language, long, short) => {
    stage.language = language;
    post('Anna', 'hello everyone, darn that was a close one');
    await wait(1500);
    post('Anna', 'darn ok', { authorId: 'anna-2' });
    await wait(1500);
    expect(stage.played).toEqual([long, short]);
  });
  test.each([
    [
      'en',
      'Anna cheered 100 bits: what a great play this was.',
      'Here is what the chat says. Anna cheered 1 bit.',
    ],
    ['it', 'Anna 100: what a great play this was.', `${'…'.padEnd(27)} Anna 1.`],
    [
      undefined,
      'Anna hat 100 Bits gecheert: what a great play this was.',
      'Hier kommt, was im Chat steht. Anna hat 1 Bit gecheert.',
    ],
  ])(
    'a cheer in %s on a German server says its bits in the line’s language',
    async (language, long, short) => {
      stage.language = language;
      post('Anna', 'what a great play this was', { action: true, cheer: 100 });
      await wait(1500);
      post('Anna', '', { authorId: 'anna-2', action: true, cheer: 1 });
      await wait(1500);
      expect(stage.played).toEqual([long, short]);
    },
  );
});

describe('ChatReader, an edit read in its line’s language (v3)', () => {
  beforeEach(() => {
    reader = newReader(() => 'de');
    guild.blockedWords = ['darn'];
    guild.reader.blocked = 'bleep';
  });

  test('an English line on a German server edited to a blocked word is bleeped in English', async () => {
    stage.language = 'en';
    const message = post('Anna', 'hello everyone, that was a close one');
    await wait(100);
    const content = 'hello everyone, darn that was a close one';
    await reader.edited({ ...message, content, message: { ...message.message, content } });
    await wait(1500);
    expect(stage.played).toEqual(['Anna said hello everyone, beep that was a close one.']);
  });

  test('a waiting edit whose language changed is read in the voice of its new language', async () => {
    stage.language = 'de';
    const message = post('Anna', 'hallo zusammen, das war knapp');
    await wait(100);
    stage.language = 'en';
    const content = 'hello everyone, darn that was a close one';
    await reader.edited({ ...message, content, message: { ...message.message, content } });
    post('Ben', 'and one more line in English', { authorId: 'ben' });
    await wait(1500);
    // One voice, one language: the edited line merges with the English one, with English glue.
    expect(stage.played).toEqual([
      'Anna said hello everyone, beep that was a close one. Ben said and one more line in English.',
    ]);
  });
});

describe('ChatReader, a line whose own language words trip the blocked words (v3)', () => {
  beforeEach(() => {
    reader = newReader(() => 'en');
    // "lien" is no word of the message: the French "un lien vers example.com" brings it.
    guild.blockedWords = ['lien'];
    guild.reader.blocked = 'skip';
  });

  test('a line skipped only in its own language is counted as skipped for a blocked word', async () => {
    stage.language = 'fr';
    post('Anna', 'regardez ça https://example.com/clip');
    await wait(1500);
    expect(stage.played).toEqual([]);
    expect(reader.stats(GUILD).blocked).toBe(1);
  });
});

describe('ChatReader, a quiet chat heard at once (issue 30)', () => {
  beforeEach(() => {
    reader = newReader(undefined, false);
  });

  test('each message of a quiet chat starts its generation as it comes, with no hold', async () => {
    post('Bobby', 'anyone around this evening?');
    await wait(0);
    expect(stage.submitted).toEqual(['Bobby said anyone around this evening?']);
    await wait(15_000);
    post('Carol', 'yes, just got here myself');
    await wait(0);
    expect(stage.submitted).toHaveLength(2);
  });

  test('a chat at a message every 1.5 s, each read before the next, is busy: the next is held', async () => {
    for (const [i, name] of ['Bobby', 'Carol', 'Dave'].entries()) {
      post(name, `a busy chat read as it comes, message ${i + 1}`);
      await wait(1500);
      expect(stage.played).toHaveLength(i + 1);
    }
    post('Erin', 'the fourth message waits to merge');
    await wait(0);
    expect(stage.submitted).toHaveLength(3);
    await wait(1000);
    expect(stage.submitted).toHaveLength(4);
  });

  test('once the chat is busy, a message waits out the hold and its neighbours merge', async () => {
    for (const [i, name] of ['Bobby', 'Carol', 'Dave'].entries()) {
      post(name, `warming up the chat, message ${i + 1}`);
      await wait(600);
    }
    const before = stage.submitted.length;
    post('Erin', 'first of two in a busy chat');
    await wait(100);
    post('Finn', 'second of two in a busy chat');
    await wait(0);
    expect(stage.submitted).toHaveLength(before);
    await wait(1000);
    expect(stage.submitted.slice(before)).toEqual([
      'Erin said first of two in a busy chat. Finn said second of two in a busy chat.',
    ]);
  });
});

describe('ChatReader, edits after the audio was made', () => {
  test('an edit while its batch waits to play makes the audio again; the old text is never played', async () => {
    stage.autoRelease = false;
    post('Bobby', 'first batch is playing right now');
    await wait(1100);
    const second = post('Carol', 'the score is three to one');
    await wait(1100);
    expect(stage.pending.map((p) => p.text)).toHaveLength(2);
    stage.pending.splice(1, 1)[0]?.release(); // Carol's batch is ready, behind Bobby's
    await wait(10);
    await reader.edited({
      ...second,
      content: 'the score is three to two',
      message: { ...second.message, content: 'the score is three to two' },
    });
    stage.autoRelease = true;
    stage.pending.splice(0, 1)[0]?.release();
    await wait(100);
    expect(stage.played).toEqual([
      'Bobby said first batch is playing right now.',
      'Carol said the score is three to two.',
    ]);
    expect(stage.submitted).toContain('Carol said the score is three to one.');
  });
});

describe('ChatReader, what edits may cost (issue 22)', () => {
  const edit = (message: IncomingMessage, content: string) =>
    reader.edited({ ...message, content, message: { ...message.message, content } });

  test('after its generation started, a message is read once more at most: later edits change nothing', async () => {
    stage.autoRelease = false;
    const message = post('Bobby', 'the boss is at 900 hp now');
    await wait(1100);
    expect(stage.pending.map((p) => p.text)).toEqual(['Bobby said the boss is at 900 hp now.']);
    for (const hp of [800, 700, 600, 500]) {
      await edit(message, `the boss is at ${hp} hp now`);
      await wait(10);
    }
    // Two generations asked for: the first (aborted by the first edit), and its one re-read.
    expect(stage.pending.map((p) => p.text)).toEqual([
      'Bobby said the boss is at 900 hp now.',
      'Bobby said the boss is at 800 hp now.',
    ]);
    stage.autoRelease = true;
    for (const p of stage.pending.splice(0)) p.release();
    await wait(100);
    expect(stage.played).toEqual(['Bobby said the boss is at 800 hp now.']);
  });

  test('an edit later than max-age after the message was posted is not read again', async () => {
    guild.reader.maxAgeMs = 20_000;
    stage.autoRelease = false;
    const message = post('Bobby', 'an old message that waits long');
    await wait(1100);
    expect(stage.pending).toHaveLength(1); // its generation takes long
    await wait(20_000);
    await edit(message, 'an old message, edited too late');
    stage.autoRelease = true;
    for (const p of stage.pending.splice(0)) p.release();
    await wait(100);
    expect(stage.played).toEqual(['Bobby said an old message that waits long.']);
    expect(stage.submitted.join()).not.toContain('too late');
  });
});

describe('ChatReader, updates that change nothing', () => {
  test('an update with the same text (a link preview arriving) does not make the audio again', async () => {
    stage.autoRelease = false;
    const message = post('Bobby', 'look at https://example.org/clip please');
    await wait(1100);
    await reader.edited(message);
    stage.autoRelease = true;
    for (const p of stage.pending.splice(0)) p.release();
    await wait(100);
    expect(stage.submitted).toEqual(['Bobby said look at a link to example.org please.']);
    expect(stage.played).toEqual(stage.submitted);
  });
});

describe('ChatReader, edits pass the same filters as new messages', () => {
  /** The message edited to `content`, as Discord sends it. */
  const edit = (message: IncomingMessage, content: string, change: Partial<IncomingMessage> = {}) =>
    reader.edited({ ...message, content, message: { ...message.message, content }, ...change });

  test('an edit that adds an ignored prefix drops the waiting message', async () => {
    const message = post('Bobby', 'play the best song ever please');
    post('Carol', 'and I say hello to everyone');
    await wait(100);
    await edit(message, '!play the best song ever');
    await wait(1500);
    expect(stage.played).toEqual(['Carol said and I say hello to everyone.']);
  });

  test('an edit that adds an ignored prefix while its batch generates takes it out', async () => {
    stage.autoRelease = false;
    post('Bobby', 'this one stays in the chat');
    const command = post('Carol', 'skip this song, it is boring');
    await wait(1100);
    await edit(command, '!skip');
    await wait(10);
    stage.autoRelease = true;
    for (const p of stage.pending.splice(0)) p.release();
    await wait(100);
    expect(stage.played).toEqual(['Bobby said this one stays in the chat.']);
  });

  test('an edit by a member ignored since they posted is not read', async () => {
    const message = post('Bobby', 'something rude I will edit later');
    await wait(100);
    guild.reader.ignoredMembers = ['bobby'];
    await edit(message, 'something even ruder than before');
    await wait(1500);
    expect(stage.submitted).toEqual([]);
  });

  test('an edit in a channel that is not read is neither read nor cleaned', async () => {
    let looked = 0;
    const names = {
      user: () => `name ${++looked}`,
      role: () => undefined,
      channel: () => undefined,
    };
    const message = post('Bobby', 'hello <@1>, nobody reads this channel', {
      channelId: 'elsewhere',
      names,
    });
    await wait(100);
    await edit(message, 'hello <@1>, still nobody reads it', { channelId: 'elsewhere', names });
    await wait(1500);
    expect(stage.submitted).toEqual([]);
    expect(looked).toBe(0);
  });
});

describe('ChatReader, edits pass the same blocked-word screen as new messages', () => {
  /** The message edited to `content`, as Discord sends it. */
  const edit = (message: IncomingMessage, content: string) =>
    reader.edited({ ...message, content, message: { ...message.message, content } });

  /** "d", "a", "r" by Bobby, each read in a turn of its own; then a fourth, left waiting. */
  async function spellThenPost(fourth: string): Promise<IncomingMessage> {
    for (const letter of ['d', 'a', 'r']) {
      post('Bobby', letter);
      await wait(1500);
    }
    expect(stage.played).toHaveLength(3);
    const message = post('Bobby', fourth);
    await wait(100);
    return message;
  }

  beforeEach(() => {
    guild.blockedWords = ['darn'];
    guild.reader.blocked = 'skip';
  });

  test('a word spelled over three messages and a waiting fourth edited to complete it is not read', async () => {
    const fourth = await spellThenPost('x');
    await edit(fourth, 'n');
    await wait(1500);
    expect(stage.played).toHaveLength(3);
    expect(reader.stats(GUILD)).toMatchObject({ blocked: 1, waiting: 0 });
    // The edit that was not read is no part of what Bobby said: "n" completes the word again.
    post('Bobby', 'n');
    await wait(1500);
    expect(stage.played).toHaveLength(3);
    expect(reader.stats(GUILD).blocked).toBe(2);
  });

  test('after /config forget the authors’ recent text is gone: the letter that completed the word is read', async () => {
    for (const letter of ['d', 'a', 'r']) {
      post('Bobby', letter);
      await wait(1500);
    }
    expect(stage.played).toHaveLength(3);
    reader.forget(GUILD);
    post('Bobby', 'n');
    await wait(1500);
    expect(stage.played).toHaveLength(4);
    expect(reader.stats(GUILD).blocked).toBe(0);
  });

  test('an innocent edit is read, and the edited text is what the next message is screened after', async () => {
    post('Bobby', 'd');
    await wait(1500);
    post('Bobby', 'a');
    await wait(1500);
    const third = post('Bobby', 'x');
    await wait(100);
    await edit(third, 'r');
    await wait(1500);
    expect(stage.played.at(-1)).toBe('Here is what the chat says. Bobby said r.');
    expect(reader.stats(GUILD).blocked).toBe(0);
    // "d a r", not "d a x": the "n" that follows completes the word.
    post('Bobby', 'n');
    await wait(1500);
    expect(stage.played).toHaveLength(3);
    expect(reader.stats(GUILD).blocked).toBe(1);
  });

  test('bleep: the letter that completes the word in an edit is bleeped, the rest read', async () => {
    guild.reader.blocked = 'bleep';
    const fourth = await spellThenPost('x');
    await edit(fourth, 'n');
    await wait(1500);
    expect(stage.played.at(-1)).toBe('Here is what the chat says. Bobby said beep.');
  });

  test('an edit of an older waiting message that completes the word with a later one is not read', async () => {
    post('Bobby', 'd');
    await wait(1500);
    post('Bobby', 'a');
    await wait(1500);
    const third = post('Bobby', 'x');
    post('Bobby', 'n');
    await wait(100);
    await edit(third, 'r');
    await wait(1500);
    expect(stage.played.join(' ')).not.toMatch(/\br\b/);
    expect(reader.stats(GUILD).blocked).toBe(1);
  });

  test('an edit that completes the word in a message a turn already took takes it out of the turn', async () => {
    for (const letter of ['d', 'a', 'r']) {
      post('Bobby', letter);
      await wait(1500);
    }
    stage.autoRelease = false;
    post('Carol', 'this one stays in the chat');
    const fourth = post('Bobby', 'x');
    await wait(1100);
    expect(stage.pending.map((p) => p.text)).toEqual([
      'Carol said this one stays in the chat. Bobby said x.',
    ]);
    await edit(fourth, 'n');
    stage.autoRelease = true;
    for (const p of stage.pending.splice(0)) p.release();
    await wait(100);
    expect(stage.played.at(-1)).toBe('Carol said this one stays in the chat.');
    expect(reader.stats(GUILD).blocked).toBe(1);
  });

  test('an edit that makes a waiting paid or forwarded message blocked drops it', async () => {
    guild.reader.twitchChannels = ['chan'];
    const paid = post('Carol', 'a paid message, all clean', { paid: true, twitchChannel: 'chan' });
    const content = (text: string) => ({ content: text, attachments: [], stickers: [] });
    const forwarded = post('Dave', '', {
      message: { ...content(''), forwarded: content('a clean forward') },
    });
    await wait(100);
    expect(reader.stats(GUILD)).toMatchObject({ waiting: 2, waitingPaid: 1 });
    await reader.edited({
      ...forwarded,
      message: { ...forwarded.message, forwarded: content('a darn forward') },
    });
    await edit(paid, 'a paid darn message');
    expect(reader.stats(GUILD)).toMatchObject({ waiting: 0, waitingPaid: 0, blocked: 2 });
    await wait(1500);
    expect(stage.submitted).toEqual([]);
  });
});

describe('ChatReader pacing', () => {
  test('with the minute’s budget used up, the next turn waits for the window and merges what came meanwhile', async () => {
    const minute = { count: 20, windowMs: 60_000 };
    stage.usages = [{ limit: minute, used: 20, resetAt: clock.now() + 10_000 }];
    post('Ann', 'first message while the budget is spent');
    await wait(3000);
    post('Ben', 'second message while the budget is spent');
    await wait(3000);
    expect(stage.submitted).toEqual([]);
    stage.usages = [{ limit: minute, used: 19, resetAt: clock.now() + 50_000 }];
    await wait(4100);
    expect(stage.submitted).toEqual([
      'Ann said first message while the budget is spent. Ben said second message while the budget is spent.',
    ]);
  });
});

describe('ChatReader, messages the speaking path refuses', () => {
  /** A reader whose voices come from `voiceOf`, logging warnings and errors into the lines returned. */
  function refusingReader(voiceOf: ChatSpeaking['voiceOf']) {
    const lines: { msg: string; level: number }[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    reader = new ChatReader({
      settings: { guild: async () => guild },
      members,
      speaking: {
        channelOf: () => stage.inVoice,
        voiceOf,
        queue: (turn) => stage.queueTurn(turn),
        skip: () => stage.skip(),
        join: () => stage.join(),
      },
      clock,
      logger,
      minTextLength: 30,
    });
    return lines;
  }

  test('each is counted for /queue; the warning is logged once per server and reason every ten minutes', async () => {
    const lines = refusingReader(async (_, member) => {
      if (member.id === 'capped')
        throw userRefusal('member_daily_limit', { share: 5, freesAt: clock.now() + 1 });
      throw new UserError('no_voices', { model: 'base' });
    });
    const warnings = () => lines.filter((line) => line.msg === 'cannot read chat').length;
    for (let i = 0; i < 3; i++) {
      post('Capped', `message number ${i} from a capped chatter`);
      post('Other', `message number ${i} from another chatter`);
      await wait(10);
    }
    expect(reader.stats(GUILD).refused).toBe(6);
    // Two reasons, each logged once, however the chatters alternate.
    expect(warnings()).toBe(2);
    await wait(600_000);
    post('Capped', 'a message ten minutes later from the capped chatter');
    await wait(10);
    expect(warnings()).toBe(3);
    expect(reader.stats(GUILD).refused).toBe(7);
    expect(stage.submitted).toEqual([]);
  });

  test('turns the final screen refuses (blocked: skip) count their messages as skipped for a blocked word, with no warning', async () => {
    const lines = refusingReader(async () => ({
      ...(await stage.voiceOf()),
      generate: async () => {
        throw new UserError('say_blocked', {});
      },
    }));
    post('Bobby', 'the first line of a turn to refuse');
    post('Bobby', 'the second line, in the same turn or the next');
    post('Carol', 'and a third line from another chatter');
    await wait(5_000);
    expect(reader.stats(GUILD).blocked).toBe(3);
    expect(lines.filter((line) => line.msg === 'reading chat failed')).toEqual([]);
    expect(stage.submitted).toEqual([]);
  });

  test('a failure that is no refusal (the API away) is not counted as one, and logged as an error', async () => {
    const lines = refusingReader(async () => {
      throw new Error('connect ECONNREFUSED');
    });
    post('Other', 'a message while the voice list cannot be fetched');
    post('Other', 'and another one while it is still away');
    await wait(10);
    expect(reader.stats(GUILD).refused).toBe(0);
    expect(lines.map((line) => line.level)).toEqual([50]);
  });
});

describe("members' own settings", () => {
  test('a member who opted out is not read, nor their edits; after opting in they are', async () => {
    const held = post('Bobby', 'a message read before opting out');
    await wait(0);
    await members.update(GUILD, 'bobby', () => ({ read: false }));
    await reader.edited({
      ...held,
      content: 'edited after opting out',
      message: { ...held.message, content: 'edited after opting out' },
    });
    post('Bobby', 'a message while opted out');
    post('Carol', 'carol is still read as before');
    await wait(1100);
    expect(stage.submitted).toEqual(['Carol said carol is still read as before.']);
    await members.update(GUILD, 'bobby', (s) => ({ ...s, read: true }));
    post('Bobby', 'back in the chat after opting in');
    await wait(1100);
    expect(stage.submitted.at(-1)).toBe('Bobby said back in the chat after opting in.');
  });

  test('a spoken name is said instead of the nickname, cleaned and screened like one', async () => {
    await members.update(GUILD, 'bobby', () => ({ name: 'Rob <@123> @everyone' }));
    post('Bobby', 'hello from the spoken name');
    await wait(1100);
    expect(stage.submitted).toEqual(['Rob 123 everyone said hello from the spoken name.']);
    guild.blockedWords = ['darn'];
    guild.reader.blocked = 'skip';
    await members.update(GUILD, 'carol', () => ({ name: 'Darn Carol' }));
    post('Carol', 'a message under a blocked spoken name');
    await wait(1100);
    expect(stage.submitted.join(' ')).not.toMatch(/darn/i);
    expect(reader.stats(GUILD).blocked).toBe(1);
  });

  test("a Twitch chatter is no Discord member: a member's settings under the same id do not apply", async () => {
    guild.reader.twitchChannels = ['chan'];
    await members.update(GUILD, 'viewer', () => ({ read: false, name: 'Someone Else' }));
    post('Viewer', 'a chatter on twitch says hi', { twitchChannel: 'chan' });
    await wait(1100);
    expect(stage.submitted).toEqual(['Viewer said a chatter on twitch says hi.']);
  });
});
