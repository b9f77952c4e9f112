/**
 * Admin CLI: tries a TTS API key before it is given to the bot. Lists voices,
 * or generates one text and saves the audio. The key is never printed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, parseTtsConfig, type TtsConfig } from '../src/config/index.ts';
import {
  EMOTIONS,
  type Emotion,
  MemoryBudgetStore,
  MODELS,
  maskKey,
  productionClientOptions,
  type SpeechRequest,
  systemClock,
  TtsClients,
  TtsError,
  type Voice,
} from '../src/tts/index.ts';
import { outputPath } from './output-path.ts';

const USAGE = `Usage: npm run tts -- [options] "text to speak"
       npm run tts -- --voices [--model base|advance]

Options:
  --voices            list the voices of the model as a table
  --voice <id>        voice to speak with (see --voices)
  --model <m>         base | advance (default base)
  --speed <x>         0.5 to 2.0
  --emotion <e>       ${EMOTIONS.join(' | ')} (advance only)
  --out <dir|file>    where to save the audio (default: current directory)
  --help              show this help

Environment: TTS_API_KEY (required), TTS_API_URL, TTS_MEDIA_ORIGINS, TTS_LIMITS.
Exit codes: 0 done, 1 the API or saving failed, 2 wrong usage or settings.`;

/** A mistake in the command line or settings: shown with the usage, exit code 2. */
class UsageError extends Error {}

/** Ctrl-C while generating. */
class Cancelled extends Error {}

const HINTS: Partial<Record<TtsError['kind'], string>> = {
  invalid_key: 'check TTS_API_KEY',
  invalid_voice: 'list voices with --voices',
  plan_required: 'pick a free voice (--voices) or upgrade the plan',
  insufficient_balance: 'top up the account',
  media_refused: 'check TTS_MEDIA_ORIGINS',
  network: 'check TTS_API_URL and the network',
};

function options() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        voices: { type: 'boolean' },
        voice: { type: 'string' },
        model: { type: 'string', default: 'base' },
        speed: { type: 'string' },
        emotion: { type: 'string' },
        out: { type: 'string', default: '.' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function voiceTable(voices: readonly Voice[]): string {
  const rows = [
    ['VOICE ID', 'NAME', 'GENDER', 'ACCENT', 'PLAN'],
    ...voices.map((v) => [v.voiceId, v.name, v.gender, v.accent, v.free ? 'free' : 'paid']),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths?.[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Shows what is happening: one line rewritten in place on a terminal, plain lines otherwise. */
function progress(stream: NodeJS.WriteStream) {
  const start = Date.now();
  let stage = 'starting';
  let lastPlain = -Infinity;
  const line = () => `${((Date.now() - start) / 1000).toFixed(1)} s  ${stage}`;
  const draw = (): void => {
    if (stream.isTTY) stream.write(`\r\x1b[K${line()}`);
    else if (Date.now() - lastPlain >= 5000) {
      stream.write(`${line()}\n`);
      lastPlain = Date.now();
    }
  };
  const timer = setInterval(draw, stream.isTTY ? 200 : 1000);
  return {
    set(next: string): void {
      stage = next;
      lastPlain = -Infinity;
      draw();
    },
    stop(): void {
      clearInterval(timer);
      if (stream.isTTY) stream.write('\r\x1b[K');
    },
  };
}

async function main(): Promise<void> {
  const { values, positionals } = options();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const apiKey = process.env.TTS_API_KEY?.trim();
  if (!apiKey) throw new UsageError('TTS_API_KEY is not set: put the key to try in it');
  let config: TtsConfig;
  try {
    config = parseTtsConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message.replace(/\n\s*/g, ' '));
    throw error;
  }
  const model = oneOf('model', values.model, MODELS);
  const warnings: string[] = [];
  const client = new TtsClients({
    ...productionClientOptions({
      baseUrl: config.ttsApiUrl,
      mediaOrigins: config.ttsMediaOrigins,
      pollDeadlineMs: config.pollDeadlineMs,
      budgets: new MemoryBudgetStore(config.ttsLimits),
      clock: systemClock,
      onBackgroundError: (error) => warnings.push(error instanceof Error ? error.message : 'error'),
      // The CLI fetches files: submit and poll, whatever the bot streams.
      api: { ...config.ttsApi, streaming: false },
    }),
    // A person is waiting at a terminal: fail sooner than the bot would.
    maxRetries: 2,
    maxBudgetWaitMs: 60_000,
  }).forKey(apiKey);
  console.error(`key ${maskKey(apiKey)} at ${config.ttsApiUrl}`);

  if (values.voices) {
    const voices = await client.verify(model);
    console.log(voiceTable(voices));
    console.error(`${voices.length} voices for model ${model}`);
    return;
  }

  const text = positionals.join(' ').trim();
  if (text === '') throw new UsageError('give the text to speak, or --voices');
  if (values.voice === undefined) throw new UsageError('--voice is required (see --voices)');
  let request: SpeechRequest = { text, voiceId: values.voice, model };
  if (values.speed !== undefined) {
    const speed = Number(values.speed);
    if (!Number.isFinite(speed)) throw new UsageError('--speed must be a number, e.g. 1.2');
    request = { ...request, speed };
  }
  if (values.emotion !== undefined) {
    const emotion: Emotion = oneOf('emotion', values.emotion, EMOTIONS);
    if (model !== 'advance') throw new UsageError('--emotion needs --model advance');
    request = { ...request, emotion };
  }

  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Cancelled('cancelled')));
  const shown = progress(process.stderr);
  let audio: Awaited<ReturnType<typeof client.download>>;
  let generationId: string;
  try {
    const done = await client.generate(request, {
      signal: controller.signal,
      onProgress: (p) =>
        shown.set(
          p.stage === 'generating' ? `generating ${p.generationId}` : 'waiting for rate budget',
        ),
    });
    generationId = done.generationId;
    shown.set('downloading');
    audio = await client.download(done.audioUrl, controller.signal);
  } finally {
    shown.stop();
  }
  for (const warning of warnings) console.error(`warning: ${warning}`);
  const path = await outputPath(values.out, generationId, audio.extension);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, audio.bytes);
  console.log(`saved ${path}`);
  console.log(`size ${audio.bytes.length} bytes (${audio.mime})`);
  console.log(`generation ${generationId}`);
}

/** One readable line for an expected failure; a stack only for a real bug. */
function report(error: unknown): number {
  if (error instanceof UsageError) {
    console.error(`tts: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (error instanceof Cancelled) {
    console.error('tts: cancelled');
    return 130;
  }
  if (error instanceof TtsError) {
    const facts = [error.kind, error.status && `HTTP ${error.status}`, error.generationId]
      .filter(Boolean)
      .join(', ');
    const hint = HINTS[error.kind];
    console.error(`tts: ${error.message} (${facts})${hint ? `: ${hint}` : ''}`);
    return 1;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === 'string') {
    console.error(`tts: ${error.message}`);
    return 1;
  }
  console.error('tts: unexpected error', error);
  return 1;
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (error: unknown) => {
    process.exitCode = report(error);
  },
);
