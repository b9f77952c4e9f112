import { describe, expect, test } from 'vitest';
import type { TranscodeArgsOptions } from '../../src/audio/args.ts';
import { buildTranscodeArgs, demuxerFor, NORMALIZE_FILTER } from '../../src/audio/args.ts';

/** Value following `flag`, or undefined when the flag is absent. */
function flagValue(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index === -1 ? undefined : args[index + 1];
}

describe('buildTranscodeArgs', () => {
  test.each<[string, TranscodeArgsOptions, Record<string, string | undefined>]>([
    [
      'defaults, no normalisation',
      { normalize: false },
      { '-af': undefined, '-b:a': '64k', '-t': undefined },
    ],
    ['normalise on', { normalize: true }, { '-af': NORMALIZE_FILTER }],
    ['custom bitrate', { normalize: false, bitrateKbps: 96 }, { '-b:a': '96k' }],
    ['bitrate rounded', { normalize: false, bitrateKbps: 47.6 }, { '-b:a': '48k' }],
    ['max duration in seconds', { normalize: false, maxDurationMs: 12_500 }, { '-t': '12.500' }],
    [
      'small probe by default',
      { normalize: false },
      { '-probesize': '16384', '-analyzeduration': '100000' },
    ],
    [
      'custom probe',
      { normalize: false, probeSizeBytes: 4096, analyzeDurationUs: 1000 },
      { '-probesize': '4096', '-analyzeduration': '1000' },
    ],
    ['probe size floor', { normalize: false, probeSizeBytes: 1 }, { '-probesize': '32' }],
    [
      'one frame per ogg page',
      { normalize: false },
      { '-page_duration': '20000', '-flush_packets': '1' },
    ],
    ['quiet', { normalize: false }, { '-loglevel': 'error' }],
  ])('%s', (_name, options, expected) => {
    const args = buildTranscodeArgs(options);
    for (const [flag, value] of Object.entries(expected)) expect(flagValue(args, flag)).toBe(value);
  });

  test.each<[string, TranscodeArgsOptions]>([
    ['normalise off', { normalize: false }],
    ['normalise on', { normalize: true }],
    ['everything', { normalize: true, bitrateKbps: 32, maxDurationMs: 1000, inputFormat: 'mp3' }],
  ])('fixed shape: %s', (_name, options) => {
    const args = buildTranscodeArgs(options);
    expect(args.slice(0, 4)).toEqual(['-hide_banner', '-nostdin', '-loglevel', 'error']);
    expect(args.slice(-3)).toEqual(['-f', 'ogg', 'pipe:1']);
    expect(flagValue(args, '-i')).toBe('pipe:0');
    expect(flagValue(args, '-ac')).toBe('2');
    expect(flagValue(args, '-ar')).toBe('48000');
    expect(flagValue(args, '-c:a')).toBe('libopus');
    // Complexity for speech (half libopus's default CPU, same distance to the source).
    expect(flagValue(args, '-compression_level')).toBe('3');
    expect(flagValue(args, '-map')).toBe('0:a:0');
    // Input options must come before -i to apply to the input.
    const input = args.indexOf('-i');
    expect(args.indexOf('-probesize')).toBeLessThan(input);
    expect(args.indexOf('-analyzeduration')).toBeLessThan(input);
    expect(args.indexOf('-c:a')).toBeGreaterThan(input);
  });

  test('forced input format goes before -i', () => {
    const args = buildTranscodeArgs({ normalize: false, inputFormat: 'mp3' });
    expect(args.indexOf('mp3')).toBe(args.indexOf('-i') - 1);
    expect(args[args.indexOf('mp3') - 1]).toBe('-f');
  });

  test('raw PCM (a live stream) is described before -i: -f f32le -ar 24000 -ac 1', () => {
    const rawInput = { format: 'f32le', sampleRate: 24_000, channels: 1 } as const;
    const args = buildTranscodeArgs({ normalize: true, rawInput });
    const input = args.indexOf('-i');
    expect(args.slice(input - 6, input)).toEqual(['-f', 'f32le', '-ar', '24000', '-ac', '1']);
    expect(args).not.toContain('-format_whitelist');
    expect(flagValue(args, '-protocol_whitelist')).toBe('pipe');
    // The output is still 48 kHz stereo Opus.
    expect(args.slice(input).join(' ')).toContain('-ac 2 -ar 48000 -c:a libopus');
  });

  test.each<[string, TranscodeArgsOptions]>([
    [
      'raw PCM with a demuxer too',
      {
        normalize: false,
        inputFormat: 'wav',
        rawInput: { format: 'f32le', sampleRate: 24_000, channels: 1 },
      },
    ],
    [
      'raw PCM at no rate',
      { normalize: false, rawInput: { format: 'f32le', sampleRate: 0, channels: 1 } },
    ],
    ['zero bitrate', { normalize: false, bitrateKbps: 0 }],
    ['complexity 11', { normalize: false, complexity: 11 }],
    ['negative duration', { normalize: false, maxDurationMs: -5 }],
    ['NaN probe size', { normalize: false, probeSizeBytes: Number.NaN }],
    ['infinite analyse', { normalize: false, analyzeDurationUs: Number.POSITIVE_INFINITY }],
  ])('rejects %s', (_name, options) => {
    expect(() => buildTranscodeArgs(options)).toThrow(RangeError);
  });
});

