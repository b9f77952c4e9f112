/** CLI for `npm run emulator`: runs the local TTS API emulator until SIGINT/SIGTERM. */
import { parseArgs } from 'node:util';
import { defaultGenerationMs, type EmulatorOptions, startEmulator } from './index.ts';

const USAGE = `Usage: npm run emulator -- [options]
  --port <n>              API port (env EMULATOR_PORT, default 8787; 0 = free port)
  --media-port <n>        media port (env EMULATOR_MEDIA_PORT, default 8788)
  --time-scale <x>        rate-limit windows times x (env EMULATOR_TIME_SCALE, default 1)
  --generation-speed <x>  generate x times faster than the default (env EMULATOR_GENERATION_SPEED)
  --url-field <f>         audio_url | url | both (env EMULATOR_URL_FIELD)
  --audio-format <f>      wav | mp3 | ogg bytes behind the .wav address (env EMULATOR_AUDIO_FORMAT)
  --synth <s>             auto | espeak | tone (env EMULATOR_SYNTH)
  --stream-speed <x>      v3 stream sends audio x times faster than real time (env EMULATOR_STREAM_SPEED, default 2)
  --stream-jitter <f>     each v3 chunk's interval stretched at random by up to ± f (env EMULATOR_STREAM_JITTER, default 0)
  --stream-pause-ms <ms>  a pause half-way through each v3 stream (env EMULATOR_STREAM_PAUSE_MS, default 0)
  --retry-after           send Retry-After on v2 429s (v3 always sends it)
  --quiet                 do not print one line per request
  --help`;

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    'media-port': { type: 'string' },
    'time-scale': { type: 'string' },
    'generation-speed': { type: 'string' },
    'url-field': { type: 'string' },
    'audio-format': { type: 'string' },
    synth: { type: 'string' },
    'stream-speed': { type: 'string' },
    'stream-jitter': { type: 'string' },
    'stream-pause-ms': { type: 'string' },
    'retry-after': { type: 'boolean' },
    quiet: { type: 'boolean' },
    help: { type: 'boolean' },
  },
});

function setting(flag: string | undefined, env: string): string | undefined {
  return flag ?? process.env[env];
}

function number(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`${name} must be a non-negative number`);
  return value;
}

function choice<T extends string>(
  name: string,
  raw: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${allowed.join(', ')}`);
  return raw as T;
}

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

/** Builds emulator options from flags and environment; throws naming the bad setting. */
function optionsFromArgs(): EmulatorOptions {
  const speed = number(
    'generation speed',
    setting(values['generation-speed'], 'EMULATOR_GENERATION_SPEED'),
    1,
  );
  if (speed === 0) throw new Error('generation speed must be greater than 0');
  const streamSpeed = number(
    'stream speed',
    setting(values['stream-speed'], 'EMULATOR_STREAM_SPEED'),
    2,
  );
  if (streamSpeed === 0) throw new Error('stream speed must be greater than 0');
  const urlField = choice('url field', setting(values['url-field'], 'EMULATOR_URL_FIELD'), [
    'audio_url',
    'url',
    'both',
  ] as const);
  const audioFormat = choice(
    'audio format',
    setting(values['audio-format'], 'EMULATOR_AUDIO_FORMAT'),
    ['wav', 'mp3', 'ogg'] as const,
  );
  const synth = choice('synth', setting(values.synth, 'EMULATOR_SYNTH'), [
    'auto',
    'espeak',
    'tone',
  ] as const);
  return {
    port: number('port', setting(values.port, 'EMULATOR_PORT'), 8787),
    mediaPort: number('media port', setting(values['media-port'], 'EMULATOR_MEDIA_PORT'), 8788),
    timeScale: number('time scale', setting(values['time-scale'], 'EMULATOR_TIME_SCALE'), 1),
    generationMs: (model, length) => defaultGenerationMs(model, length) / speed,
    streamSpeed,
    streamJitter: number(
      'stream jitter',
      setting(values['stream-jitter'], 'EMULATOR_STREAM_JITTER'),
      0,
    ),
    streamPauseMs: number(
      'stream pause',
      setting(values['stream-pause-ms'], 'EMULATOR_STREAM_PAUSE_MS'),
      0,
    ),
    retryAfter: values['retry-after'] ?? false,
    ...(urlField ? { urlField } : {}),
    ...(audioFormat ? { audioFormat } : {}),
    ...(synth ? { synth } : {}),
    ...(values.quiet
      ? {}
      : {
          onRequest: (e) => {
            const who = e.userId ?? '-';
            console.log(
              `${e.method} ${e.path} -> ${e.status || 'dropped'} ${e.doneAt - e.at}ms ${who}`,
            );
          },
        }),
  };
}

let options: EmulatorOptions;
try {
  options = optionsFromArgs();
} catch (error) {
  console.error(`emulator: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  process.exit(2);
}

const emulator = await startEmulator(options);
console.log(`TTS API emulator
  base URL:     ${emulator.baseUrl}
  v3 base URL:  ${emulator.v3.baseUrl} (stream: ${emulator.v3.streamUrl}?api_key=...)
  media origin: ${emulator.mediaOrigin}
  audio:        ${emulator.audioSource}, ${emulator.audioFormat} bytes
  test users (local test keys, not secrets):`);
for (const user of emulator.users) {
  console.log(`    ${user.userId} (${user.plan}): x-api-key ${user.apiKey}`);
}

let stopping = false;
const stop = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping emulator`);
  emulator.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
