import { describe, expect, test } from 'vitest';
import { describeFailure } from '../../src/discord/index.ts';
import { translatorFor } from '../../src/i18n/index.ts';
import { UserError, userRefusal } from '../../src/refusal/index.ts';
import { StoreUnavailableError, UnreadableKeyError } from '../../src/store/index.ts';
import { TtsError, type TtsErrorKind } from '../../src/tts/index.ts';

const en = translatorFor('en-US');

test.each<[TtsErrorKind, string]>([
  ['invalid_key', '`/config api-key`'],
  ['access_denied', 'denied access (generation `base_1`)'],
  ['plan_required', 'only available on paid plans'],
  ['invalid_voice', 'does not know that voice'],
  ['not_found', 'could not find that (generation `base_1`)'],
  ['bad_request', 'refused the request: detail text'],
  ['insufficient_balance', 'run out of credits'],
  ['rate_limited', 'busy for this server right now; try again <t:'],
  ['quota_exhausted', 'used its TTS quota'],
  ['server_error', 'internal error'],
  ['timeout', 'could not be reached'],
  ['network', 'could not be reached'],
  ['malformed_response', 'something unexpected'],
  ['media_refused', 'something unexpected'],
  ['generation_failed', 'could not generate this speech (generation `base_1`): detail text'],
  ['generation_timeout', 'taking too long to generate (generation `base_1`)'],
])('%s → %s', (kind, text) => {
  const error = new TtsError(
    kind,
    kind === 'generation_failed' ? 'generation base_1 failed: detail text' : 'detail text',
    { generationId: 'base_1', retryAt: 1_800_000_000_000 },
  );
  const failure = describeFailure(error, en);
  expect(failure.text).toContain(text);
  expect(failure.incidentId).toBeUndefined();
});

test('a daily quota says when it frees up', () => {
  const error = new TtsError('quota_exhausted', 'the generate limit of 500 per 1 day is used up', {
    retryAt: 1_800_000_000_000,
    limit: { count: 500, windowMs: 86_400_000 },
  });
  expect(describeFailure(error, en).text).toBe(
    'This server has used its TTS quota (500 per 1 day). It frees up <t:1800000000:R>.',
  );
});

test('an unreadable stored key tells admins to set it again', () => {
  const error = new UnreadableKeyError('1', { cause: new Error('bad decrypt') });
  expect(describeFailure(error, en).text).toContain('set it again with `/config api-key`');
});

test('user errors render their id with its context; anything else gets an apology and an incident id', () => {
  expect(describeFailure(new UserError('queue_full', { max: 20 }), en)).toEqual({
    text: 'The queue is full (20 items). Try again when it has moved on.',
  });
  const unexpected = describeFailure(new Error('database exploded: password=hunter2'), en);
  expect(unexpected.incidentId).toMatch(/^[0-9a-f]{8}$/);
  expect(unexpected.text).toBe(
    `Sorry, something went wrong on our side. (incident \`${unexpected.incidentId}\`)`,
  );
  expect(unexpected.text).not.toContain('hunter2');
});

test('a user error keeps its English text as its message, for logs', () => {
  const error = new UserError('text_too_short', { min: 30, length: 9 });
  expect(error.message).toBe(
    'The text is too short: the TTS service needs at least 30 characters (this has 9).',
  );
  expect(error.id).toBe('text_too_short');
});

test.each([
  ['de', 'Die Warteschlange ist voll (20 Einträge).'],
  ['fr', 'La file est pleine (20 éléments).'],
  ['es-ES', 'La cola está llena (20 elementos).'],
  ['ja', 'キューがいっぱいです（20 件）。'],
  ['pt-BR', 'The queue is full (20 items).'],
])('failures follow the member’s locale: %s', (locale, text) => {
  expect(
    describeFailure(new UserError('queue_full', { max: 20 }), translatorFor(locale)).text,
  ).toContain(text);
});

test('a TTS quota in German names the limit and the time in German', () => {
  const error = new TtsError('quota_exhausted', 'used up', {
    retryAt: 1_800_000_000_000,
    limit: { count: 500, windowMs: 86_400_000 },
  });
  expect(describeFailure(error, translatorFor('de')).text).toBe(
    'Dieser Server hat sein TTS-Kontingent aufgebraucht (500 pro 1 Tag). Es wird <t:1800000000:R> wieder frei.',
  );
});

test('a store outage says nothing was done and when to try again, in the member’s language', () => {
  const error = new StoreUnavailableError('the store failed get: offline');
  expect(describeFailure(error, en)).toEqual({
    text: 'I cannot reach my storage right now, so nothing was done. Please try again in a minute.',
  });
  expect(describeFailure(error, translatorFor('de')).text).toContain(
    'Ich erreiche meinen Speicher',
  );
});

test.each<TtsErrorKind>(['bad_request', 'generation_failed'])(
  '%s: the service’s words and the generation id are shown inert',
  (kind) => {
    const error = new TtsError(kind, 'generation x failed: **bold** @everyone <@1> `code`', {
      generationId: 'base_1` @here **x**',
    });
    const { text } = describeFailure(error, en);
    const unescaped = text.replace(/\\`/g, '');
    // One code span at most (the id, where nothing renders), and nothing live outside it.
    expect(unescaped.match(/`/g)?.length ?? 0).toBeLessThanOrEqual(2);
    expect(unescaped.replace(/`[^`]*`/, '')).not.toMatch(/@everyone|@here|<@1>|\*\*bold\*\*/);
  },
);

describe('refusals that say when they free up', () => {
  test.each([
    [
      'member_queue_full',
      { max: 3, freesAt: 1_700_000_000_500 },
      ['You already have 3 items waiting', '<t:1700000001:R>'],
    ],
    [
      'member_queue_full',
      { max: 1, freesAt: 1_700_000_000_000 },
      ['You already have 1 item waiting', '<t:1700000000:R>'],
    ],
    [
      'member_daily_limit',
      { share: 100, freesAt: 1_700_006_400_000 },
      ['(100 per member per day)', '<t:1700006400:R>', '`/config limits`'],
    ],
  ] as const)('%s %j says %j', (id, context, parts) => {
    const error = userRefusal(id, context as never);
    expect(error).toBeInstanceOf(UserError);
    expect(error.id).toBe(id);
    const { text, incidentId } = describeFailure(error, en);
    expect(incidentId).toBeUndefined();
    for (const part of parts) expect(text).toContain(part);
  });

  test('in German, with the plural the number needs', () => {
    const de = translatorFor('de');
    expect(
      describeFailure(userRefusal('member_queue_full', { max: 1, freesAt: 0 }), de).text,
    ).toContain('Du hast schon 1 Eintrag in der Warteschlange');
    expect(
      describeFailure(userRefusal('member_queue_full', { max: 3, freesAt: 0 }), de).text,
    ).toContain('Du hast schon 3 Einträge in der Warteschlange');
  });
});