describe('only the expected demuxer and the pipe protocol run', () => {
  test.each<[string, TranscodeArgsOptions]>([
    ['no format', { normalize: false }],
    ['a sniffed format', { normalize: true, inputFormat: 'wav' }],
  ])('-protocol_whitelist pipe is always an input option (%s)', (_name, options) => {
    const args = buildTranscodeArgs(options);
    expect(flagValue(args, '-protocol_whitelist')).toBe('pipe');
    expect(args.indexOf('-protocol_whitelist')).toBeLessThan(args.indexOf('-i'));
  });

  test('an ffmpeg started before the format is known may probe only the plain audio demuxers', () => {
    const args = buildTranscodeArgs({ normalize: false });
    const allowed = flagValue(args, '-format_whitelist')?.split(',') ?? [];
    expect(allowed.sort()).toEqual(['aac', 'aiff', 'flac', 'matroska', 'mov', 'mp3', 'ogg', 'wav']);
    expect(args.indexOf('-format_whitelist')).toBeLessThan(args.indexOf('-i'));
  });

  test('with the sniffed format forced, no probing list is needed', () => {
    expect(buildTranscodeArgs({ normalize: false, inputFormat: 'mp3' })).not.toContain(
      '-format_whitelist',
    );
  });

  test.each(['wav', 'mp3', 'ogg', 'flac', 'mov', 'matroska', 'aac', 'aiff'])(
    'a sniffed %s is forced with -f right before -i',
    (format) => {
      const args = buildTranscodeArgs({ normalize: false, inputFormat: format });
      const input = args.indexOf('-i');
      expect(args.slice(input - 2, input)).toEqual(['-f', format]);
    },
  );

  test.each(['hls', 'concat', 'image2', 'lavfi', 'wav,mp3', '', 'tty'])(
    'an input format %j that could open other files is refused',
    (format) => {
      expect(() => buildTranscodeArgs({ normalize: false, inputFormat: format })).toThrow(
        RangeError,
      );
    },
  );

  test.each<[string, string | undefined]>([
    ['wav', 'wav'],
    ['mp3', 'mp3'],
    ['ogg', 'ogg'],
    ['opus', 'ogg'],
    ['oga', 'ogg'],
    ['flac', 'flac'],
    ['m4a', 'mov'],
    ['mp4', 'mov'],
    ['aac', 'aac'],
    ['webm', 'matroska'],
    ['mka', 'matroska'],
    ['aif', 'aiff'],
    ['m3u8', undefined],
    ['png', undefined],
    ['', undefined],
  ])('the sniffed extension %j reads with the demuxer %j', (extension, demuxer) => {
    expect(demuxerFor(extension)).toBe(demuxer);
  });
});
