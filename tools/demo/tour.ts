/**
 * The scripted tour of `npm run demo`: what a newcomer would do in a server, played against the
 * local stack (emulator, fake Discord, the real bot), each step printed as a transcript line.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InteractionHandle, Json } from '../../test/fake-discord/index.ts';
import type { FakeTwitch } from '../../test/fake-twitch/index.ts';
import type { LocalStack } from '../local-stack/index.ts';
import { type ChatStepResult, runChatStep } from './chat.ts';
import { transcript } from './transcript.ts';
import { runTwitchStep, type TwitchStepResult } from './twitch.ts';
import { decodeToWav } from './wav.ts';

export { DEMO_DISCORD } from './chat.ts';

/** Where the tour saves what the bot produced, and how it prints. */
export interface TourOptions {
  readonly stack: LocalStack;
  readonly apiKey: string;
  /** Folder for the audio files (created when missing). */
  readonly outDir: string;
  readonly print: (line: string) => void;
  /** The fake Twitch chat the bot's `TWITCH_CHAT_URL` points at: the tour then reads a Twitch chat too. */
  readonly twitch?: FakeTwitch;
}

/** The files the tour saved. */
export interface TourResult {
  readonly attachment: string;
  readonly voiceWav: string;
  /** Milliseconds of audio the fake voice server received and decoded. */
  readonly voiceMs: number;
  /** Chat messages read aloud by streamer mode. */
  readonly chat: ChatStepResult;
  /** Twitch chat read aloud, when the tour had a fake Twitch. */
  readonly twitch?: TwitchStepResult;
}

const TIMEOUT_MS = 30_000;

/** Plays the tour (the stack started with `DEMO_DISCORD`); throws when a step does not get the answer it waits for. */
export async function runTour(options: TourOptions): Promise<TourResult> {
  const { stack, outDir } = options;
  const { discord, voiceServer } = stack;
  await mkdir(outDir, { recursive: true });
  const out = transcript(options.print);
  const { say, bot, print } = out;

  say('admin', '/config api-key   (the bot opens a modal; the key is typed there, never in chat)');
  const config = discord.slash({ user: 'admin', name: 'config', subcommand: 'api-key' });
  const modal = await config.waitForModal(TIMEOUT_MS);
  bot(`modal "${String(modal.title ?? '')}"`);
  const submitted = await config.submitModal({ 'api-key': options.apiKey });
  bot(await lastContent(submitted, (e) => e.kind === 'edit'));

  say('member', '/voices');
  const voices = await discord.slash({ user: 'member', name: 'voices' }).waitForReply(TIMEOUT_MS);
  const embed = (voices.embeds[0] ?? {}) as Json;
  const lines = String(embed.description ?? voices.content)
    .split('\n')
    .slice(0, 4);
  bot(`${String(embed.title ?? '')}\n${lines.join('\n')}\n…`);

  const fileText = 'Hello! This is the text to speech bot, speaking from a local demo.';
  say('member', `/say text:"${fileText}"`);
  const file = discord.slash({ user: 'member', name: 'say', options: { text: fileText } });
  const done = await file.waitFor((e) => e.kind === 'edit' && e.files.length > 0, TIMEOUT_MS);
  const [audio] = done.kind === 'edit' ? done.files : [];
  if (audio === undefined) throw new Error('demo: /say sent no file');
  const attachment = join(outDir, audio.filename);
  await writeFile(attachment, audio.data);
  bot(
    `${file.lastMessage()?.content ?? ''}\n[attachment ${audio.filename}, ${kb(audio.data.length)}] saved to ${attachment}`,
  );

  print('\nmember joins the voice channel "Voice"');
  discord.moveMember({ userId: 'member', channelId: discord.guild.voiceChannelId });
  say('member', '/join');
  bot((await discord.slash({ user: 'member', name: 'join' }).waitForReply(TIMEOUT_MS)).content);

  const voiceText = 'Now I am speaking in the voice channel, where everyone can hear me.';
  say('member', `/say output:voice text:"${voiceText}"`);
  voiceServer.reset(discord.guild.id);
  const spoken = discord.slash({
    user: 'member',
    name: 'say',
    options: { text: voiceText, output: 'voice' },
  });
  bot(await lastContent(spoken, (e) => e.kind === 'edit' && /Played/.test(JSON.stringify(e.data))));
  const received = await voiceServer.waitForAudio(discord.guild.id, { timeoutMs: TIMEOUT_MS });
  const voiceWav = join(outDir, 'voice-channel.wav');
  await writeFile(voiceWav, decodeToWav(received.opusFrames));
  print(
    `  fake voice server › received ${received.opusFrames.length} Opus packets (${(received.durationMs / 1000).toFixed(1)} s), decoded to ${voiceWav}`,
  );

  const chat = await runChatStep(stack, outDir, out, TIMEOUT_MS);
  const twitch =
    options.twitch === undefined
      ? undefined
      : await runTwitchStep(stack, options.twitch, out, TIMEOUT_MS);

  say('member', '/leave');
  bot((await discord.slash({ user: 'member', name: 'leave' }).waitForReply(TIMEOUT_MS)).content);
  return {
    attachment,
    voiceWav,
    voiceMs: received.durationMs,
    chat,
    ...(twitch === undefined ? {} : { twitch }),
  };
}

async function lastContent(
  handle: InteractionHandle,
  predicate: Parameters<InteractionHandle['waitFor']>[0],
): Promise<string> {
  await handle.waitFor(predicate, TIMEOUT_MS);
  return handle.lastMessage()?.content ?? '';
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
