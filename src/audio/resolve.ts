import { execFile } from 'node:child_process';
import type { Logger } from '../log/index.ts';
import type { FfmpegCandidateFailure, FfmpegSource } from './errors.ts';
import { FfmpegNotFoundError } from './errors.ts';

/** The ffmpeg binary the bot will use, where it came from, and its version string. */
export interface FfmpegBinary {
  readonly path: string;
  readonly source: FfmpegSource;
  readonly version: string;
  /** Earlier candidates that were skipped, so the caller can warn (e.g. a broken FFMPEG_PATH). */
  readonly failures: readonly FfmpegCandidateFailure[];
}

/** Runs `<path> -version` and returns its stdout; rejects on failure or timeout. */
export type RunVersion = (path: string, timeoutMs: number) => Promise<string>;

/** Inputs to {@link resolveFfmpeg}; `run` and `staticPath` exist so tests need no real binaries. */
export interface ResolveFfmpegOptions {
  env: { FFMPEG_PATH?: string | undefined };
  /**
   * Path from the optional `ffmpeg-static` package: a string to try it, null to skip it,
   * undefined to import the package (skipped with a reason when it is not installed).
   */
  staticPath?: string | null | undefined;
  run?: RunVersion;
  /** Per-candidate time limit for `-version`; default 5000 ms. */
  timeoutMs?: number;
}

/** Extracts the version from `ffmpeg -version` output, e.g. "5.1.9-0+deb12u1"; undefined if absent. */
export function parseFfmpegVersion(stdout: string): string | undefined {
  return /^ffmpeg version (\S+)/m.exec(stdout)?.[1];
}

/** The bot's ffmpeg ({@link resolveFfmpeg}), with which one it is logged, and a broken FFMPEG_PATH warned of. */
export async function findFfmpeg(
  ffmpegPath: string | undefined,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<FfmpegBinary> {
  const ffmpeg = await resolveFfmpeg({ env: { FFMPEG_PATH: ffmpegPath } });
  logger.info(
    { path: ffmpeg.path, source: ffmpeg.source, version: ffmpeg.version },
    'using ffmpeg',
  );
  for (const failure of ffmpeg.failures) {
    // ffmpeg-static is optional and usually absent; a broken FFMPEG_PATH is worth a warning.
    if (failure.source === 'FFMPEG_PATH')
      logger.warn({ ...failure }, 'FFMPEG_PATH is unusable, fell back');
  }
  return ffmpeg;
}

/** Finds a working ffmpeg: FFMPEG_PATH, then the ffmpeg-static package, then `ffmpeg` on PATH. */
export async function resolveFfmpeg(options: ResolveFfmpegOptions): Promise<FfmpegBinary> {
  const run = options.run ?? runVersion;
  const timeoutMs = options.timeoutMs ?? 5000;
  const failures: FfmpegCandidateFailure[] = [];

  const candidates: Array<{ source: FfmpegSource; path: () => Promise<string> }> = [];
  const envPath = options.env.FFMPEG_PATH;
  if (envPath !== undefined && envPath !== '') {
    candidates.push({ source: 'FFMPEG_PATH', path: async () => envPath });
  }
  if (options.staticPath !== null) {
    const given = options.staticPath;
    candidates.push({
      source: 'ffmpeg-static',
      path: async () => (given === undefined ? await importFfmpegStatic() : given),
    });
  }
  candidates.push({ source: 'PATH', path: async () => 'ffmpeg' });

  for (const candidate of candidates) {
    let path: string | null = null;
    try {
      path = await candidate.path();
      const version = parseFfmpegVersion(await run(path, timeoutMs));
      if (version === undefined) throw new Error('`-version` printed no "ffmpeg version" line');
      return { path, source: candidate.source, version, failures };
    } catch (error) {
      failures.push({ source: candidate.source, path, error: describe(error) });
    }
  }
  throw new FfmpegNotFoundError(failures);
}

/** Loads the optional `ffmpeg-static` package's binary path, or throws why it is unavailable. */
async function importFfmpegStatic(): Promise<string> {
  // A variable specifier keeps tsc from requiring the optional package to be installed.
  const specifier = 'ffmpeg-static';
  let mod: { default?: unknown };
  try {
    mod = (await import(specifier)) as { default?: unknown };
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') {
      throw new Error('package not installed');
    }
    throw error;
  }
  if (typeof mod.default !== 'string') throw new Error('package has no binary for this platform');
  return mod.default;
}

/** Default {@link RunVersion}: `execFile` with a hard kill at the time limit. */
function runVersion(path: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      path,
      ['-hide_banner', '-version'],
      { timeout: timeoutMs, killSignal: 'SIGKILL', windowsHide: true },
      (error, stdout) => {
        if (error === null) resolve(stdout);
        else if (error.killed) reject(new Error(`no answer to -version within ${timeoutMs} ms`));
        else reject(error);
      },
    );
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'not found (ENOENT)';
  if (code === 'EACCES') return 'not executable (EACCES)';
  return error.message;
}
