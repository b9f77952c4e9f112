/**
 * The rate-limit acceptance check at real scale (formerly tools/acceptance-30.ts): 30
 * generations requested at once on one key with the bot's production client settings. The
 * first 20 go at once, the other 10 one window (plus its margin) later, with no 429.
 */
import { startEmulator } from '../tools/emulator/index.ts';
import { benchText, benchUser, count429 } from './emulator-log.ts';
import { productionClients } from './production-client.ts';
import { formatNumber, meets, oursRow, type Row } from './stats.ts';

/** Runs 30 at once (takes about 65 s) and returns its rows. */
export async function acceptanceBench(count = 30): Promise<Row[]> {
  const user = benchUser('acceptance');
  const emulator = await startEmulator({ synth: 'tone', users: [user] });
  try {
    const client = productionClients(emulator).forKey(user.apiKey);
    const start = Date.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: count }, (_, i) =>
        client.generate({ text: benchText(60, i), voiceId: 'am_2riuownnf', model: 'base' }),
      ),
    );
    const elapsed = Date.now() - start;
    const log = emulator.requests;
    const submits = log
      .filter((e) => e.endpoint === 'POST /v2/tts' && e.status < 300)
      .map((e) => e.at - start);
    const firstMinute = submits.filter((at) => at < 60_000).length;
    const completed = outcomes.filter((o) => o.status === 'fulfilled').length;
    const too429 = count429(log, [user]);
    const later = submits.filter((at) => at >= 60_000);
    const expectedFirst = Math.min(count, 20);
    return [
      oursRow(
        'Acceptance (real minute)',
        `${count} at once on one key: completed, 429s, submits in the first minute / after`,
        `${completed}/${count} in ${formatNumber(elapsed / 1000, 1)} s; ${too429} × 429; ${firstMinute} / ${later.length} (the rest at ${formatNumber((Math.min(...later) || 0) / 1000, 1)} s)`,
        {
          text: `${count}/${count}, 0 × 429, ${expectedFirst} / ${count - expectedFirst}`,
          met:
            completed === count &&
            meets(too429, { max: 0 }) === true &&
            firstMinute === expectedFirst &&
            later.length === count - expectedFirst,
        },
      ),
    ];
  } finally {
    await emulator.close();
  }
}
