import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  type DetectLanguage,
  lineLanguage,
  loadLanguageDetector,
  scriptVerdict,
} from '../../src/speech/index.ts';
import { V2_CONTROLS } from '../../src/tts/index.ts';
import { V3_CONTROLS, v3Body, v3LanguageCode } from '../../src/tts/v3/index.ts';
import { CHAT_LINES, SHORT_LINES } from './chat-lines.ts';

const ADVANCED = V3_CONTROLS.languages?.('advance') ?? [];
const BASE = V3_CONTROLS.languages?.('base') ?? [];

let detect: DetectLanguage;
beforeAll(async () => {
  detect = await loadLanguageDetector();
});

describe('lineLanguage with the shipped identifier', () => {
  test.each(CHAT_LINES)('%s: %s', (language, line) => {
    // The member and the server say otherwise: the text's own language wins.
    expect(lineLanguage(line, detect, { speakable: ADVANCED, member: 'sv', server: 'pl' })).toBe(
      language,
    );
  });

  test('short lines: right, or the fallback, never another language', () => {
    const wrong = SHORT_LINES.filter(([language, line]) => {
      const got = lineLanguage(line, detect, { speakable: ADVANCED, server: 'pl' });
      return got !== language && got !== 'pl';
    });
    expect(wrong).toEqual([]);
    // Most are still told (31 of 32 in docs/design/LANGUAGE.md's measure).
    const told = SHORT_LINES.filter(
      ([language, line]) => lineLanguage(line, detect, { speakable: ADVANCED }) === language,
    );
    expect(told.length).toBeGreaterThanOrEqual(SHORT_LINES.length - 2);
  });

  test.each([
    ['lol', 'member'],
    ['gg', 'member'],
    ['ok', 'member'],
    ['merci', 'member'],
    ['😂😂😂', 'member'],
    ['🔥 👀 💯', 'member'],
    ['!!!???', 'member'],
    ['12345', 'member'],
  ])('too short or no letters: %j falls back to the %s language', (line) => {
    expect(lineLanguage(line, detect, { speakable: ADVANCED, member: 'de', server: 'fr' })).toBe(
      'de',
    );
    expect(lineLanguage(line, detect, { speakable: ADVANCED, server: 'fr' })).toBe('fr');
    expect(lineLanguage(line, detect, { speakable: ADVANCED })).toBeUndefined();
  });

  test.each([
    ['草', 'de'],
    ['hello 안녕하세요 bonjour 你好 привет', 'de'],
    ['gg 真的吗', 'de'],
  ])('mixed scripts, or too little of one: %j falls back (%s)', (line, expected) => {
    expect(lineLanguage(line, detect, { speakable: ADVANCED, member: 'de', server: 'fr' })).toBe(
      expected,
    );
  });

  test.each([
    ['ありがとう', 'ja'],
    ['ok ありがとう', 'ja'],
    ['今日のstreamめっちゃ楽しい', 'ja'],
    ['ㅋㅋㅋ', 'ko'],
    ['안녕하세요 여러분', 'ko'],
    ['नमस्ते दोस्तों', 'hi'],
    ['привет всем', 'ru'],
    ['γεια σας', 'el'],
    ['שלום לכולם', 'he'],
    ['مرحبا بالجميع', 'ar'],
    ['今天直播几点开始', 'zh'],
  ])('the script alone decides, however short: %j → %s', (line, expected) => {
    expect(lineLanguage(line, detect, { speakable: ADVANCED, member: 'de', server: 'fr' })).toBe(
      expected,
    );
  });

  test('a language the model cannot speak is read in the server language, not the member one', () => {
    // Base speaks no German, Russian or Thai: the server's language, never skipped.
    const fallbacks = { speakable: BASE, member: 'it', server: 'es' };
    expect(lineLanguage('ich muss jetzt leider los, bis morgen', detect, fallbacks)).toBe('es');
    expect(lineLanguage('привет всем', detect, fallbacks)).toBe('es');
    expect(lineLanguage('สวัสดีครับทุกคน', detect, fallbacks)).toBe('es');
    // A server language the model cannot speak either: the model's default (none sent).
    expect(lineLanguage('привет всем', detect, { speakable: BASE, server: 'de' })).toBeUndefined();
    // Kana is Japanese whatever the model speaks: a model without Japanese reads it in the
    // server's language.
    expect(lineLanguage('こんにちは', detect, { speakable: ['en', 'fr'], server: 'fr' })).toBe(
      'fr',
    );
    expect(lineLanguage('こんにちは', detect, { speakable: ['en', 'fr'] })).toBeUndefined();
  });

  test('an API that takes no language (v2) never gets one', () => {
    expect(V2_CONTROLS.languages).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('en', 'de', 'ja'), (line, setting) => {
        expect(
          lineLanguage(line, detect, { speakable: [], member: setting, server: setting }),
        ).toBeUndefined();
      }),
    );
  });

  test('whatever the line, the language is one the model speaks, or none', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'grapheme' }),
          // Lines every script rule decides (kana, Hangul, Devanagari, Cyrillic, Han).
          fc.constantFrom(
            'こんにちは',
            '안녕하세요 여러분',
            'नमस्ते दोस्तों',
            'привет всем',
            '今日天气很好',
          ),
        ),
        fc.subarray([...ADVANCED]),
        (line, speakable) => {
          const got = lineLanguage(line, detect, { speakable, member: 'de', server: 'xx' });
          expect(got === undefined || speakable.includes(got)).toBe(true);
        },
      ),
    );
  });
});

