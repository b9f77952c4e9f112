/**
 * Issue 27: the CPU one text costs to screen against a server's blocked words, with no list, a
 * realistic list and the worst list the settings allow (500 entries of 50 letters of `i` and
 * `l`, read against a text of `1`s). Before the step budget the worst cost 1.9 s at 300
 * characters, 8.6 s at 1,000 and 38 s for a 5,000-character `/say`, with the process stalled.
 */
import { cpuUsage } from 'node:process';
import { compileBlocklist, screenText } from '../src/speech/index.ts';
import { oursRow, type Row } from './stats.ts';

const BASE = [
  'ass',
  'bastard',
  'bitch',
  'bollocks',
  'crap',
  'cunt',
  'damn',
  'dick',
  'fuck',
  'hell',
  'idiot',
  'kill',
  'kys',
  'lil',
  'ill',
  'illegal',
  'moron',
  'piss',
  'prick',
  'pussy',
  'retard',
  'shit',
  'slut',
  'twat',
  'wanker',
  'whore',
];

/** About 230 entries: common insults and their plurals, suffixes and two-word forms. */
const REALISTIC = BASE.flatMap((w) => [
  w,
  `${w}s`,
  `${w}er`,
  `${w}y`,
  `${w}ing`,
  `${w} off`,
  `you ${w}`,
  `big ${w}`,
  `${w}face`,
]);

function worstList(): string[] {
  let seed = 27;
  const bit = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return (seed >> 16) & 1;
  };
  return Array.from({ length: 500 }, () =>
    Array.from({ length: 50 }, () => (bit() ? 'i' : 'l')).join(''),
  );
}

const CHAT = 'that was a great play lol did you see the last round, wow what an idiot move gg ';

function chatText(length: number): string {
  return CHAT.repeat(Math.ceil(length / CHAT.length)).slice(0, length);
}

/** Mean CPU ms of one screen of `text`, over enough runs to take about 200 ms (at least 3). */
function cpuMs(words: readonly string[], text: string): number {
  const matcher = compileBlocklist(words);
  screenText(matcher, text, 'bleep', 'beep');
  let runs = 0;
  const start = cpuUsage();
  let spent = 0;
  while (runs < 3 || (spent < 200 && runs < 10_000)) {
    screenText(matcher, text, 'bleep', 'beep');
    runs += 1;
    const used = cpuUsage(start);
    spent = (used.user + used.system) / 1000;
  }
  return spent / runs;
}

const ms = (value: number) => (value < 1 ? `${value.toFixed(3)} ms` : `${value.toFixed(1)} ms`);

/** Rows: CPU per text screened, ordinary chat / a text of `1`s, for each list and length. */
export async function blocklistBench(): Promise<Row[]> {
  const lists: [string, readonly string[]][] = [
    ['no list', []],
    [`a realistic list (${REALISTIC.length} entries)`, REALISTIC],
    ['the worst list (500 × 50 of i/l)', worstList()],
  ];
  const rows: Row[] = [];
  for (const [length, what] of [
    [300, 'a 300-character chat message'],
    [1_000, 'a 1,000-character chat message'],
    [5_000, 'a 5,000-character /say'],
  ] as const) {
    for (const [name, words] of lists) {
      const chat = cpuMs(words, chatText(length));
      const ones = cpuMs(words, '1'.repeat(length));
      const worst = name.startsWith('the worst');
      rows.push(
        oursRow(
          'blocklist',
          `CPU to screen ${what}, ${name}: chat text / a text of 1s`,
          `${ms(chat)} / ${ms(ones)}`,
          worst
            ? { text: '< 250 ms (was 1.9 s / 8.6 s / 38 s)', met: Math.max(chat, ones) < 250 }
            : { text: '', met: undefined },
        ),
      );
    }
  }
  return rows;
}
