/**
 * `npm run demo`: the bot without a Discord token. Starts the TTS emulator, the fake Discord
 * and the real bot (embedded SQLite store) on 127.0.0.1, plays a short scripted tour, prints
 * it as a transcript, saves what the bot produced under demo/, then stops everything.
 */
import { join } from 'node:path';
import { FakeTwitch } from '../../test/fake-twitch/index.ts';
import { USER_ONE } from '../emulator/index.ts';
import { REPO_ROOT, startLocalStack } from '../local-stack/index.ts';
import { DEMO_DISCORD, runTour } from './tour.ts';

const started = Date.now();
const print = (line: string) => console.log(line);
print(
  'Starting the TTS emulator, a fake Discord (REST, gateway, voice), a fake Twitch chat and the bot…',
);
const twitch = await FakeTwitch.start();
const stack = await startLocalStack({
  emulator: { synth: 'auto' },
  discord: DEMO_DISCORD,
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
    `  emulator ${emulator.baseUrl} (${emulator.audioSource} audio), media ${emulator.mediaOrigin}`,
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
