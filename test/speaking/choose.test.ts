import { describe, expect, test } from 'vitest';
import { UserError } from '../../src/refusal/index.ts';
import { chooseOutput, type Output, pickVoice } from '../../src/speaking/index.ts';
import type { Voice } from '../../src/tts/index.ts';

const voice = (voiceId: string, free = true): Voice => ({
  voiceId,
  name: voiceId.toUpperCase(),
  gender: 'Female',
  accent: 'American',
  free,
  description: '',
});

function refusal(run: () => unknown): UserError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return error as UserError;
  }
  throw new Error('expected a UserError');
}

describe('chooseOutput', () => {
  test.each<[Output | undefined, string | undefined, string | undefined, Output]>([
    [undefined, 'vc1', 'vc1', 'voice'], // the bot is where the requester is
    [undefined, 'vc1', 'vc2', 'file'], // elsewhere: a file
    [undefined, 'vc1', undefined, 'file'], // the requester is in no channel
    [undefined, undefined, undefined, 'file'],
    [undefined, undefined, 'vc1', 'file'],
    ['file', 'vc1', 'vc1', 'file'], // asked for: kept
    ['voice', 'vc1', 'vc2', 'voice'], // voice from elsewhere is allowed while the bot is in one
  ])('asked %s, bot in %s, requester in %s: %s', (asked, bot, requester, expected) => {
    expect(chooseOutput(asked, bot, requester)).toBe(expected);
  });

  test('voice while the bot is in no channel is refused with the way out', () => {
    const error = refusal(() => chooseOutput('voice', undefined, 'vc1'));
    expect(error.id).toBe('say_not_in_voice');
    expect(error.message).toContain('/join');
  });
});

describe('pickVoice', () => {
  const voices = [voice('paid_one', false), voice('free_one'), voice('free_two')];

  test.each([
    [voices, 'free_two', 'free_two'], // asked for
    [voices, 'FREE_TWO', 'free_two'], // case-insensitively, as the API
    [voices, undefined, 'free_one'], // none asked: the first free one
    [[voice('paid_a', false), voice('paid_b', false)], undefined, 'paid_a'], // no free one: the first
  ])('%#: asked %s gets %s', (list, asked, expected) => {
    expect(pickVoice(list, asked, 'base').voiceId).toBe(expected);
  });

  test.each([
    [voices, 'nope', 'voice_not_found', 'There is no voice `nope` for the base model'],
    [[], undefined, 'no_voices', 'no voices for the base model'],
  ])('%#: refuses %s', (list, asked, id, message) => {
    const error = refusal(() => pickVoice(list, asked, 'base'));
    expect(error.id).toBe(id);
    expect(error.message).toContain(message);
  });

  test('an unknown id is echoed inert', () => {
    const error = refusal(() => pickVoice(voices, '<@123>`x`', 'base'));
    expect(error.message).not.toContain('<@123>');
    expect(error.message).not.toMatch(/`x`/);
  });
});
