/**
 * The floor beside the many-voices figures: ffmpeg alone encoding tone audio (the emulator's
 * WAV) with the bot's arguments and with the plain bot's, CPU from this process's reaped
 * children, and what starting one ffmpeg costs (a 0.1 s input).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { buildTranscodeArgs } from '../src/audio/index.ts';
import { sineWav } from '../tools/emulator/wav.ts';
import { percentile } from './stats.ts';

/** The plain bot's ffmpeg: Ogg Opus as `@discordjs/voice` expects, libopus at 96 kb/s, one per item. */
export const PLAIN_FFMPEG_ARGS = [
  ...['-hide_banner', '-loglevel', 'error', '-i', 'pipe:0', '-ac', '2', '-ar', '48000'],
  ...['-c:a', 'libopus', '-b:a', '96k', '-f', 'ogg', 'pipe:1'],
];

/** ms of CPU per second of speech for each bot's ffmpeg, and ms per ffmpeg start. */
export interface EncodeFloor {
  readonly oursPerSecond: number;
  readonly plainPerSecond: number;
  readonly startMs: number;
}

/** Measures the floor on `seconds` of tone (median of five runs each). */
export async function encodeFloor(seconds: number): Promise<EncodeFloor> {
  const ours = buildTranscodeArgs({ normalize: true, inputFormat: 'wav' });
  const long = sineWav(seconds * 4);
  const short = sineWav(0.1);
  const median = async (args: readonly string[], wav: Buffer) => {
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) runs.push(await reapedCpuMs({ args, input: wav }));
    return percentile(runs, 0.5);
  };
  const startMs = await median(ours, short);
  return {
    oursPerSecond: ((await median(ours, long)) - startMs) / (seconds * 4),
    plainPerSecond: ((await median(PLAIN_FFMPEG_ARGS, long)) - startMs) / (seconds * 4),
    startMs,
  };
}

/** One ffmpeg run: its arguments and what it reads on stdin. */
export interface FfmpegRun {
  readonly args: readonly string[];
  readonly input?: Buffer | undefined;
}

/** CPU (ms) of one ffmpeg run, read as this process's reaped children's time (10 ms ticks). */
export async function reapedCpuMs(run: FfmpegRun): Promise<number> {
  const before = reapedTicks();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('ffmpeg', run.args, { stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.stdin.on('error', () => undefined); // ffmpeg may stop reading early; its exit tells
    child.once('error', reject);
    child.once('close', () => resolve());
    child.stdin.end(run.input);
  });
  return (reapedTicks() - before) * 10;
}

function reapedTicks(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13] ?? 0) + Number(fields[14] ?? 0);
}
