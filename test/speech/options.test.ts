import { describe, expect, test } from 'vitest';
import {
  type SayOptions,
  type ValidatedSay,
  validateSay,
  withinControls,
} from '../../src/speech/index.ts';
import { V2_CONTROLS } from '../../src/tts/index.ts';
import { V3_CONTROLS } from '../../src/tts/v3/index.ts';

const base: SayOptions = { text: '', voice: null, model: null, speed: null, emotion: null };
const bounds = { min: 5, max: 50 };
const none = { user: {}, guild: {} };

describe('validateSay', () => {
  test.each([
    [{}, none, { model: 'base', voiceId: undefined, speed: undefined, emotion: undefined }],
    [{ voice: ' am_x ' }, none, { voiceId: 'am_x' }],
    [{}, { user: { voiceId: 'u_v' }, guild: { voiceId: 'g_v' } }, { voiceId: 'u_v' }],
    [
      {},
      { user: {}, guild: { voiceId: 'g_v', model: 'advance' as const, speed: 1.5 } },
      { voiceId: 'g_v', model: 'advance', speed: 1.5 },
    ],
    [{ model: 'advance', emotion: 'happy' }, none, { model: 'advance', emotion: 'happy' }],
    [{ speed: 0.5 }, none, { speed: 0.5 }],
  ])('%j with defaults %j → %j', (options, defaults, expected) => {
    expect(validateSay({ ...base, ...options }, 'hello world', defaults, bounds)).toMatchObject(
      expected,
    );
  });

  test.each([
    ['', {}, 'nothing to say'],
    ['hey', {}, 'too short: the TTS service needs at least 5 characters (this has 3)'],
    ['x'.repeat(51), {}, 'too long: at most 50 characters (this has 51)'],
    ['hello world', { model: 'turbo' }, 'Unknown model "turbo"'],
    ['hello world', { speed: 3 }, 'between 0.5 and 2'],
    ['hello world', { emotion: 'happy' }, 'only with the `advance` model'],
    ['hello world', { model: 'advance', emotion: 'bored' }, 'Unknown emotion "bored"'],
  ])('%j %j is refused: %s', (spoken, options, message) => {
    expect(() => validateSay({ ...base, ...options }, spoken, none, bounds)).toThrow(message);
  });
});

describe('withinControls', () => {
  const say = (change: Partial<ValidatedSay>): ValidatedSay => ({
    text: 'hello there',
    voiceId: undefined,
    model: 'base',
    speed: undefined,
    emotion: undefined,
    ...change,
  });
  const chosen = { speed: true };
  const defaulted = { speed: false };

  test('v2 applies everything validateSay lets through', () => {
    const asked = say({ model: 'advance', speed: 1.5, emotion: 'happy' });
    expect(withinControls(V2_CONTROLS, asked, chosen)).toEqual(asked);
  });

  test('v3: an emotion is refused; speed on Base is kept', () => {
    expect(() =>
      withinControls(V3_CONTROLS, say({ model: 'advance', emotion: 'happy' }), defaulted),
    ).toThrow(expect.objectContaining({ id: 'emotion_not_offered' }));
    expect(withinControls(V3_CONTROLS, say({ speed: 1.5 }), chosen).speed).toBe(1.5);
  });

  test('v3: speed on Advanced is refused when the member chose it, and left out when it is the server default', () => {
    expect(() =>
      withinControls(V3_CONTROLS, say({ model: 'advance', speed: 1.5 }), chosen),
    ).toThrow(expect.objectContaining({ id: 'speed_needs_base' }));
    expect(withinControls(V3_CONTROLS, say({ model: 'advance', speed: 1.5 }), defaulted)).toEqual(
      say({ model: 'advance' }),
    );
  });

  test('v3: an emotion is refused as not offered before any advice to use advance', () => {
    const options = { ...base, emotion: 'happy' };
    expect(() => validateSay(options, 'hello there', none, bounds, V3_CONTROLS)).toThrow(
      expect.objectContaining({ id: 'emotion_not_offered' }),
    );
    expect(() => validateSay(options, 'hello there', none, bounds, V2_CONTROLS)).toThrow(
      expect.objectContaining({ id: 'emotion_needs_advance' }),
    );
  });
});
