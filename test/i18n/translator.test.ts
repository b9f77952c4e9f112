import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  limitText,
  localizations,
  relativeTime,
  translatorFor,
  windowText,
} from '../../src/i18n/index.ts';

describe('translatorFor', () => {
  test.each([
    ['en-US', 'en', 'This command works only in a server.'],
    ['de', 'de', 'Dieser Befehl funktioniert nur auf einem Server.'],
    ['fr', 'fr', 'Cette commande ne fonctionne que sur un serveur.'],
    ['es-ES', 'es-ES', 'Este comando solo funciona en un servidor.'],
    ['ja', 'ja', 'このコマンドはサーバー内でのみ使えます。'],
    ['pt-BR', 'en', 'This command works only in a server.'],
  ])('%s → %s', (locale, language, text) => {
    const translator = translatorFor(locale);
    expect(translator.language).toBe(language);
    expect(translator.t('errors.not_in_guild')).toBe(text);
  });

  test('plural forms follow the count in each language', () => {
    expect(translatorFor('en').t('stop.stopped', { count: 1 })).toBe(
      '⏹️ Stopped and cleared 1 item.',
    );
    expect(translatorFor('en').t('stop.stopped', { count: 3 })).toBe(
      '⏹️ Stopped and cleared 3 items.',
    );
    expect(translatorFor('de').t('stop.stopped', { count: 3 })).toBe(
      '⏹️ Gestoppt und 3 Einträge gelöscht.',
    );
    expect(translatorFor('ja').t('stop.stopped', { count: 3 })).toBe(
      '⏹️ 停止し、3 件を削除しました。',
    );
  });

  test('one member’s language never leaks into another’s reply', () => {
    const de = translatorFor('de');
    const en = translatorFor('en-US');
    expect(de.t('errors.nothing_playing')).toContain('Es läuft nichts');
    expect(en.t('errors.nothing_playing')).toBe('Nothing is playing or queued.');
    expect(de.t('errors.nothing_playing')).toContain('Es läuft nichts');
  });

  test('values are inserted verbatim: never interpolated again, nested or escaped', () => {
    const values = fc.oneof(
      fc.string(),
      fc.constantFrom('{{voice}}', '$t(errors.not_in_guild)', '$&', "$'", '<b>&amp;</b>', '{{'),
    );
    fc.assert(
      fc.property(values, values, (voice, elapsed) => {
        const text = translatorFor('en').t('say.generating', { voice, elapsed });
        expect(text).toBe(`🎙️ Generating with **${voice}**… (${elapsed})`);
      }),
    );
  });
});

describe('formatting', () => {
  test.each([
    ['en', 86_400_000, '1 day'],
    ['en', 60_000, '1 minute'],
    ['en', 7_200_000, '2 hours'],
    ['en', 1500, '1500 ms'],
    ['de', 86_400_000, '1 Tag'],
    ['fr', 172_800_000, '2 jours'],
    ['es-ES', 60_000, '1 minuto'],
    ['ja', 86_400_000, '1 日'],
  ])('%s: window %i ms → %s', (locale, ms, text) => {
    expect(windowText(translatorFor(locale), ms)).toBe(text);
  });

  test('limits and relative times', () => {
    expect(limitText(translatorFor('en'), { count: 500, windowMs: 86_400_000 })).toBe(
      '500 per 1 day',
    );
    expect(limitText(translatorFor('de'), { count: 500, windowMs: 86_400_000 })).toBe(
      '500 pro 1 Tag',
    );
    expect(relativeTime(translatorFor('en'), 1_800_000_000_001)).toBe('<t:1800000001:R>');
    expect(relativeTime(translatorFor('fr'), undefined)).toBe('bientôt');
  });

  test('localizations give every language but English', () => {
    expect(localizations('commands.say.description')).toEqual({
      de: 'Text in Sprache umwandeln',
      fr: 'Transformer du texte en parole',
      'es-ES': 'Convertir texto en voz',
      ja: 'テキストを音声にします',
    });
  });
});
