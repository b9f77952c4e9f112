/** `/myvoice` and `/config member-name` in words, in every language the bot speaks (pure). */
import { describe, expect, test } from 'vitest';
import {
  describeMemberChange,
  describeMemberView,
  describeSpokenName,
} from '../../src/discord/index.ts';
import { LANGUAGES, translatorFor } from '../../src/i18n/index.ts';
import type { MemberView } from '../../src/settings/index.ts';
import type { Voice } from '../../src/tts/index.ts';

const ETHAN: Voice = {
  voiceId: 'am_2riuownnf',
  name: 'Ethan',
  gender: 'Male',
  accent: 'American',
  free: true,
  description: '',
};

const EVERYTHING: MemberView = {
  user: { voiceId: 'am_2riuownnf', language: 'de' },
  member: { read: false, name: 'Rob', nameBy: 'admin' },
  ignored: true,
};

describe.each(LANGUAGES)('in %s', (language) => {
  const translator = translatorFor(language);

  test('a bare /myvoice names every setting, with nothing left untranslated', () => {
    const lines = describeMemberView(translator, EVERYTHING, ETHAN, language).split('\n');
    expect(lines).toHaveLength(7);
    expect(lines.join('\n')).not.toMatch(/{{|myvoice\./);
    expect(lines[1]).toContain('Ethan');
    expect(lines[5]).toContain('Rob');
    const nothing = describeMemberView(
      translator,
      { user: {}, member: {}, ignored: false },
      undefined,
      language,
    );
    expect(nothing.split('\n')).toHaveLength(6);
  });

  test('each change and each reset has its line', () => {
    for (const reset of ['everything', 'voice', 'language', 'name'] as const) {
      expect(describeMemberChange(translator, { reset }, undefined, language)).not.toMatch(
        /{{|myvoice\./,
      );
    }
    const all = describeMemberChange(
      translator,
      { voiceId: 'am_2riuownnf', language: 'fr', read: false, name: 'Rob' },
      ETHAN,
      language,
    );
    expect(all.split('\n')).toHaveLength(4);
    expect(all).not.toMatch(/{{|myvoice\./);
  });

  test('/config member-name says whose name and who set it', () => {
    for (const member of [
      {},
      { name: 'Rob', nameBy: 'member' as const },
      { name: 'Rob', nameBy: 'admin' as const },
    ]) {
      const text = describeSpokenName(translator, '123', member);
      expect(text).toContain('<@123>');
      expect(text).not.toMatch(/{{|config\./);
    }
  });
});

test('names and labels are made inert: no mention, no markdown', () => {
  const text = describeMemberView(
    translatorFor('en'),
    { user: { voiceId: '`evil`' }, member: { name: '@everyone **x**' }, ignored: false },
    undefined,
    'en',
  );
  expect(text).not.toContain('@everyone');
  expect(text).toContain('\\*\\*x\\*\\*');
  expect(text).toContain('**Voice:** `ˋevilˋ`');
});
