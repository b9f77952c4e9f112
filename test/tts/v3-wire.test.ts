/** v3's pure parts: wire mapping, the allowance learned from headers, refusals on the stream. */
import { describe, expect, test } from 'vitest';
import type { SpeechRequest } from '../../src/tts/index.ts';
import {
  kindOfRefusal,
  LearnedWindow,
  resetTime,
  statusOf,
  streamUrl,
  v3Body,
} from '../../src/tts/v3/index.ts';

const NOW = 1_700_000_000_000;

describe('request bodies', () => {
  test.each<[string, SpeechRequest, Record<string, unknown>]>([
    [
      'base keeps its speed',
      { text: 'Hi there', voiceId: 'am_1', model: 'base', speed: 1.5 },
      { text: 'Hi there', voice_id: 'am_1', model: 'base', audio_format: 'wav', speed: 1.5 },
    ],
    [
      'advance is advanced, without speed or v2-only controls',
      {
        text: 'Hi there',
        voiceId: 'af_adv',
        model: 'advance',
        speed: 1.5,
        emotion: 'happy',
        temperature: 0.7,
        topP: 0.9,
      },
      { text: 'Hi there', voice_id: 'af_adv', model: 'advanced', audio_format: 'wav' },
    ],
  ])('%s', (_name, request, body) => {
    expect(v3Body(request)).toEqual(body);
  });
});

describe('statuses', () => {
  test.each([
    ['IN_QUEUE', 'Generating'],
    ['GENERATING', 'Generating'],
    ['COMPLETED', 'Completed'],
    ['FAILED', 'Failed'],
    ['EXPIRED', 'EXPIRED'],
    ['SOMETHING_NEW', 'SOMETHING_NEW'],
  ])('%s reads as %s (anything unknown stays text, a failure to the poller)', (v3, bot) => {
    expect(statusOf(v3)).toBe(bot);
  });
});

describe('X-RateLimit-Reset', () => {
  test.each<[string, string | null, number | undefined]>([
    ['Unix seconds', String(NOW / 1000 + 30), NOW + 30_000],
    ['epoch ms', String(NOW + 30_000), NOW + 30_000],
    ['seconds from now', '30', NOW + 30_000],
    ['absent', null, undefined],
    ['not a number', 'soon', undefined],
    ['too far off to believe', String(NOW / 1000 + 86_400), undefined],
  ])('%s', (_name, header, expected) => {
    expect(resetTime(header, NOW)).toBe(expected);
  });
});

function headers(limit: number, remaining: number, resetInS: number): Headers {
  return new Headers({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(NOW / 1000 + resetInS),
  });
}

describe('LearnedWindow', () => {
  test('nothing known: never a wait', () => {
    const window = new LearnedWindow();
    for (let i = 0; i < 100; i++) window.taken();
    expect(window.waitMs(NOW)).toBe(0);
  });

  test('what remains is spent by each request taken, then waited out to the reset', () => {
    const window = new LearnedWindow();
    window.taken();
    window.answered(headers(20, 2, 10), NOW);
    expect(window.limit).toBe(20);
    window.taken();
    expect(window.waitMs(NOW)).toBe(0);
    window.taken();
    expect(window.waitMs(NOW)).toBe(10_000);
    // A new window: the whole allowance again, until an answer says more.
    expect(window.waitMs(NOW + 10_000)).toBe(0);
  });

  test('requests still on their way count against what the server says remains', () => {
    const window = new LearnedWindow();
    for (let i = 0; i < 4; i++) window.taken();
    // The first answer: 3 remain, but 3 others are still on their way (maybe not counted yet).
    window.answered(headers(20, 3, 10), NOW);
    expect(window.waitMs(NOW)).toBe(10_000);
  });

  test('answers without headers change nothing but the count of requests in flight', () => {
    const window = new LearnedWindow();
    window.taken();
    window.answered(undefined, NOW);
    window.taken();
    window.answered(new Headers({ 'x-ratelimit-limit': '20' }), NOW);
    expect(window.limit).toBe(20);
    expect(window.waitMs(NOW)).toBe(0);
  });
});

describe('stream refusals', () => {
  test.each([
    [1008, 'Invalid API Key', 'invalid_key'],
    [1008, 'Rate limit exceeded. Please retry after 3 seconds.', 'rate_limited'],
    [1008, 'Concurrent generation limit reached (5 in progress).', 'rate_limited'],
    [
      1008,
      'Insufficient balance. Cost: $0.01, wallet: $0.00, topup: $0.00',
      'insufficient_balance',
    ],
    [1008, 'The active plan cannot access the requested model or voice', 'plan_required'],
    [1003, 'Voice not found', 'invalid_voice'],
    [1003, 'Validation error: text: Text is required', 'bad_request'],
    [1011, 'Generation failed', 'generation_failed'],
  ])('close %i with %j is %s', (code, text, kind) => {
    expect(kindOfRefusal(code, text)).toBe(kind);
  });

  test.each([
    ['https://api.audixa.ai/v3', 'wss://api.audixa.ai/v3/tts/stream'],
    ['http://127.0.0.1:4000/v3/', 'ws://127.0.0.1:4000/v3/tts/stream'],
  ])('the stream of %s is %s (no key in it)', (base, url) => {
    expect(streamUrl(base)).toBe(url);
  });
});
