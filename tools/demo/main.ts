/**
 * `npm run demo`: the bot without a Discord token. Starts the TTS emulator, the fake Discord
 * and the real bot (embedded SQLite store) on 127.0.0.1, plays a short scripted tour, prints
 * it as a transcript, saves what the bot produced under demo/, then stops everything. The bot
 * speaks the vendor's API v2, or v3 with `TTS_API_VERSION=v3` (as `npm start` reads it).
 */
import { join } from 'node:path';
import { FakeTwitch } from '../../test/fake-twitch/index.ts';
import { USER_ONE } from '../emulator/index.ts';
import { botApiEnv, REPO_ROOT, startLocalStack } from '../local-stack/index.ts';
import { DEMO_DISCORD, runTour } from './tour.ts';

const started = Date.now();
const print = (line: string) => console.log(line);
const api = process.env.TTS_API_VERSION ?? 'v2';
if (api !== 'v2' && api !== 'v3') {
  console.error(`demo: TTS_API_VERSION must be v2 or v3, not "${api}"`);
  process.exit(1);
}
print(
  'Starting the TTS emulator, a fake Discord (REST, gateway, voice), a fake Twitch chat and the bot…',
);
const twitch = await FakeTwitch.start();
const stack = await startLocalStack({
  emulator: { synth: 'auto' },
  discord: DEMO_DISCORD,
  api,
  env: { TWITCH_CHAT_URL: twitch.url },
});
let failed = false;
// Ctrl-C still stops every process the demo started.
process.once('SIGINT', () => {
  void Promise.all([stack.stop(), twitch.close()]).then(() => process.exit(130));
});
try {
  const { emulator, discord, bot } = stack;
  print(
    `  emulator ${botApiEnv(emulator, api).TTS_API_URL} (${emulator.audioSource} audio), media ${emulator.mediaOrigin}`,
  );
  print(
    api === 'v3'
      ? "  the bot speaks the vendor's TTS API v3 (TTS_API_VERSION=v3): voice and chat speech streamed over a WebSocket"
      : "  the bot speaks the vendor's TTS API v2 (TTS_API_VERSION=v3 for v3)",
  );
  print(`  fake Discord ${discord.apiUrl}, server "${discord.guild.name}"`);
  print(`  fake Twitch chat ${twitch.url}`);
  print(`  bot pid ${bot.pid}, logged in and ready`);
  await runTour({
    ...{ stack, twitch, print },
    apiKey: USER_ONE.apiKey,
    outDir: join(REPO_ROOT, 'demo'),
  });
} catch (error) {
  failed = true;
  console.error(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await stack.stop();
  await twitch.close();
}
print(
  `\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s; every process the demo started has stopped.`,
);
if (failed) process.exitCode = 1;
