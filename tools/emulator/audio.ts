/** Audio synthesis: espeak-ng speech (or a tone), optionally transcoded by ffmpeg. */
import { type ChildProcess, spawn } from 'node:child_process';
import type { AudioFormat, SynthMode } from './options.ts';
import { fixWavSizes, SECONDS_PER_CHAR, toneWav } from './wav.ts';

/** What to say and how. */
export interface SpeechRequest {
  text: string;
  /** Voice gender and accent pick an espeak-ng voice variant. */
  gender: string;
  accent: string;
  speed: number;
  emotion?: string;
}

const PITCH: Record<string, number> = { happy: 65, sad: 35, angry: 55, surprised: 75 };
const MAX_PROCESSES = 2;

/** Produces audio bytes; owns every child process it starts, so `close()` can end them. */
export class Synthesizer {
  readonly #mode: SynthMode;
  readonly #format: AudioFormat;
  readonly #espeakPath: string;
  readonly #ffmpegPath: string;
  readonly #children = new Set<ChildProcess>();
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  #closed = false;
  #espeak = false;
  #ffmpeg = false;
  /** Whether ffmpeg runs, looked up on the first v3 encode when v2 did not need it. */
  #ffmpegFound: Promise<boolean> | undefined;

  readonly #toneSecondsPerChar: number;

  constructor(
    mode: SynthMode,
    format: AudioFormat,
    espeakPath: string,
    ffmpegPath: string,
    toneSecondsPerChar = SECONDS_PER_CHAR,
  ) {
    this.#toneSecondsPerChar = toneSecondsPerChar;
    this.#mode = mode;
    this.#format = format;
    this.#espeakPath = espeakPath;
    this.#ffmpegPath = ffmpegPath;
  }

  /** Finds out which programs are installed. Call once before `synthesize`. */
  async init(): Promise<void> {
    this.#espeak = this.#mode !== 'tone' && (await this.#works(this.#espeakPath, ['--version']));
    if (this.#mode === 'espeak' && !this.#espeak) throw new Error('espeak-ng is not available');
    this.#ffmpeg = this.#format !== 'wav' && (await this.#works(this.#ffmpegPath, ['-version']));
  }

  /** The speech source really in use. */
  get source(): 'espeak' | 'tone' {
    return this.#espeak ? 'espeak' : 'tone';
  }

  /** The byte format really produced (WAV when ffmpeg is missing). */
  get format(): AudioFormat {
    return this.#ffmpeg ? this.#format : 'wav';
  }

  /** Renders speech for one generation, in the v2 format. */
  async synthesize(request: SpeechRequest): Promise<Buffer> {
    const wav = await this.wav(request);
    return this.#ffmpeg ? this.#transcode(wav, this.#format) : wav;
  }

  /** Renders speech as a PCM WAV, whatever the v2 format (v3 streams and encodes from it). */
  async wav(request: SpeechRequest): Promise<Buffer> {
    return this.#espeak
      ? await this.#speak(request)
      : toneWav(request.text.length, request.speed, 440, this.#toneSecondsPerChar);
  }

  /** Encodes a WAV as `format` for a v3 file; the WAV itself when ffmpeg is missing. */
  async encode(wav: Buffer, format: AudioFormat): Promise<Buffer> {
    if (format === 'wav') return wav;
    this.#ffmpegFound ??= this.#ffmpeg
      ? Promise.resolve(true)
      : this.#works(this.#ffmpegPath, ['-version']);
    return (await this.#ffmpegFound) ? this.#transcode(wav, format) : wav;
  }

  #transcode(wav: Buffer, format: AudioFormat): Promise<Buffer> {
    const codec =
      format === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '64k'] : ['-c:a', 'libopus', '-b:a', '48k'];
    return this.#run(
      this.#ffmpegPath,
      [
        ...['-hide_banner', '-loglevel', 'error', '-f', 'wav', '-i', 'pipe:0'],
        ...['-map_metadata', '-1', ...codec, '-f', format, 'pipe:1'],
      ],
      wav,
    );
  }

  /** Kills running processes; later calls to `synthesize` fail. */
  close(): void {
    this.#closed = true;
    for (const child of this.#children) child.kill('SIGKILL');
    this.#children.clear();
    for (const wake of this.#waiting.splice(0)) wake();
  }

  async #speak(request: SpeechRequest): Promise<Buffer> {
    const language = request.accent === 'British' ? 'en-gb' : 'en-us';
    const variant = request.gender === 'Female' ? 'f3' : 'm3';
    const args = ['--stdout', '-b', '1', '-v', `${language}+${variant}`];
    args.push('-s', String(Math.round(175 * request.speed)));
    args.push('-p', String(PITCH[request.emotion ?? ''] ?? 50));
    return fixWavSizes(await this.#run(this.#espeakPath, args, Buffer.from(request.text, 'utf8')));
  }

  async #works(command: string, args: string[]): Promise<boolean> {
    try {
      await this.#run(command, args, Buffer.alloc(0));
      return true;
    } catch {
      return false; // not installed or unusable: fall back
    }
  }

  async #run(command: string, args: string[], input: Buffer): Promise<Buffer> {
    while (this.#running >= MAX_PROCESSES && !this.#closed) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    if (this.#closed) throw new Error('emulator closed');
    this.#running += 1;
    try {
      return await this.#spawn(command, args, input);
    } finally {
      this.#running -= 1;
      this.#waiting.shift()?.();
    }
  }

  #spawn(command: string, args: string[], input: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
      this.#children.add(child);
      const out: Buffer[] = [];
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        err = (err + chunk.toString()).slice(-500);
      });
      child.stdin.on('error', () => undefined); // EPIPE when the program exits early; 'close' reports it
      child.on('error', reject);
      child.on('close', (code, signal) => {
        this.#children.delete(child);
        if (code === 0) resolve(Buffer.concat(out));
        else reject(new Error(`${command} exited with ${signal ?? code}: ${err.trim()}`));
      });
      child.stdin.end(input);
    });
  }
}
