/**
 * The tour's streamer-mode step: the admin makes #chat a read channel, members post a few
 * messages there, and the bot, already in voice, reads them aloud. The transcript shows what
 * was posted and what was spoken, so the cleanup (nicknames, links, emoji) is visible.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalStack, LocalStackOptions } from '../local-stack/index.ts';
import { heardSoFar, waitUntilHeard, waitUntilPlayed } from './heard.ts';
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
  /** Texts of the generations the bot spoke for the chat, in the order it asked for them. */
  readonly spoken: readonly string[];
  /** The voice audio received while the chat was read, decoded. */
  readonly wav: string;
  /** Milliseconds of audio the fake voice server received and decoded. */
  readonly ms: number;
}

/** Plays the step with the bot in voice; throws when the chat is not heard within `timeoutMs`. */
export async function runChatStep(
  stack: LocalStack,
  outDir: string,
  out: Transcript,
  timeoutMs: number,
): Promise<ChatStepResult> {
  const { discord, voiceServer } = stack;
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

  const before = heardSoFar(stack);
  voiceServer.reset(guildId);
  const names = Object.entries(NICKNAMES).map(([user, nick]) => `${user} is "${nick}"`);
  out.print(`\nmembers post in #chat (server nicknames: ${names.join(', ')})`);
  for (const post of CHAT_POSTS) {
    out.print(`${post.user} (in #chat) › ${post.content}`);
    discord.sendMessage({ user: post.user, channelId: chat, content: post.content });
  }

  const lines = await waitUntilHeard(
    stack,
    before,
    CHAT_POSTS.map((post) => post.heard),
    { deadline: Date.now() + timeoutMs, what: 'the chat' },
  );
  for (const line of lines) out.print(`  bot (in voice) › “${line.text}”`);

  // Every chat generation is being played or done: wait until all of its audio has arrived.
  const received = await waitUntilPlayed(stack, lines, timeoutMs);
  const wav = join(outDir, 'chat.wav');
  await writeFile(wav, decodeToWav(received.opusFrames));
  out.print(
    `  fake voice server › received ${received.opusFrames.length} Opus packets (${(received.durationMs / 1000).toFixed(1)} s), decoded to ${wav}`,
  );
  return { spoken: lines.map((line) => line.text), wav, ms: received.durationMs };
}
