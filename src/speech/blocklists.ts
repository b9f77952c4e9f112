/**
 * Compiled blocklists shared by the servers that have the same words, so a list is compiled
 * once when it changes rather than for every message; and the one rule both chat and `/say`
 * apply to a text with a blocked word. Pure apart from the bounded cache.
 */
import { type BlocklistMatcher, bleepSpans, compileBlocklist } from './blocklist.ts';

/** Lists kept compiled; the least recently used goes first. */
const KEPT = 200;

/** Compiled blocklists by their words. */
export class BlocklistCache {
  readonly #compiled = new Map<string, BlocklistMatcher>();

  /** The matcher for `words`, compiled on first use. */
  matcher(words: readonly string[]): BlocklistMatcher {
    const key = words.join('\n');
    const found = this.#compiled.get(key);
    if (found !== undefined) {
      this.#compiled.delete(key);
      this.#compiled.set(key, found);
      return found;
    }
    const compiled = compileBlocklist(words);
    this.#compiled.set(key, compiled);
    for (const oldest of this.#compiled.keys()) {
      if (this.#compiled.size <= KEPT) break;
      this.#compiled.delete(oldest);
    }
    return compiled;
  }
}

/** A text screened against blocked words: clean, bleeped, or not to be read at all. */
export type Screened =
  | { readonly blocked: false; readonly text: string; readonly bleeped: boolean }
  | { readonly blocked: true };

/**
 * Applies the server's rule (`skip` or `bleep` with `bleepWord`) to `text`. A text too costly to
 * match against the list (see `STEP_BUDGET`) is blocked in either mode: there is no word in it
 * to bleep.
 */
export function screenText(
  matcher: BlocklistMatcher,
  text: string,
  mode: 'skip' | 'bleep',
  bleepWord: string,
): Screened {
  const spans = matcher.size === 0 ? [] : matcher.find(text);
  if (spans.length === 0) return { blocked: false, text, bleeped: false };
  if (mode === 'skip' || spans.some((span) => span.tooCostly)) return { blocked: true };
  return { blocked: false, text: bleepSpans(text, spans, bleepWord), bleeped: true };
}

/**
 * `text` screened as said right after `before` by the same author: a blocked word spelled over
 * messages that are read in turns of their own ("f", then "u", "c", "k") is caught in the message
 * that completes it. Spans inside `before` alone were screened with their own message and are
 * left alone; a span reaching into `text` blocks it under `skip`, or is bleeped over the part of it
 * in `text` (a lone "k" becomes the bleep). With `after`, what the author said after it (an edit
 * of an older message: "f", "u", "x", "k" with "x" edited to "c"), a span reaching from `text` into
 * `after` counts too. With `before` and `after` empty this is {@link screenText}.
 */
export function screenAfter(
  matcher: BlocklistMatcher,
  before: string,
  text: string,
  mode: 'skip' | 'bleep',
  bleepWord: string,
  after = '',
): Screened {
  if ((before === '' && after === '') || matcher.size === 0)
    return screenText(matcher, text, mode, bleepWord);
  const offset = before === '' ? 0 : before.length + 1;
  const joined = `${before === '' ? '' : `${before} `}${text}${after === '' ? '' : ` ${after}`}`;
  const spans = matcher
    .find(joined)
    .filter((span) => span.end > offset && span.start < offset + text.length)
    .map((span) => ({
      ...span,
      start: Math.max(0, span.start - offset),
      end: Math.min(text.length, span.end - offset),
    }));
  if (spans.length === 0) return { blocked: false, text, bleeped: false };
  if (mode === 'skip' || spans.some((span) => span.tooCostly)) return { blocked: true };
  return { blocked: false, text: bleepSpans(text, spans, bleepWord), bleeped: true };
}
