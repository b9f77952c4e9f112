/**
 * Writes `docs/usage-chart.png`, the admins' guide's picture of `/usage`: the same chart code the bot
 * runs (`chartSvg` + resvg), fed a fixed two weeks of made-up use against the vendor's daily limit.
 */
import { writeFile } from 'node:fs/promises';
import { DEFAULT_LIMITS } from '../src/tts/index.ts';
import { chartSvg, rasterize } from '../src/usage/index.ts';

const counts = [212, 348, 96, 500, 274, 31, 58, 402, 455, 263, 118, 489, 377, 164];
const daily = DEFAULT_LIMITS.generate.find((limit) => limit.windowMs === 86_400_000);
const days = counts.map((count, i) => ({ label: `05-${String(i + 1).padStart(2, '0')}`, count }));
const out = new URL('../docs/usage-chart.png', import.meta.url);
await writeFile(out, rasterize(chartSvg({ days, limit: daily?.count })).png);
console.log(`wrote ${out.pathname}`);
