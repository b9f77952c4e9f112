import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { describeDetail, errorForStatus, serviceText } from '../../src/tts/errors.ts';

describe('describeDetail', () => {
  test.each([
    [{ detail: 'Invalid API Key' }, 'Invalid API Key'],
    [
      { detail: { error: 'Text must be at least 30 characters long.' } },
      'Text must be at least 30 characters long.',
    ],
    [
      {
        detail: [
          { loc: ['body', 'speed'], msg: 'must be at most 2' },
          { loc: ['body', 'text'], msg: 'required' },
        ],
      },
      'speed: must be at most 2; text: required',
    ],
    [
      { detail: 'Too Many Requests', error: '20 per 1 minute' },
      'Too Many Requests: 20 per 1 minute',
    ],
    [{ detail: { code: 7 } }, '{"code":7}'],
    [{}, undefined],
    ['oops', undefined],
    [null, undefined],
  ])('%j → %j', (body, sentence) => {
    expect(describeDetail(body)).toBe(sentence);
  });
});

describe('errorForStatus', () => {
  test.each([
    [400, 'Invalid voice ID', 'invalid_voice'],
    [400, 'Invalid Emotion | Expected: [neutral]', 'bad_request'],
    [401, 'Invalid API Key', 'invalid_key'],
    [402, 'Insufficient Balance', 'insufficient_balance'],
    [403, 'This voice is only available for paid plans', 'plan_required'],
    [403, 'Access denied for this generation', 'access_denied'],
    [404, 'Generation not found', 'not_found'],
    [429, 'Too Many Requests', 'rate_limited'],
    [500, 'Error Occured while Creating generation', 'server_error'],
    [503, undefined, 'server_error'],
    [418, undefined, 'bad_request'],
  ])('%i %j → %s', (status, detail, kind) => {
    const error = errorForStatus(status, detail);
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.message).toBe(detail ?? `HTTP ${status}`);
  });
});

describe('serviceText', () => {
  const KEY = 'adx_live_key_0123456789';
  test.each([
    ['short text is kept', 'Text too short', 'Text too short'],
    ['the key is removed', `Invalid API Key: ${KEY}`, 'Invalid API Key: [API key]'],
    ['every copy of the key', `${KEY}/${KEY}`, '[API key]/[API key]'],
    ['control characters and runs of space', 'a\n\n\tb\u0000c   d', 'a b c d'],
    ['long text is cut at 300', 'x'.repeat(6000), `${'x'.repeat(299)}…`],
    [
      'a key straddling the cut is still removed',
      `${'y'.repeat(290)}${KEY}`,
      `${'y'.repeat(290)}[API key]`,
    ],
  ])('%s', (_name, text, expected) => {
    expect(serviceText(text, KEY)).toBe(expected);
  });

  test('never longer than 300 characters and never contains the key', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40 }).filter((key) => key.trim().length >= 8),
        fc.array(fc.oneof(fc.string(), fc.constant('KEY')), { maxLength: 40 }),
        (key, parts) => {
          const text = serviceText(
            parts.map((part) => (part === 'KEY' ? key : part)).join(''),
            key,
          );
          expect(text.length).toBeLessThanOrEqual(300);
          expect(text).not.toContain(key);
        },
      ),
    );
  });
});
