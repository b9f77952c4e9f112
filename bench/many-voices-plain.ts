/**
 * The many-voices bench's side of the plain bot (`plain-voice-bot.ts`): starts it as its own
 * process on servers opened on the fake voice server, and plays rounds through its stdin/stdout.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type FakeVoiceServer, fakeVoiceCertificate } from '../test/fake-discord/voice/index.ts';
import { REPO_ROOT } from '../tools/local-stack/index.ts';
import type { PlainConfig, PlainGuild, PlainRound } from './plain-voice-bot.ts';

const PLAIN_BOT_ID = '100000000000000077';

/** A running plain bot: its pid (for /proc), its servers, and one round at a time. */
export interface PlainBot {
  readonly pid: number;
  readonly guildIds: readonly string[];
  round(round: PlainRound): Promise<{ loopP99Ms: number; failed: number }>;
  stop(): Promise<void>;
}

/** Starts the plain bot on one server per key, its voice sessions opened on `voice`. */
export async function startPlainBot(
  voice: FakeVoiceServer,
  baseUrl: string,
  voiceId: string,
  keys: readonly string[],
): Promise<PlainBot> {
  const guilds: PlainGuild[] = keys.map((apiKey, i) => {
    const guildId = String(880000000000000000n + BigInt(i));
    const channelId = String(890000000000000000n + BigInt(i));
    const sessionId = `plain${i}`;
    const opened = voice.open({ guildId, channelId, userId: PLAIN_BOT_ID, sessionId });
    return { guildId, channelId, userId: PLAIN_BOT_ID, sessionId, ...opened, apiKey };
  });
  const config: PlainConfig = { baseUrl, voiceId, guilds };
  const child: ChildProcess = spawn(
    process.execPath,
    [join(REPO_ROOT, 'bench', 'plain-voice-bot.ts')],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: (await fakeVoiceCertificate()).certPath,
        PLAIN_BOT_CONFIG: JSON.stringify(config),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const pid = child.pid;
  if (pid === undefined || child.stdout === null || child.stdin === null) {
    throw new Error('the plain bot could not start');
  }
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done === true) throw new Error('the plain bot exited');
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  await next();
  const stdin = child.stdin;
  return {
    pid,
    guildIds: guilds.map((g) => g.guildId),
    round: async (round) => {
      stdin.write(`${JSON.stringify(round)}\n`);
      const done = await next();
      return { loopP99Ms: Number(done.loopP99Ms), failed: Number(done.failed) };
    },
    stop: async () => {
      stdin.end();
      if (child.exitCode === null) {
        await new Promise((resolve) => child.once('exit', resolve));
      }
    },
  };
}
