/** What `/config forget` tells the admin it deleted: a line per kind that had anything. */
import { describe, expect, test } from 'vitest';
import { describeForgetReport } from '../../src/discord/forget-reply.ts';
import { translatorFor } from '../../src/i18n/index.ts';
import type { ForgetReport } from '../../src/privacy/index.ts';

const NOTHING: ForgetReport = {
  apiKey: false,
  settings: false,
  readChannels: 0,
  twitchChannels: 0,
  twitchVoices: 0,
  twitchMuted: 0,
  memberSettings: 0,
  dictionaryEntries: 0,
  blockedWords: 0,
  pendingSpeech: 0,
  usageDays: 0,
  previews: 0,
  cachedSpeech: 0,
  keptKeyRecords: undefined,
};

describe('describeForgetReport', () => {
  test('every list of the server is named with its count, the Twitch channels and blocked words too', () => {
    const text = describeForgetReport(translatorFor('en'), {
      ...NOTHING,
      settings: true,
      readChannels: 1,
      twitchChannels: 2,
      twitchVoices: 4,
      twitchMuted: 1,
      memberSettings: 2,
      blockedWords: 3,
    });
    expect(text.split('\n')).toEqual([
      translatorFor('en').t('config.forget_done'),
      '• the settings (defaults, limits, reader)',
      '• 1 read channel',
      '• 2 Twitch channels read',
      '• 4 voices Twitch chatters chose with !voice',
      '• 1 Twitch chatter muted from chat',
      '• 2 members’ own settings (opted out, spoken names)',
      '• 3 blocked words',
    ]);
  });

  test('in the admin’s language, with its plural forms', () => {
    const text = describeForgetReport(translatorFor('fr'), { ...NOTHING, twitchChannels: 1 });
    expect(text).toContain('• 1 chaîne Twitch lue');
  });

  test('nothing stored: says so', () => {
    expect(describeForgetReport(translatorFor('en'), NOTHING)).toBe(
      translatorFor('en').t('config.forget_nothing'),
    );
  });
});
