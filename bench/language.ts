/**
 * Issue 31: the time the bot takes to decide one chat line's language (script rules, the ELD
 * identifier, the fallbacks), per line, over the five interface languages' chat lines, short
 * lines, mixed scripts and emoji; with the identifier's load time and heap, and how often it
 * is right. Runs in a few seconds.
 */
import { memoryUsage } from 'node:process';
import { type DetectLanguage, lineLanguage, loadLanguageDetector } from '../src/speech/index.ts';
import { V3_CONTROLS } from '../src/tts/v3/index.ts';
import { CHAT_LINES, SHORT_LINES } from '../test/speech/chat-lines.ts';
import { oursRow, percentile, type Row } from './stats.ts';

const OTHER_LINES = [
  'lol',
  'gg',
  '😂😂😂',
  'ok ありがとう',
  'hello 안녕하세요 bonjour',
  'привет всем',
];
const ROUNDS = 200;

const micro = (ns: number) => `${(ns / 1000).toFixed(1)} µs`;

/** Rows: load cost, per-line time (p50 / p99 / max), and lines right per table. */
export async function languageBench(): Promise<Row[]> {
  const heapBefore = memoryUsage().heapUsed;
  const loadStart = process.hrtime.bigint();
  const detect: DetectLanguage = await loadLanguageDetector();
  const loadMs = Number(process.hrtime.bigint() - loadStart) / 1e6;
  const heapMb = (memoryUsage().heapUsed - heapBefore) / 1e6;
  const fallbacks = {
    speakable: V3_CONTROLS.languages?.('advance') ?? [],
    member: 'de',
    server: 'en',
  };
  const lines = [...CHAT_LINES.map(([, l]) => l), ...SHORT_LINES.map(([, l]) => l), ...OTHER_LINES];
  for (const line of lines) lineLanguage(line, detect, fallbacks); // warm the JIT
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const line of lines) {
      const start = process.hrtime.bigint();
      lineLanguage(line, detect, fallbacks);
      times.push(Number(process.hrtime.bigint() - start));
    }
  }
  const right = (table: readonly (readonly [string, string])[]) =>
    table.filter(
      ([language, line]) =>
        lineLanguage(line, detect, { ...fallbacks, member: undefined, server: undefined }) ===
        language,
    ).length;
  const p99 = percentile(times, 0.99);
  return [
    oursRow(
      'language',
      `Language of one chat line (${lines.length} lines × ${ROUNDS}): p50 / p99 / max`,
      `${micro(percentile(times, 0.5))} / ${micro(p99)} / ${micro(Math.max(...times))}`,
      { text: 'p99 < 1 ms', met: p99 < 1e6 },
    ),
    oursRow(
      'language',
      'Identifier (eld/small) loaded once: time / heap',
      `${loadMs.toFixed(0)} ms / ${heapMb.toFixed(0)} MB`,
    ),
    oursRow(
      'language',
      'Right on chat lines (en, de, es, fr, ja) / two- and three-word lines',
      `${right(CHAT_LINES)}/${CHAT_LINES.length} / ${right(SHORT_LINES)}/${SHORT_LINES.length}`,
    ),
  ];
}
