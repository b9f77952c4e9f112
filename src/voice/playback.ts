/**
 * Turns a finished generation's address into something the audio player can play: the audio
 * streams from its address into ffmpeg and out as Ogg/Opus, so playback starts before the
 * download ends and no Opus encoding happens in JavaScript.
 */
import { type AudioResource, createAudioResource, StreamType } from '@discordjs/voice';
import { type FfmpegProcesses, type Transcode, transcodeToOpus } from '../audio/index.ts';
import type { Logger } from '../log/index.ts';
import type { SpeechSource } from './types.ts';

/** How speech is transcoded for playback. */
export interface PlaybackOptions {
  readonly ffmpegPath: string;
  readonly logger: Logger;
  /** Where ffmpeg children are registered until reaped (the shutdown kill list). */
  readonly processes: FfmpegProcesses;
  /** Kill ffmpeg when it writes nothing for this long; the transcoder's default when absent. */
  readonly stallTimeoutMs?: number | undefined;
}

/** A speech item ready for `player.play`, and the ffmpeg run behind it. */
export interface OpenedSpeech {
  readonly resource: AudioResource<null>;
  /** Settles when ffmpeg has exited and been reaped; rejects with an FfmpegError on failure. */
  readonly transcode: Transcode;
}

/**
 * Opens the audio at `audioUrl` (through the source, e.g. the TTS client's media checks) and
 * starts ffmpeg on it, loudness-normalised. Aborting `signal` stops the download and kills ffmpeg.
 */
export async function openSpeech(
  source: Pick<SpeechSource, 'open'>,
  audioUrl: string,
  signal: AbortSignal,
  options: PlaybackOptions,
): Promise<OpenedSpeech> {
  const input = await source.open(audioUrl, signal);
  if (signal.aborted) {
    input.destroy();
    throw signal.reason;
  }
  const transcode = transcodeToOpus(input, {
    ffmpegPath: options.ffmpegPath,
    loudnorm: true,
    signal,
    processes: options.processes,
    stallTimeoutMs: options.stallTimeoutMs,
    logger: options.logger,
  });
  const resource = createAudioResource(transcode.output, { inputType: StreamType.OggOpus });
  return { resource, transcode };
}
