/**
 * Third part of `npm run test:docker`: brings docker-compose.yml up as it is, with
 * docker-compose.host.yml (this daemon has no bridge network) and a test-only override written
 * here, then checks that the bot, on the compose file's Redis store, logs in to the fake Discord,
 * turns ready and healthy, answers /config and a /say with the emulator's audio, keeps its
 * settings in Redis, stops cleanly and logs no secret; `docker-compose down -v` removes it all.
 *
 * Usage: node test/docker/compose.ts IMAGE PROJECT. IMAGE is the image already built (compose
 * does not build it again: `up --no-build`); PROJECT is the compose project name, which
 * scripts/test-docker.sh also uses to remove whatever is left should this process be killed.
 *
 * The override changes only what a shared test machine needs: the built image, a free port for
 * the endpoint and for Redis (both on the host's network), and quicker health checks. Settings
 * come from an env_file in a temporary project directory (`--project-directory`), so the
 * compose file's `env_file: .env` reads fake test values and never a developer's own `.env`.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { startFakeDiscord } from '../fake-discord/index.ts';
import { waitForHttp } from '../support/process.ts';
import { freePort } from '../support/redis.ts';
import { checks, configureAndSay, until } from './checks.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');
const image = process.argv[2] ?? 'tts-bot:test';
const project = process.argv[3] ?? `ttsbot-compose-${randomBytes(4).toString('hex')}`;
const { check, results } = checks('compose: ');
const docker = async (...args: string[]) =>
  (await run('docker', args, { maxBuffer: 64 << 20 })).stdout.trim();

const emulator = await startEmulator({ synth: 'tone' });
const discord = await startFakeDiscord({ heartbeatIntervalMs: 5000 });
const [httpPort, redisPort] = [await freePort(), await freePort()];
const secretKey = randomBytes(32).toString('hex');
const dir = await mkdtemp(join(tmpdir(), 'tts-bot-compose-'));
await writeFile(
  join(dir, '.env'),
  [
    `DISCORD_TOKEN=${discord.token}`,
    `DISCORD_API_URL=${discord.apiUrl}`,
    `TTS_API_URL=${emulator.baseUrl}`,
    `TTS_MEDIA_ORIGINS=${emulator.mediaOrigin}`,
    `SECRET_KEY=${secretKey}`,
    'LOG_LEVEL=info',
    '',
  ].join('\n'),
  { mode: 0o600 },
);
// JSON is YAML: the override as compose reads it.
const override = {
  services: {
    bot: {
      image,
      environment: { HTTP_PORT: String(httpPort), STORE_URL: `redis://127.0.0.1:${redisPort}` },
      healthcheck: { interval: '2s', start_period: '5s' },
    },
    redis: {
      command: [
        ...['redis-server', '--appendonly', 'yes', '--bind', '127.0.0.1'],
        ...['--protected-mode', 'yes', '--port', String(redisPort)],
      ],
      healthcheck: { test: ['CMD', 'redis-cli', '-p', String(redisPort), 'ping'], interval: '1s' },
    },
  },
};
await writeFile(join(dir, 'test.yml'), `${JSON.stringify(override, null, 2)}\n`);

const composeArgs = [
  ...['-p', project, '--project-directory', dir],
  ...['-f', join(ROOT, 'docker-compose.yml'), '-f', join(ROOT, 'docker-compose.host.yml')],
  ...['-f', join(dir, 'test.yml')],
];
const compose = async (...args: string[]) =>
  (await run('docker-compose', [...composeArgs, ...args], { maxBuffer: 64 << 20 })).stdout.trim();
const logs = async () =>
  compose('logs', '--no-color').catch((error: unknown) => `(no logs: ${String(error)})`);
const leftovers = async () =>
  [
    await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`),
    await docker('volume', 'ls', '-q', '--filter', `label=com.docker.compose.project=${project}`),
  ]
    .filter((list) => list !== '')
    .join(' ');

let failed = false;
let down = false;
try {
  const started = Date.now();
  await compose('up', '-d', '--no-build');
  check('docker-compose up (Redis healthy, then the bot)', true, `${Date.now() - started} ms`);
  const bot = await compose('ps', '-q', 'bot');
  const state = (format: string) => docker('inspect', '--format', format, bot);

  let loggedIn = false;
  await Promise.race([
    discord.whenReady().then(() => {
      loggedIn = true;
    }),
    (async () => {
      const deadline = Date.now() + 300_000;
      while (!loggedIn) {
        const status = await state('{{.State.Status}} {{.RestartCount}}');
        if (!status.startsWith('running') || !status.endsWith(' 0'))
          throw new Error(`the bot's container is ${status} (status, restarts) before logging in`);
        if (Date.now() > deadline) throw new Error('the bot did not log in within 300 s');
        await new Promise((done) => setTimeout(done, 1000));
      }
    })(),
  ]);
  loggedIn = true;
  check('logs in to Discord', true, `${Date.now() - started} ms after docker-compose up`);
  const registered = await until(
    'commands',
    async () => (discord.commands().global.length > 0 ? discord.commands().global : undefined),
    60_000,
  );
  check('registers its commands', registered.length > 0, `${registered.length} commands`);
  const ready = await waitForHttp(`http://127.0.0.1:${httpPort}/readyz`, { timeoutMs: 60_000 });
  check(
    '/readyz answers 200 (Discord and the Redis store)',
    ready.includes('"store"'),
    ready.trim(),
  );
  const health = await until(
    'a healthy container',
    async () => {
      const status = await state('{{.State.Health.Status}}');
      return status === 'healthy' ? status : undefined;
    },
    90_000,
  );
  check('HEALTHCHECK on /healthz', health === 'healthy', health);

  await configureAndSay(check, discord, emulator, httpPort);

  const keys = Number(
    await compose('exec', '-T', 'redis', 'redis-cli', '-p', String(redisPort), 'dbsize'),
  );
  check('settings kept in the compose file’s Redis', keys > 0, `${keys} keys`);
  const data = await compose('exec', '-T', 'bot', 'ls', '-A', '/app/data');
  check('no SQLite store beside it', !data.includes('sqlite'), `/app/data: ${data || 'empty'}`);
  const store = await compose('exec', '-T', 'bot', 'printenv', 'STORE_URL');
  check('the bot’s STORE_URL', store.startsWith('redis://127.0.0.1:'), store);

  await compose('stop', '-t', '20', 'bot');
  const code = await state('{{.State.ExitCode}}');
  check('stops cleanly on SIGTERM', code === '0', `exit code ${code}`);
  const text = await logs();
  check(
    'no secret in the compose logs',
    [discord.token, USER_ONE.apiKey, secretKey].every((secret) => !text.includes(secret)),
    `${text.split('\n').length} lines`,
  );

  await compose('down', '-v');
  down = true;
  const left = await leftovers();
  check('docker-compose down -v leaves no container or volume', left === '', left);
} catch (error) {
  failed = true;
  console.error(String(error));
  console.error(`--- compose logs ---\n${await logs()}`);
} finally {
  if (!down) await compose('down', '-v').catch((error: unknown) => console.error(String(error)));
  await rm(dir, { recursive: true, force: true });
  await Promise.allSettled([discord.close(), emulator.close()]);
}
console.log(
  failed ? 'test:docker compose FAILED' : `test:docker compose passed: ${results.length} checks`,
);
process.exit(failed ? 1 : 0);
