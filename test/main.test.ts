import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startBot } from '../src/bot.ts';
import { type FakeDiscord, startFakeDiscord } from './fake-discord/index.ts';
import { startTestBot } from './support/bot-harness.ts';

/** Runs `npm start`'s command with only the given environment; resolves with its exit code and output. */
function runBot(
  env: Record<string, string>,
  script = 'src/main.ts',
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], {
      cwd: join(import.meta.dirname, '..'),
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

let fake: FakeDiscord;
let dataDir: string;
beforeAll(async () => {
  fake = await startFakeDiscord();
  dataDir = await mkdtemp(join(tmpdir(), 'tts-main-'));
});
afterAll(async () => {
  await fake?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('without DISCORD_TOKEN it names the variable and exits 1', async () => {
  const { code, output } = await runBot({ DATA_DIR: dataDir });
  expect(code).toBe(1);
  expect(output).toContain('DISCORD_TOKEN is required');
});

test('a wrong token is reported as refused, without the token, and exits 1', async () => {
  const token = 'wrong-token-that-must-not-be-logged';
  const { code, output } = await runBot({
    DATA_DIR: dataDir,
    DISCORD_TOKEN: token,
    DISCORD_API_URL: fake.apiUrl,
  });
  expect(code).toBe(1);
  expect(output).toContain('the token was refused; set DISCORD_TOKEN');
  expect(output).not.toContain(token);
});

test('a refused token at the default log level: a few lines naming DISCORD_TOKEN, no stack', async () => {
  // As a newcomer runs `npm start`: no NODE_ENV (pretty logs), no LOG_LEVEL, no SECRET_KEY.
  const { code, output } = await runBot({
    NODE_ENV: 'development',
    DATA_DIR: await mkdtemp(join(tmpdir(), 'tts-main-first-')),
    DISCORD_TOKEN: 'refused-token',
    DISCORD_API_URL: fake.apiUrl,
  });
  expect(code).toBe(1);
  const lines = output.trimEnd().split('\n');
  expect(lines.length, output).toBeLessThanOrEqual(6);
  expect(output).toContain('DISCORD_TOKEN');
  expect(output).toContain('LOG_LEVEL=debug');
  expect(output).not.toMatch(/^\s+at /m);
});

test('at LOG_LEVEL=debug, the same failure shows its stack', async () => {
  const { code, output } = await runBot({
    NODE_ENV: 'development',
    LOG_LEVEL: 'debug',
    DATA_DIR: dataDir,
    DISCORD_TOKEN: 'refused-token',
    DISCORD_API_URL: fake.apiUrl,
  });
  expect(code).toBe(1);
  expect(output).toMatch(/^\s+at /m);
});

test('an unreachable Discord is reported as such and exits 1', async () => {
  const { code, output } = await runBot({
    DATA_DIR: dataDir,
    DISCORD_TOKEN: 'x',
    DISCORD_API_URL: 'http://127.0.0.1:1/api',
  });
  expect(code).toBe(1);
  expect(output).toContain('Discord is unreachable (ECONNREFUSED); check');
  expect(output).not.toContain('"stack"');
});

test('a DISCORD_DEV_GUILD_ID the bot is not in: one line saying to invite it there, exits 1', async () => {
  const { code, output } = await runBot({
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    DISCORD_TOKEN: fake.token,
    DISCORD_API_URL: fake.apiUrl,
    DISCORD_DEV_GUILD_ID: '123456789012345678',
  });
  expect(code).toBe(1);
  expect(output).toContain('DISCORD_DEV_GUILD_ID=123456789012345678');
  expect(output).toContain('invite the bot to that server first');
  expect(output).not.toMatch(/^\s+at /m);
});

test('deploy-commands registers the commands even when unchanged, then exits', async () => {
  const before = fake.commands().putCount;
  const env = { DATA_DIR: dataDir, DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl };
  for (let run = 1; run <= 2; run++) {
    const { code, output } = await runBot(env, 'src/deploy-commands.ts');
    expect(code, output).toBe(0);
    expect(fake.commands().putCount).toBe(before + run);
  }
  expect(fake.commands().global.map((command) => command.name)).toContain('say');
});

test('a restarted bot does not register unchanged commands again', async () => {
  const first = await startTestBot();
  expect(first.discord.commands().putCount).toBe(1);
  await first.bot.stop();
  // Same store, same fake Discord: a second start finds the definitions unchanged.
  const again = await startBot(first.bot.services.config, { logger: first.bot.services.logger });
  expect(first.discord.commands().putCount).toBe(1);
  await again.stop();
  await first.stop();
});
