/**
 * A server's stored data made the way members make it (through the real commands against the
 * fake Discord and the emulator), and the store read back, for the forgetting tests.
 */
import type Keyv from 'keyv';
import { keysUnder } from '../../src/store/index.ts';
import { keyId } from '../../src/tts/index.ts';
import type { GuildIds } from '../fake-discord/index.ts';
import type { TestBot } from './bot-harness.ts';

/**
 * Gives `guild` an API key, a read channel, a dictionary entry, a member's own settings (not
 * read, a spoken name), a generation (a usage day and, with `TTS_CACHE_TTL` on, cached speech)
 * and a voice sample.
 */
export async function populateServer(t: TestBot, guild: GuildIds, apiKey: string): Promise<void> {
  const at = { channelId: guild.textChannelId };
  const key = await t.discord
    .slash({ user: 'admin', name: 'config', subcommand: 'api-key', ...at })
    .submitModal({ 'api-key': apiKey });
  await key.waitFor((event) => event.kind === 'edit');
  const config = (subcommand: string, options: Record<string, string>) =>
    t.discord.slash({ user: 'admin', name: 'config', subcommand, options, ...at }).waitForReply();
  await config('read-channel add', { channel: guild.textChannelId });
  await config('dictionary add', { word: 'gg', replacement: 'good game' });
  await t.discord
    .slash({ user: 'member', name: 'myvoice', options: { read: false, name: 'Mem' }, ...at })
    .waitForReply();
  const say = t.discord.slash({
    user: 'member',
    name: 'say',
    options: { text: `Hello from ${guild.name}, a sentence long enough to speak.` },
    ...at,
  });
  await say.waitFor(
    (event) => event.kind === 'edit' && JSON.stringify(event).includes('.wav'),
    20_000,
  );
  await t.discord
    .slash({ user: 'member', name: 'preview', options: { voice: 'af_3kbq21leo' }, ...at })
    .waitForReply(20_000);
}

/** Every record of the store with its value. */
export async function storeSnapshot(keyv: Keyv): Promise<Map<string, unknown>> {
  const all = new Map<string, unknown>();
  for (const key of (await keysUnder(keyv, '')).sort()) all.set(key, await keyv.get(key));
  return all;
}

/** The keys of `snapshot` that belong to the server (its id, or its key's id). */
export function recordsOf(
  snapshot: Map<string, unknown>,
  guildId: string,
  apiKey: string,
): string[] {
  const id = keyId(apiKey);
  return [...snapshot.keys()].filter(
    (key) =>
      key === `guild:${guildId}` ||
      key.startsWith(`member:${guildId}:`) ||
      key.startsWith(`usage:${guildId}:`) ||
      key.startsWith(`preview:${id}:`) ||
      key.startsWith(`speech:${id}:`),
  );
}
