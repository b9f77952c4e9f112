/**
 * The tour's streamer-mode step: the admin makes #chat a read channel, members post a few
 * messages there, and the bot, already in voice, reads them aloud. The transcript shows what
 * was posted and what was spoken, so the cleanup (nicknames, links, emoji) is visible.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Emulator } from '../emulator/index.ts';
import { wavDurationMs } from '../emulator/index.ts';
import type { LocalStack, LocalStackOptions } from '../local-stack/index.ts';
import type { Transcript } from './transcript.ts';
import { decodeToWav } from './wav.ts';

/** Nicknames on the demo server; the bot reads members by the name the server shows. */
const NICKNAMES: Readonly<Record<string, string>> = { bobby: 'Bobby the Great' };

/** The fake server the tour plays in: #general, #chat and the voice channel; two more members. */
export const DEMO_DISCORD: NonNullable<LocalStackOptions['discord']> = {
  extraUsers: ['bobby', 'carol'],
  guilds: [{ textChannels: ['general', 'chat'], nicknames: { ...NICKNAMES } }],
};

/** One message the tour posts in #chat, and a phrase its spoken form must contain. */
export interface ChatPost {
  readonly user: string;
  readonly content: string;
  readonly heard: string;
}

/** What members post: an emoji, a link in bold, a custom emoji, with authors interleaved. */
export const CHAT_POSTS: readonly ChatPost[] = [
  { user: 'bobby', content: 'GG, the boss is finally down 🔥', heard: 'the boss is finally down' },
  {
    user: 'carol',
    content: '**clip it!** https://clips.twitch.tv/AwkwardHelplessSalamander',
    heard: 'a link to clips.twitch.tv',
  },
  {
    user: 'bobby',
    content: 'see you all tomorrow <:pog:123456789012345678>',
    heard: 'see you all tomorrow',
  },
];

/** What the chat step produced. */
export interface ChatStepResult {
  /** Texts of the generations the bot spoke for the chat, in the order it fetched them. */
  readonly spoken: readonly string[];
  /** The voice audio received while the chat was read, decoded. */
  readonly wav: string;
  /** Milliseconds of audio the fake voice server received and decoded. */
  readonly ms: number;
}

/** The phrases none of `texts` contains yet (ignoring case): what is still to be heard. */
export function unheard(phrases: readonly string[], texts: readonly string[]): string[] {
  const all = texts.join('\n').toLowerCase();
  return phrases.filter((phrase) => !all.includes(phrase.toLowerCase()));
}

/** Generation ids whose audio was fetched from the emulator's media server, each once, in order. */
export function fetchedGenerations(emulator: Pick<Emulator, 'requests'>): string[] {
  const ids = emulator.requests
    .filter((entry) => entry.endpoint === 'GET /audio')
    .map((entry) => /\/audio\/([^/.?]+)/.exec(entry.path)?.[1])
    .filter((id): id is string => id !== undefined);
  return [...new Set(ids)];
}

/** Plays the step with the bot in voice; throws when the chat is not heard within `timeoutMs`. */
export async function runChatStep(
  stack: LocalStack,
  outDir: string,
  out: Transcript,
  timeoutMs: number,
): Promise<ChatStepResult> {
  const { discord, emulator, voiceServer } = stack;
  const guildId = discord.guild.id;
  const chat = discord.guild.channels.chat;
  if (chat === undefined) throw new Error('demo: the server has no #chat (use DEMO_DISCORD)');

  out.say('admin', '/config read-channel add channel:#chat');
  const added = discord.slash({
    user: 'admin',
    name: 'config',
    subcommand: 'read-channel add',
    options: { channel: 'chat' },
  });
  out.bot((await added.waitForReply(timeoutMs)).content);

  const before = new Set(fetchedGenerations(emulator));
  voiceServer.reset(guildId);
  const names = Object.entries(NICKNAMES).map(([user, nick]) => `${user} is "${nick}"`);
  out.print(`\nmembers post in #chat (server nicknames: ${names.join(', ')})`);
  for (const post of CHAT_POSTS) {
    out.print(`${post.user} (in #chat) › ${post.content}`);
    discord.sendMessage({ user: post.user, channelId: chat, content: post.content });
  }

  const phrases = CHAT_POSTS.map((post) => post.heard);
  const chatIds = () => fetchedGenerations(emulator).filter((id) => !before.has(id));
  const textOf = (id: string) => emulator.generation(id)?.text ?? '';
  const deadline = Date.now() + timeoutMs;
  while (unheard(phrases, chatIds().map(textOf)).length > 0) {
    if (Date.now() > deadline) {
      const missing = unheard(phrases, chatIds().map(textOf));
      throw new Error(`demo: the chat was not read aloud (never heard: ${missing.join('; ')})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const ids = chatIds();
  for (const id of ids) out.print(`  bot (in voice) › “${textOf(id)}”`);

  // Every chat generation is being played or done: wait until all of its audio has arrived.
  const expectedMs = ids.reduce((sum, id) => {
    const audio = emulator.audioOf(id);
    if (audio === undefined) throw new Error(`demo: the emulator has no audio for ${id}`);
    return sum + wavDurationMs(audio);
  }, 0);
  const received = await voiceServer.waitForAudio(guildId, {
    minDurationMs: expectedMs * 0.9,
    timeoutMs: expectedMs + timeoutMs,
  });
  const wav = join(outDir, 'chat.wav');
  await writeFile(wav, decodeToWav(received.opusFrames));
  out.print(
    `  fake voice server › received ${received.opusFrames.length} Opus packets (${(received.durationMs / 1000).toFixed(1)} s), decoded to ${wav}`,
  );
  return { spoken: ids.map(textOf), wav, ms: received.durationMs };
}