describe('scriptVerdict', () => {
  test.each([
    ['', 'none'],
    ['🎉', 'none'],
    ['hello there', 'latin'],
    ['こんにちは', 'decided'],
    ['hello there everyone こんにちは', 'mixed'],
    ['สวัสดี', 'other'],
  ])('%j → %s', (line, kind) => {
    expect(scriptVerdict(line, ADVANCED).kind).toBe(kind);
  });

  test('Cyrillic decides only where one language written in it is speakable', () => {
    expect(scriptVerdict('привет', ['ru', 'en'])).toEqual({ kind: 'decided', language: 'ru' });
    expect(scriptVerdict('привет', ['ru', 'uk']).kind).toBe('latin');
  });
});

describe("v3's language_code", () => {
  test.each([
    ['base', 'en', 'a'],
    ['base', 'ja', 'j'],
    ['base', 'zh', 'z'],
    ['base', 'es', 'e'],
    ['base', 'fr', 'f'],
    ['base', 'hi', 'h'],
    ['base', 'it', 'i'],
    ['base', 'pt', 'p'],
    ['base', 'de', undefined],
    ['advance', 'de', 'de'],
    ['advance', 'ja', 'ja'],
    ['advance', 'th', undefined],
  ] as const)('%s model, %s → %s', (model, language, code) => {
    expect(v3LanguageCode(model, language)).toBe(code);
    const body = v3Body({ text: 'hi', voiceId: 'v', model, language });
    expect(body.language_code).toBe(code);
  });

  // Base's English follows the voice's accent: a British voice (`bf_`/`bm_`, accent British in
  // the voice list) read with `a` sounds American.
  test.each([
    ['base', 'bf_jp71qvnzd', 'en', 'b'],
    ['base', 'bm_5tyh0q2xw', 'en', 'b'],
    ['base', 'af_3kbq21leo', 'en', 'a'],
    ['base', 'am_2riuownnf', 'en', 'a'],
    ['base', 'bf_jp71qvnzd', 'ja', 'j'],
    ['base', 'custom-clone', 'en', 'a'],
    ['advance', 'bf_adv_j4r7t0', 'en', 'en'],
  ] as const)('%s model, voice %s, %s → %s', (model, voiceId, language, code) => {
    expect(v3Body({ text: 'hi', voiceId, model, language }).language_code).toBe(code);
  });

  test('no language, no language_code', () => {
    expect(v3Body({ text: 'hi', voiceId: 'v', model: 'base' })).not.toHaveProperty('language_code');
  });
});
