/**
 * A generation id (or any text from the API) made safe to use in a file name: only
 * `[A-Za-z0-9_-]` is kept, at most `max` characters from the end (where ids differ),
 * and `speech` when nothing is left. No path separator or `..` can survive.
 */
export function safeFileStem(text: string, max = 100): string {
  const kept = text.replace(/[^A-Za-z0-9_-]/g, '').slice(-max);
  return kept === '' ? 'speech' : kept;
}
