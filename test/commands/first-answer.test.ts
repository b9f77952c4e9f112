/**
 * Discord gives an interaction 3 s for its first answer. With a store whose every operation is
 * slow (Redis under load), each command and component still answers (defers) before any store
 * operation completes, and a refusal found after a public defer still reaches the member alone.
 * Asserted on the order of events, never on time: a command that waited on any store operation
 * before its first answer fails whatever the delay, which only has to be well above the bot's own
 * time to answer (milliseconds). 2 s rather than Discord's 3 s or more, since the commands then
 * finish through chains of such operations (40 s of the file's 56 s at 4 s).
 */
import type Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import type { InteractionHandle } from '../fake-discord/handle.ts';
import type { MessageJson } from '../fake-discord/types.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { eventually } from '../voice/support.ts';

const EPHEMERAL = 64;
const STORE_DELAY_MS = 2000;
const WAIT_MS = 40_000;
const OPERATIONS = ['get', 'getMany', 'set', 'setMany', 'delete', 'deleteMany', 'has'];

/**
 * Makes every operation of the bot's store adapter wait `delayMs` first, and logs each one as it
 * completes; `inFlight` counts those under way. Undone by `restore`.
 */
function slowStore(keyv: Keyv, delayMs: number, log: string[]) {
  const adapter = keyv.store as Record<string, unknown>;
  const originals = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  const state = {
    inFlight: 0,
    restore: () => {
      for (const [name, original] of originals) adapter[name] = original;
    },
  };
  for (const name of OPERATIONS) {
    const original = adapter[name];
    if (typeof original !== 'function') continue;
    originals.set(name, original as (...args: unknown[]) => Promise<unknown>);
    adapter[name] = async (...args: unknown[]) => {
      state.inFlight++;
      try {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return await original.apply(adapter, args);
      } finally {
        state.inFlight--;
        log.push(`store ${name} ${String(args[0])}`);
      }
    };
  }
  return state;
}

let t: TestBot;
let store: ReturnType<typeof slowStore>;
let log: string[];
/** A `/voices` list of more than one page, posted before the store slowed down. */
let list: MessageJson;

beforeAll(async () => {
  t = await startTestBot();
  await t.configureKey(USER_ONE.apiKey);
  const voices = t.discord.slash({ user: 'member', name: 'voices' });
  list = await voices.waitForReply(10_000);
  log = [];
  store = slowStore(t.bot.store, STORE_DELAY_MS, log);
}, 60_000);
afterAll(async () => {
  store?.restore();
  await t?.stop();
});

/** Starts the interactions at once, with nothing of the store under way; logs each first answer. */
async function launch(
  starts: Record<string, () => InteractionHandle | Promise<unknown>>,
): Promise<Record<string, InteractionHandle>> {
  await eventually('the store is idle', () => store.inFlight === 0, WAIT_MS);
  log.length = 0;
  const handles: Record<string, InteractionHandle> = {};
  const answered: Promise<unknown>[] = [];
  for (const [name, start] of Object.entries(starts)) {
    const started = start();
    const first =
      started instanceof Promise
        ? started
        : started.waitFor((event) => event.kind === 'callback', WAIT_MS);
    if (!(started instanceof Promise)) handles[name] = started;
    answered.push(first.then(() => log.push(`answered ${name}`)));
  }
  await Promise.all(answered);
  return handles;
}

/** Every interaction answered before the first store operation completed. */
function expectAnsweredFirst(names: string[]): void {
  const firstStore = log.findIndex((entry) => entry.startsWith('store '));
  const shown = log.join('\n');
  for (const name of names) {
    const at = log.indexOf(`answered ${name}`);
    expect(at, shown).toBeGreaterThanOrEqual(0);
    if (firstStore >= 0) expect(at, shown).toBeLessThan(firstStore);
  }
}

const finished = (handle: InteractionHandle | undefined) =>
  (handle ?? fail('no handle')).waitFor(
    (event) => event.kind === 'edit' || event.kind === 'followUp',
    WAIT_MS,
  );

function fail(message: string): never {
  throw new Error(message);
}

