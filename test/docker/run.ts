/**
 * Second half of `npm run test:docker`: runs the built image (argv[2]) with the host network
 * against the fake Discord and the TTS emulator on 127.0.0.1, and checks that the bot logs in,
 * registers its commands, turns healthy, answers /config and a /say with the emulator's audio,
 * runs the operator commands (`npm run secrets:rotate`, `npm run emulator`), runs as a non-root
 * user under tini with Debian's ffmpeg, and stops cleanly. Exits 0 when all hold.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { startFakeDiscord } from '../fake-discord/index.ts';
import { waitForHttp } from '../support/process.ts';
import { freePort } from '../support/redis.ts';
import { checks, configureAndSay, until } from './checks.ts';

const run = promisify(execFile);
const image = process.argv[2] ?? 'tts-bot:test';
const name = `tts-bot-test-${randomBytes(4).toString('hex')}`;
const { check, results } = checks('');
const docker = async (...args: string[]) => (await run('docker', args)).stdout.trim();

const emulator = await startEmulator({ synth: 'tone' });
const discord = await startFakeDiscord({ heartbeatIntervalMs: 5000 });
const httpPort = await freePort();
let logs = '';
const container = spawn(
  'docker',
  [
    ...['run', '--rm', '--name', name, '--network', 'host'],
    ...['--health-interval', '2s', '--health-start-period', '5s'],
    ...['-e', `DISCORD_TOKEN=${discord.token}`, '-e', `DISCORD_API_URL=${discord.apiUrl}`],
    ...['-e', `TTS_API_URL=${emulator.baseUrl}`, '-e', `TTS_MEDIA_ORIGINS=${emulator.mediaOrigin}`],
    ...['-e', `HTTP_PORT=${httpPort}`, '-e', 'HTTP_HOST=127.0.0.1', '-e', 'LOG_LEVEL=info'],
    image,
  ],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
container.stdout.on('data', (chunk: Buffer) => {
  logs += chunk;
});
container.stderr.on('data', (chunk: Buffer) => {
  logs += chunk;
});
const exited = new Promise<number | null>((resolve) => container.once('exit', resolve));

let failed = false;
try {
  const started = Date.now();
  await Promise.race([
    discord.whenReady(),
    exited.then((code) => {
      throw new Error(`the container exited (${code}) before logging in`);
    }),
  ]);
  check('logs in to Discord', true, `${Date.now() - started} ms after docker run`);
  const registered = await until(
    'commands',
    async () => (discord.commands().global.length > 0 ? discord.commands().global : undefined),
    60_000,
  );
  check('registers its commands', registered.length > 0, registered.map((c) => c.name).join(', '));
  const ready = await waitForHttp(`http://127.0.0.1:${httpPort}/readyz`, { timeoutMs: 60_000 });
  check('/readyz answers 200', true, ready.trim());
  const health = await until(
    'a healthy container',
    async () => {
      const status = await docker('inspect', '--format', '{{.State.Health.Status}}', name);
      return status === 'healthy' ? status : undefined;
    },
    90_000,
  );
  check('HEALTHCHECK on /healthz', health === 'healthy', health);

  await configureAndSay(check, discord, emulator, httpPort);

  // Operator commands run in the image: secret rotation over the running bot's store, the emulator.
  const rotation = await docker('exec', name, 'npm', 'run', '--silent', 'secrets:rotate');
  check(
    'npm run secrets:rotate runs in the image',
    rotation.includes('API keys rewritten:'),
    rotation.split('\n').find((line) => line.startsWith('API keys rewritten')) ?? rotation,
  );
  const emulatorHelp = await docker(
    'exec',
    name,
    'npm',
    'run',
    '--silent',
    'emulator',
    '--',
    '--help',
  );
  check('npm run emulator runs in the image', emulatorHelp.startsWith('Usage: npm run emulator'));

  const uid = await docker('exec', name, 'id', '-u');
  check('runs as a non-root user', uid !== '0', `uid ${uid}`);
  const init = await docker('exec', name, 'cat', '/proc/1/cmdline');
  check(
    'tini is process 1',
    init.split('\0')[0]?.endsWith('tini') === true,
    init.replaceAll('\0', ' ').trim(),
  );
  const ffmpeg = (await docker('exec', name, 'ffmpeg', '-version')).split('\n')[0] ?? '';
  check('Debian’s ffmpeg', /deb12/.test(ffmpeg), ffmpeg);
  const node = await docker('exec', name, 'node', '--version');
  check('Node 24', node.startsWith('v24.'), node);
  const extraNode = await docker(
    'exec',
    name,
    'sh',
    '-c',
    'ls -d node_modules/node-linux-* node_modules/.bin/node 2>/dev/null | wc -l',
  );
  check('no second Node from the project’s pinned node-linux package', extraNode === '0');
  const dave = await docker('exec', name, 'ls', 'node_modules/@snazzah');
  check(
    'DAVE’s native binding is kept',
    dave.includes('davey-linux-x64-gnu'),
    dave.replaceAll('\n', ' '),
  );
  const size = Number(await docker('image', 'inspect', '--format', '{{.Size}}', image));
  check('image size', size > 0, `${(size / 1e6).toFixed(0)} MB`);
  await docker('stop', '--time', '20', name);
  const code = await exited;
  check('stops cleanly on SIGTERM', code === 0, `exit code ${code}`);
  check('no secret in the logs', !logs.includes(discord.token) && !logs.includes(USER_ONE.apiKey));
} catch (error) {
  failed = true;
  console.error(String(error));
  console.error(`--- container logs ---\n${logs}`);
} finally {
  await docker('rm', '-f', name).catch(() => undefined);
  await Promise.allSettled([discord.close(), emulator.close()]);
}
console.log(failed ? 'test:docker FAILED' : `test:docker passed: ${results.length} checks`);
process.exit(failed ? 1 : 0);
