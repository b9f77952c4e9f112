/**
 * The daily budget through the speaking service on v3 (the real client against the emulator):
 * concurrent `/say` cannot both take the last of it, and a request resumed after a restart, or
 * audio the cache served made again because its address is gone, is held against it like any
 * other.
 */
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { PreviewCache } from '../../src/preview/index.ts';
import { SpeakingService } from '../../src/speaking/index.ts';
import { KeyvSettingsStore, KeyvSpeechCacheStore, KeyvUsageLedger } from '../../src/store/index.ts';
import { billedChars, billedTokens, SpeechCache, systemClock } from '../../src/tts/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { sentence } from '../tts/emulated.ts';
import { v3ClientsFor, withEmulator } from '../tts/v3-emulated.ts';
import { newGuildId, quietLogger } from '../voice/support.ts';

/** 10 micro-dollars a token: a 40-character text (10 tokens) costs 100. */
const emu = withEmulator({ usdPerToken: 0.00001 });

async function setup(budgetMicros: number, cached = false) {
  const guildId = newGuildId();
  const settings = new KeyvSettingsStore(new Keyv());
  await settings.updateGuild(guildId, (current) => ({
    ...current,
    limits: { ...current.limits, dailyBudgetMicros: budgetMicros },
  }));
  const usage = new KeyvUsageLedger(new Keyv());
  const cache = new SpeechCache({
    store: new KeyvSpeechCacheStore(new Keyv()),
    ttlMs: 3_600_000,
    clock: systemClock,
    onError: (error) => {
      throw error;
    },
  });
  const { clients } = v3ClientsFor(emu(), { streaming: false, ...(cached ? { cache } : {}) });
  const speaking = new SpeakingService({
    settings,
    apiKeyOf: async (id) => (id === guildId ? USER_ONE.apiKey : undefined),
    tts: clients,
    voice: {
      channelOf: () => undefined,
      speak: () => {
        throw new Error('nothing here is spoken in voice');
      },
    },
    usage,
    previews: new PreviewCache(new Keyv()),
    dailyLimit: undefined,
    clock: systemClock,
    logger: quietLogger,
    minTextLength: 1,
  });
  const client = clients.forKey(USER_ONE.apiKey);
  return { guildId, speaking, usage, client };
}

const posts = () => emu().counts()['POST /v3/tts']?.total ?? 0;
const text = sentence(40);
const request = { text, voiceId: 'am_2riuownnf', model: 'base' } as const;

describe('the daily budget through the speaking service (v3)', () => {
  test('concurrent /say: only as many as fit are held; the rest are refused', async () => {
    const cost = billedTokens(billedChars(text)) * 10;
    const { guildId, speaking, client } = await setup(3 * cost);
    await client.generate(request); // the key's price is now known
    const say = async (i: number) =>
      speaking.chooseVoice(
        await speaking.prepare({
          guildId,
          requester: { id: `m${i}`, name: 'M', canManage: i === 0 },
          text,
          output: 'file',
        }),
      );
    const outcomes = await Promise.allSettled([0, 1, 2, 3, 4, 5].map(say));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    for (const refused of outcomes.filter((o) => o.status === 'rejected'))
      expect(refused.reason).toMatchObject({ id: 'daily_budget_held' });
  });

  test('a request resumed after a restart is refused once the budget is spent, before any submit', async () => {
    const { guildId, speaking, usage } = await setup(250);
    await usage.record(guildId, 'm', Date.now(), { tokens: 25, micros: 250 });
    const before = posts();
    await expect(
      speaking.resubmit({ guildId, requesterId: 'm', request }, {}),
    ).rejects.toMatchObject({ id: 'daily_budget' });
    expect(posts()).toBe(before);
  });

  test('a resumed request is held and billed once; the hold goes with the bill', async () => {
    const { guildId, speaking, usage } = await setup(1_000_000);
    await speaking.resubmit({ guildId, requesterId: 'm', request }, {});
    const spent = usage.spentToday(guildId, Date.now());
    expect(spent?.tokens).toBe(billedTokens(billedChars(text)));
    expect(await speaking.budgetSpent(guildId)).toBeUndefined();
  });

  describe('audio the cache served, gone at the vendor (404), made again', () => {
    const chat = { authors: ['m'], signal: new AbortController().signal };
    const tokens = billedTokens(billedChars(text));

    /** A chat voice whose second line of `text` came from the cache; the ledger has the first. */
    async function servedFromCache(budgetMicros: number) {
      const world = await setup(budgetMicros, true);
      const voice = await world.speaking.chatVoice(world.guildId, { id: 'm', name: 'M' }, text);
      await voice.generate(text, chat);
      const submits = posts();
      const audioUrl = await voice.generate(text, chat);
      expect(posts()).toBe(submits);
      expect(world.usage.spentToday(world.guildId, Date.now())?.tokens).toBe(tokens);
      return { ...world, voice, audioUrl };
    }

    test('is billed in the ledger as any generation', async () => {
      const { guildId, usage, voice, audioUrl } = await servedFromCache(1_000_000);
      emu().fault({ kind: 'media-404' });
      const before = posts();
      const { stream } = await voice.open(audioUrl, chat.signal);
      await stream.toArray();
      expect(posts()).toBe(before + 1);
      expect(usage.spentToday(guildId, Date.now())?.tokens).toBe(2 * tokens);
    });

    test('is held against the budget: refused, never submitted, once the budget is spent meanwhile', async () => {
      const cost = tokens * 10;
      const { guildId, usage, voice, audioUrl } = await servedFromCache(2.5 * cost);
      // Spent elsewhere meanwhile: what is left cannot pay for the audio again.
      await usage.record(guildId, 'other', Date.now(), { tokens, micros: cost });
      emu().fault({ kind: 'media-404' });
      const before = posts();
      await expect(voice.open(audioUrl, chat.signal)).rejects.toMatchObject({
        id: 'daily_budget_left',
      });
      expect(posts()).toBe(before);
    });
  });
});
