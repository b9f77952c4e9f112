/**
 * Saturation: 100 `/say` (file) from 10 members of one server on one key, at the spec's limits
 * with time scaled down (emulator and bot alike): generations per minute against the 20/min
 * limit, 429s, and how unequal the members' waits were. The naive client gets the same 100
 * generations on its own key.
 */
import { setApiKey, startLocalStack } from '../tools/local-stack/index.ts';
import { benchText, benchUser, count429 } from './emulator-log.ts';
import { naiveGenerate } from './naive.ts';
import {
  formatNumber,
  formatRatio,
  medianSpread,
  meets,
  oursRow,
  type Row,
  responses429Row,
  sustainedRate,
} from './stats.ts';

/** Sizes of the saturation run. */
export interface SaturationPlan {
  readonly members: number;
  readonly perMember: number;
  /** Emulated minute as a share of a real one (0.1: a minute lasts 6 s). */
  readonly timeScale: number;
}

const LIMIT_PER_MINUTE = 20;

/** Runs the saturation benchmark and returns its rows. */
export async function saturationBench(plan: SaturationPlan): Promise<Row[]> {
  const minuteMs = 60_000 * plan.timeScale;
  const botUser = benchUser('saturation_bot');
  const naiveUser = benchUser('saturation_naive');
  const members = Array.from({ length: plan.members }, (_, i) => `member${i}`);
  const stack = await startLocalStack({
    emulator: {
      users: [botUser, naiveUser],
      timeScale: plan.timeScale,
      generationMs: (_model, length) => (800 + 15 * length) * plan.timeScale,
      maxLogEntries: 100_000,
    },
    discord: { extraUsers: members },
    env: {
      TTS_LIMITS: `generate=20/${minuteMs}ms+500/${Math.round(86_400_000 * plan.timeScale)}ms,status=60/${minuteMs}ms,voices=10/${minuteMs}ms,health=100/${minuteMs}ms`,
    },
  });
  const { discord, emulator } = stack;
  try {
    await setApiKey(discord, botUser.apiKey);
    emulator.reset();

    // Each member sends all of theirs at once, one member after the other: the hardest case
    // for fairness (a first-come queue serves the first member's ten before anyone else).
    const waits = new Map<string, number[]>();
    const started = Date.now();
    // Every text differs: identical speech would come from the bot's speech cache.
    const runs = members.flatMap((member, m) =>
      Array.from({ length: plan.perMember }, (_, i) => {
        const sent = Date.now();
        const handle = discord.slash({
          user: member,
          name: 'say',
          options: { text: benchText(40, m * plan.perMember + i), output: 'file' },
        });
        return handle
          .waitFor((event) => event.kind === 'edit' && event.files.length > 0, 20 * minuteMs)
          .then(() => {
            const list = waits.get(member) ?? [];
            list.push(Date.now() - sent);
            waits.set(member, list);
          });
      }),
    );
    // The naive client at the same time, on its own key (the emulator counts keys apart).
    const naive = Promise.allSettled(
      Array.from({ length: plan.members * plan.perMember }, (_, i) =>
        naiveGenerate({
          baseUrl: emulator.baseUrl,
          apiKey: naiveUser.apiKey,
          text: benchText(40, i),
          voiceId: 'am_2riuownnf',
          pollMs: 1000 * plan.timeScale,
        }),
      ),
    );
    const outcomes = await Promise.allSettled(runs);
    const delivered = outcomes.filter((o) => o.status === 'fulfilled').length;
    const oursRate = sustainedRate(
      submitTimes(emulator.requests, botUser.userId),
      LIMIT_PER_MINUTE,
      minuteMs,
    );
    const finished = Date.now();
    await naive;
    const log = emulator.requests;
    const naiveRate = sustainedRate(submitTimes(log, naiveUser.userId), LIMIT_PER_MINUTE, minuteMs);
    const ours429 = count429(log, [botUser]);
    const naive429 = count429(log, [naiveUser]);
    const spread = medianSpread(waits);
    const total = plan.members * plan.perMember;
    const minutes = (ms: number) => `${formatNumber(ms / minuteMs, 1)} min`;
    return [
      {
        section: 'Saturation',
        measure: `${total} /say from ${plan.members} members, one key (minute = ${minuteMs / 1000} s): generations per minute`,
        ours: `${formatNumber(oursRate, 1)} (${delivered}/${total} delivered in ${minutes(finished - started)})`,
        naive: formatNumber(naiveRate, 1),
        ratio: formatRatio(oursRate, naiveRate),
        target: `≥ ${0.95 * LIMIT_PER_MINUTE} (95 % of 20)`,
        met: meets(oursRate, { min: 0.95 * LIMIT_PER_MINUTE }),
      },
      responses429Row('Saturation', { ours: ours429, naive: naive429 }),
      oursRow(
        'Saturation',
        'fairness: members’ median waits, lowest – highest (spread)',
        `${minutes(spread.lowest)} – ${minutes(spread.highest)} (${minutes(spread.spread)})`,
      ),
    ];
  } finally {
    await stack.stop();
  }
}

function submitTimes(
  entries: readonly { endpoint: string; status: number; userId?: string; at: number }[],
  userId: string,
): number[] {
  return entries
    .filter((e) => e.endpoint === 'POST /v2/tts' && e.userId === userId && e.status < 300)
    .map((e) => e.at);
}
