/**
 * The naive client the bot is compared with: submit (again every second while refused), poll
 * every second, download the whole file, then transcode the whole file (loudnorm, Opus) before
 * the first packet could be sent. What a first-draft bot does.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/** What one naive generation did, with epoch-ms timestamps. */
export interface NaiveResult {
  readonly generationId: string;
  readonly submitted: number;
  /** Status polls sent, 429s included. */
  readonly polls: number;
  /** 429 answers to submits and polls. */
  readonly responses429: number;
  /** When the poll that saw `Completed` was answered. */
  readonly completedSeenAt: number;
  /** When the whole file was downloaded and, with `deliver`, handed over (e.g. uploaded). */
  readonly deliveredAt: number;
  /**
   * When the whole file would have been transcoded (the first packet could go) had the
   * transcode started right after the download; absent without `ffmpegPath`.
   */
  readonly transcodedAt?: number;
}

/** Inputs of {@link naiveGenerate}. */
export interface NaiveOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly text: string;
  readonly voiceId: string;
  readonly pollMs?: number;
  /** Transcode the download like a voice bot would. */
  readonly ffmpegPath?: string;
  /** Delivers the downloaded file (e.g. uploads it as an attachment) before `downloadedAt`. */
  readonly deliver?: (audio: Buffer) => Promise<void>;
}

/** One generation the naive way; throws after 5 minutes without completion. */
export async function naiveGenerate(options: NaiveOptions): Promise<NaiveResult> {
  const pollMs = options.pollMs ?? 1000;
  const headers = { 'x-api-key': options.apiKey, 'content-type': 'application/json' };
  const body = JSON.stringify({ text: options.text, voice: options.voiceId, model: 'base' });
  const deadline = Date.now() + 300_000;
  let responses429 = 0;
  let generationId = '';
  const submitted = Date.now();
  while (generationId === '') {
    const answer = await fetch(`${options.baseUrl}/tts`, { method: 'POST', headers, body });
    if (answer.status === 429) {
      responses429++;
      await answer.body?.cancel();
      if (Date.now() > deadline) throw new Error('naive: submit refused for 5 minutes');
      await sleep(pollMs);
      continue;
    }
    if (!answer.ok) throw new Error(`naive: submit answered ${answer.status}`);
    generationId = ((await answer.json()) as { generation_id: string }).generation_id;
  }
  let polls = 0;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`naive: ${generationId} never completed`);
    await sleep(pollMs);
    polls++;
    const answer = await fetch(`${options.baseUrl}/status?generation_id=${generationId}`, {
      headers,
    });
    if (answer.status === 429) responses429++;
    if (!answer.ok) {
      await answer.body?.cancel();
      continue;
    }
    const record = (await answer.json()) as { status: string; audio_url?: string | null };
    if (record.status !== 'Completed' || !record.audio_url) continue;
    const completedSeenAt = Date.now();
    const audio = Buffer.from(await (await fetch(record.audio_url)).arrayBuffer());
    const downloadedAt = Date.now();
    await options.deliver?.(audio);
    const deliveredAt = Date.now();
    const base = { generationId, submitted, polls, responses429, completedSeenAt, deliveredAt };
    if (options.ffmpegPath === undefined) return base;
    const started = Date.now();
    await transcodeWhole(options.ffmpegPath, audio);
    return { ...base, transcodedAt: downloadedAt + (Date.now() - started) };
  }
}

/** The whole file through ffmpeg into Ogg/Opus with loudnorm, the output collected in memory. */
function transcodeWhole(ffmpegPath: string, audio: Buffer): Promise<Buffer> {
  const args = ['-hide_banner', '-loglevel', 'error', '-i', 'pipe:0'];
  args.push('-af', 'loudnorm=I=-16:TP=-1.5:LRA=11', '-ac', '2', '-ar', '48000');
  args.push('-c:a', 'libopus', '-b:a', '64k', '-f', 'ogg', 'pipe:1');
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const parts: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => parts.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(parts));
      else reject(new Error(`naive: ffmpeg exited with ${code}`));
    });
    child.stdin.on('error', reject);
    child.stdin.end(audio);
  });
}