describe('with a store that takes 2 s per operation', () => {
  test('every command and component answers before the store does, then finishes', async () => {
    const h = await launch({
      voices: () => t.discord.slash({ user: 'member', name: 'voices', options: { model: 'base' } }),
      'voices next': () =>
        t.discord.clickButton({ user: 'member', message: list, customId: 'voices:base:1::' }),
      'voices menu': () =>
        t.discord.clickButton({
          user: 'admin',
          message: list,
          customId: 'voices:preview:base',
          values: ['af_3kbq21leo'],
        }),
      'myvoice set': () =>
        t.discord.slash({ user: 'member', name: 'myvoice', options: { voice: 'af_3kbq21leo' } }),
      'myvoice show': () => t.discord.slash({ user: 'admin', name: 'myvoice' }),
      'myvoice autocomplete': () =>
        t.discord.autocomplete(
          { user: 'member', name: 'myvoice', options: { voice: 'li' }, focused: 'voice' },
          WAIT_MS,
        ),
      'config autocomplete': () =>
        t.discord.autocomplete(
          {
            user: 'admin',
            name: 'config',
            subcommand: 'defaults',
            options: { voice: 'li' },
            focused: 'voice',
          },
          WAIT_MS,
        ),
      usage: () => t.discord.slash({ user: 'member', name: 'usage' }),
      preview: () =>
        t.discord.slash({ user: 'member', name: 'preview', options: { voice: 'am_2riuownnf' } }),
      queue: () => t.discord.slash({ user: 'member', name: 'queue' }),
      'config reader': () =>
        t.discord.slash({ user: 'admin', name: 'config', subcommand: 'reader' }),
      'config show': () => t.discord.slash({ user: 'admin', name: 'config', subcommand: 'show' }),
      say: () =>
        t.discord.slash({
          user: 'member',
          name: 'say',
          options: { text: 'Hello there, this is a test sentence.', output: 'file' },
        }),
    });
    expectAnsweredFirst(Object.keys(h));
    expectAnsweredFirst(['myvoice autocomplete', 'config autocomplete']);
    // And each then finishes its work: the answers are the real ones, not just early.
    const voices = await finished(h.voices);
    expect(JSON.stringify(voices)).toContain('Voices for the base model');
    const next = await finished(h['voices next']);
    expect(JSON.stringify(next)).toContain('Page 2');
    expect(h['voices next']?.callback()?.type).toBe(6);
    await finished(h['voices menu']);
    expect(h['voices menu']?.files()).toHaveLength(1);
    expect((await h['myvoice set']?.waitForReply(WAIT_MS))?.content).toContain(
      'Your default voice is now',
    );
    for (const name of ['myvoice set', 'myvoice show', 'usage', 'preview', 'queue']) {
      const reply = await h[name]?.waitForReply(WAIT_MS);
      expect((reply?.flags ?? 0) & EPHEMERAL, name).toBe(EPHEMERAL);
      expect(Boolean(reply?.content) || (reply?.embeds?.length ?? 0) > 0, name).toBe(true);
    }
    expect((await h['config reader']?.waitForReply(WAIT_MS))?.content).toContain('Reader settings');
    await h.say?.waitFor((event) => event.kind === 'edit' && event.files.length > 0, WAIT_MS);
  }, 120_000);

  test('without a key, each refusal after an early answer reaches the member alone', async () => {
    const removal = await launch({
      'config remove-api-key': () =>
        t.discord.slash({ user: 'admin', name: 'config', subcommand: 'remove-api-key' }),
    });
    expectAnsweredFirst(['config remove-api-key']);
    expect((await removal['config remove-api-key']?.waitForReply(WAIT_MS))?.content).toContain(
      'removed',
    );
    // The list shows its second page now (clicked above): its button back is the one enabled.
    const shownList = t.discord.message(list.id) ?? fail('the list is gone');
    const h = await launch({
      voices: () => t.discord.slash({ user: 'member', name: 'voices' }),
      'voices previous': () =>
        t.discord.clickButton({ user: 'member', message: list, customId: 'voices:base:0::' }),
      'voices menu': () =>
        t.discord.clickButton({
          user: 'member',
          message: list,
          customId: 'voices:preview:base',
          values: ['af_3kbq21leo'],
        }),
      myvoice: () =>
        t.discord.slash({ user: 'member', name: 'myvoice', options: { voice: 'af_3kbq21leo' } }),
      usage: () => t.discord.slash({ user: 'member', name: 'usage' }),
      preview: () =>
        t.discord.slash({ user: 'member', name: 'preview', options: { voice: 'af_3kbq21leo' } }),
    });
    expectAnsweredFirst(Object.keys(h));
    for (const [name, handle] of Object.entries(h)) {
      await handle.waitFor(
        (event) => event.kind === 'followUp' || (event.kind === 'edit' && event.original),
        WAIT_MS,
      );
      // The refusal is in a private message; nothing public carries it.
      const shown = [handle.lastMessage(), ...handle.followUps()].filter(
        (message) => message?.content?.includes('Ask a server admin') === true,
      );
      expect(shown, name).toHaveLength(1);
      expect((shown[0]?.flags ?? 0) & EPHEMERAL, name).toBe(EPHEMERAL);
    }
    // The public /voices reply was withdrawn; the clicked list is left as everyone saw it.
    await h.voices?.waitFor((event) => event.kind === 'delete', WAIT_MS);
    expect(h.voices?.lastMessage()).toBeUndefined();
    expect(t.discord.message(list.id)).toEqual(shownList);
  }, 120_000);
});
