/** Shared helpers for the emulator tests: a tiny HTTP caller and a wait loop. */
import type { Emulator } from '../../tools/emulator/index.ts';

/** A decoded answer. */
export interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
}

/** Calls the emulator API at `path` (relative to the origin, e.g. `/v2/tts`). */
export async function call(
  emulator: Emulator,
  path: string,
  init: { key?: string; method?: string; body?: unknown; raw?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.key !== undefined) headers['x-api-key'] = init.key;
  let body: string | undefined;
  if (init.raw !== undefined) body = init.raw;
  else if (init.body !== undefined) body = JSON.stringify(init.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${emulator.origin}${path}`, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

/** A text of `length` characters, long enough for the 30-character minimum by default. */
export function text(length = 60): string {
  const words = 'The quick brown fox jumps over the lazy dog and keeps on running. ';
  return words.repeat(Math.ceil(length / words.length)).slice(0, length);
}

/** Waits until `check` returns true, polling in-process (no HTTP, no rate limits). */
export async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Submits a generation and returns its id. */
export async function submit(
  emulator: Emulator,
  key: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const answer = await call(emulator, '/v2/tts', {
    key,
    body: { text: text(), voice: 'am_2riuownnf', ...body },
  });
  if (answer.status !== 201)
    throw new Error(`submit answered ${answer.status}: ${JSON.stringify(answer.json)}`);
  return (answer.json as { generation_id: string }).generation_id;
}

/** Waits until a generation leaves `Generating`. */
export function settled(emulator: Emulator, id: string): Promise<void> {
  return until(() => emulator.generation(id)?.status !== 'Generating');
}
