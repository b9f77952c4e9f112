/**
 * Drives `VoiceManager` against the fake voice server and the TTS emulator without discord.js:
 * the adapter of test/fake-discord/voice/test-client.ts answers the library's op 4.
 */
import { existsSync, readFileSync } from 'node:fs';
import pino from 'pino';
import { expect } from 'vitest';
import { FfmpegProcesses } from '../../src/audio/index.ts';
import { ttsSource } from '../../src/speaking/index.ts';
import { type SpeechRequest, systemClock, type TtsClient } from '../../src/tts/index.ts';
import { type SpeakUpdate, VoiceManager, type VoiceManagerOptions } from '../../src/voice/index.ts';
import type { FakeVoiceServer } from '../fake-discord/voice/index.ts';
import { fakeAdapterCreator } from '../fake-discord/voice/test-client.ts';

export const BOT_USER_ID = '100000000000000009';
export const CHANNEL_ID = '300000000000000009';
export const OTHER_CHANNEL_ID = '300000000000000010';

let guildCounter = 210000000000000000n;
/** A fresh guild per test: @discordjs/voice keeps one connection per guild id process-wide. */
export function newGuildId(): string {
  guildCounter += 1n;
  return String(guildCounter);
}

/** A logger that writes nothing (set VOICE_TEST_LOGS=1 to see debug logs). */
export const quietLogger = pino({ level: process.env.VOICE_TEST_LOGS ? 'debug' : 'silent' });

/** Notices the manager posted, in order. */
export interface Notice {
  guildId: string;
  textChannelId: string;
  text: string;
}

/** The ffmpeg children of the managers {@link newManager} builds (unless told otherwise). */
export const testProcesses = new FfmpegProcesses();

/** A manager with test defaults; `notices` collects what it posts. */
export function newManager(overrides: Partial<VoiceManagerOptions> = {}): {
  manager: VoiceManager;
  notices: Notice[];
} {
  const notices: Notice[] = [];
  const manager = new VoiceManager({
    ffmpegPath: 'ffmpeg',
    processes: testProcesses,
    logger: quietLogger,
    clock: systemClock,
    idleMs: 60_000,
    maxQueueLength: 10,
    notify: (guildId, textChannelId, text) => {
      notices.push({ guildId, textChannelId, text });
    },
    reconnect: { moveTimeoutMs: 300, rejoinBackoffMs: 100 },
    readyTimeoutMs: 5000,
    ...overrides,
  });
  return { manager, notices };
}

/** The target of a join in `guildId` through the fake server. */
export function target(server: FakeVoiceServer, guildId: string, channelId = CHANNEL_ID) {
  return {
    guildId,
    channelId,
    adapterCreator: fakeAdapterCreator(server, { userId: BOT_USER_ID }),
    textChannelId: '400000000000000009',
  };
}

/** One spoken item as a test sees it: every update, and its terminal one. */
export interface Spoken {
  readonly updates: SpeakUpdate[];
  readonly ended: Promise<SpeakUpdate>;
  readonly itemId: string;
}

const TERMINAL = new Set(['played', 'failed', 'skipped', 'cancelled']);

/** Queues `text` for `requesterId`; fails the test when the manager refuses. */
export function speak(
  manager: VoiceManager,
  guildId: string,
  client: TtsClient,
  requesterId: string,
  text: string,
  extra: Partial<SpeechRequest> = {},
): Spoken {
  const updates: SpeakUpdate[] = [];
  let end: (update: SpeakUpdate) => void = () => undefined;
  const ended = new Promise<SpeakUpdate>((resolve) => {
    end = resolve;
  });
  const outcome = manager.speak({
    guildId,
    requesterId,
    requesterName: `user ${requesterId}`,
    text,
    source: ttsSource(client, { text, voiceId: 'am_2riuownnf', model: 'base', ...extra }),
    onUpdate: (update) => {
      updates.push(update);
      if (TERMINAL.has(update.state)) end(update);
    },
  });
  if (!outcome.ok) throw new Error(`speak refused: ${outcome.reason}`);
  return { updates, ended, itemId: outcome.itemId };
}

/** Exactly one terminal update, and it is the last one. */
export function expectOneTerminal(spoken: Spoken): void {
  const terminal = spoken.updates.filter((update) => TERMINAL.has(update.state));
  expect(terminal).toHaveLength(1);
  expect(spoken.updates.at(-1)).toBe(terminal[0]);
}

/** Duration of a PCM WAV file from its RIFF header (the emulator's reader). */
export { wavDurationMs } from '../../tools/emulator/index.ts';

/** Polls until `check` holds; fails with `what` after `timeoutMs`. */
export async function eventually(
  what: string,
  check: () => boolean,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether a process id still exists in /proc (running, or exited but not reaped). */
export function procExists(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}

/**
 * Whether a live ffmpeg is a guild's long-lived encoder (raw PCM on stdin) rather than an
 * item's own (which probes its input). An encoder stays while its guild speaks, by design.
 */
export function isGuildEncoder(pid: number): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const input = args.indexOf('-i');
    return (
      input > 0 &&
      !args.includes('-format_whitelist') &&
      /^(s16le|f32le)$/.test(args[input - 5] ?? '')
    );
  } catch {
    return false; // gone already
  }
}
