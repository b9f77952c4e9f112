/**
 * What the bot spoke during a step of the tour, from the emulator's records on the stack's API
 * version: on v2 the audio it downloaded, on v3 also the speech it streamed to the end.
 */
import type { ReceivedAudio } from '../../test/fake-discord/voice/index.ts';
import { heardGenerations, heardText, wavDurationMs } from '../emulator/index.ts';
import type { LocalStack } from '../local-stack/index.ts';

/** One generation the bot heard: what it said, and in which voice. */
export interface HeardLine {
  readonly id: string;
  readonly text: string;
  readonly voiceId: string;
}

type Heard = Pick<LocalStack, 'emulator' | 'api'>;

/** The phrases none of `texts` contains yet (ignoring case): what is still to be heard. */
export function unheard(phrases: readonly string[], texts: readonly string[]): string[] {
  const all = texts.join('\n').toLowerCase();
  return phrases.filter((phrase) => !all.includes(phrase.toLowerCase()));
}

/** Ids of every generation heard so far: the mark a step's own speech comes after. */
export function heardSoFar(stack: Heard): ReadonlySet<string> {
  return new Set(heardGenerations(stack.emulator, stack.api));
}

/** The generations heard since `before` was marked, each once, in the order the bot asked for them. */
export function heardSince(stack: Heard, before: ReadonlySet<string>): HeardLine[] {
  const ids = new Set(heardGenerations(stack.emulator, stack.api).filter((id) => !before.has(id)));
  return [...ids].map((id) => {
    const said = heardText(stack.emulator, stack.api, id);
    return { id, text: said?.text ?? '', voiceId: said?.voiceId ?? '' };
  });
}

/**
 * Waits until what was heard since `before` contains every one of `phrases`, and returns it;
 * throws at `deadline` naming `what` was not read aloud and the phrases never heard.
 */
export async function waitUntilHeard(
  stack: Heard,
  before: ReadonlySet<string>,
  phrases: readonly string[],
  { deadline, what }: { readonly deadline: number; readonly what: string },
): Promise<HeardLine[]> {
  for (;;) {
    const lines = heardSince(stack, before);
    const missing = unheard(
      phrases,
      lines.map((line) => line.text),
    );
    if (missing.length === 0) return lines;
    if (Date.now() > deadline) {
      throw new Error(`demo: ${what} was not read aloud (never heard: ${missing.join('; ')})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until the fake voice server has received about as much audio as `lines` last (every
 * one of them played, not only made), and returns what it received since its last reset.
 */
export async function waitUntilPlayed(
  stack: Pick<LocalStack, 'emulator' | 'discord' | 'voiceServer'>,
  lines: readonly HeardLine[],
  timeoutMs: number,
): Promise<ReceivedAudio> {
  const expectedMs = lines.reduce((sum, { id }) => {
    const audio = stack.emulator.audioOf(id);
    if (audio === undefined) throw new Error(`demo: the emulator has no audio for ${id}`);
    return sum + wavDurationMs(audio);
  }, 0);
  return stack.voiceServer.waitForAudio(stack.discord.guild.id, {
    minDurationMs: expectedMs * 0.9,
    timeoutMs: expectedMs + timeoutMs,
  });
}
