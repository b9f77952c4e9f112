import { describe, expect, test } from 'vitest';
import { heardOfSpammy, SPAM_PHRASES, spammyScript } from '../../bench/chat-plan.ts';

describe('the spammy chat of the benchmark', () => {
  const script = spammyScript({ messages: 300, members: 20, durationMs: 60_000 });

  test('a third are repeats of a few phrases, one member posts about a fifth, in time order', () => {
    const spam = script.filter((line) => SPAM_PHRASES.includes(line.text));
    const flooder = script.filter((line) => line.member === 0);
    expect(spam.length / 300).toBeGreaterThan(0.28);
    expect(spam.length / 300).toBeLessThan(0.4);
    expect(flooder.length / 300).toBeGreaterThan(0.15);
    expect(flooder.length / 300).toBeLessThan(0.25);
    expect(spam.every((line) => line.member !== 0)).toBe(true);
    expect(script.map((line) => line.atMs)).toEqual(
      script.map((l) => l.atMs).sort((a, b) => a - b),
    );
  });

  test('heard counts unique lines read, each repeat read, and the bot’s chorus count', () => {
    const first = script.find((line) => line.member === 0);
    const texts = [
      `viewer0 said ${first?.text}. 5 people said LUL.`,
      'viewer3 said KEKW. Here is what the chat says. viewer4 said PogChamp.',
    ];
    expect(heardOfSpammy(texts, script, 4)).toEqual({ heard: 1 + 3 + 4, flooder: 1 });
  });
});
