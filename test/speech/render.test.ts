import { expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { voiceProgress } from '../../src/speech/index.ts';
import type { SpeakUpdate } from '../../src/voice/index.ts';

test.each<[SpeakUpdate, string]>([
  [{ state: 'cancelled' }, '⏹️ Removed from the queue.'],
  [
    { state: 'cancelled', reason: 'key_changed' },
    '⏹️ Cancelled: this server’s API key was changed while this was being generated. Send it again.',
  ],
  [
    { state: 'cancelled', reason: 'key_removed' },
    '⏹️ Cancelled: this server’s API key was removed.',
  ],
])('%j → %s', (update, text) => {
  expect(voiceProgress(translatorFor('en-US'), update, 0)).toBe(text);
});

test('a cancelled item says why in the member’s language', () => {
  expect(voiceProgress(translatorFor('de'), { state: 'cancelled', reason: 'key_removed' }, 0)).toBe(
    '⏹️ Abgebrochen: Der API-Schlüssel dieses Servers wurde entfernt.',
  );
});
