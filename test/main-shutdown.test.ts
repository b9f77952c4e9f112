/** Graceful shutdown of the real bot process (`src/main.ts`) on SIGTERM and SIGINT. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openKeyv } from '../src/store/index.ts';
import { USER_ONE } from '../tools/emulator/index.ts';
import { type ProcessWorld, startProcessWorld } from './support/process-world.ts';

let world: ProcessWorld;
beforeAll(async () => {
  // Generations take long enough to be in flight when the signal comes.
  world = await startProcessWorld({ emulator: { generationMs: () => 30_000 } });
});
afterAll(() => world?.close());

/** Resolves with the exit, or rejects when the process is still running after `ms`. */
function exitWithin(bot: Awaited<ReturnType<ProcessWorld['start']>>, ms: number) {
  return Promise.race([
    bot.exited,
    new Promise<never>((_, reject) =>
      setTimeout(
        () =>
          reject(
            new Error(`still running ${ms} ms after the signal:\n${bot.output().slice(-2000)}`),
          ),
        ms,
      ),
    ),
  ]);
}

const botVoiceChannel = () =>
  world.discord.voiceStates().find((state) => state.userId === world.discord.botUser.id)?.channelId;

test.each(['SIGTERM', 'SIGINT'] as const)(
  '%s: leaves voice, keeps the pending generation in the store, closes it and exits 0 within 10 s',
  async (signal) => {
    const bot = await world.start();
    await world.configureKey(USER_ONE.apiKey);
    world.discord.moveMember({ userId: 'member', channelId: world.discord.guild.voiceChannelId });
    const join = world.discord.slash({ user: 'member', name: 'join' });
    await join.waitFor((e) => e.kind === 'edit' && /Joined/.test(JSON.stringify(e.data)), 15_000);
    expect(botVoiceChannel()).toBe(world.discord.guild.voiceChannelId);
    const say = world.discord.slash({
      user: 'member',
      name: 'say',
      options: {
        text: `A generation in flight at ${signal}, long enough to count.`,
        output: 'file',
      },
    });
    await say.waitFor(
      (e) => e.kind === 'edit' && /Generating/.test(JSON.stringify(e.data)),
      15_000,
    );

    bot.child.kill(signal);
    expect(await exitWithin(bot, 10_000)).toEqual({ code: 0, signal: null });
    expect(bot.output()).toContain('"msg":"stopped"');
    expect(botVoiceChannel()).toBeUndefined();
    // The store was closed cleanly and still holds the pending generation.
    const keyv = await openKeyv(`sqlite://${world.dataDir}/bot.sqlite`);
    const index = (await keyv.get('pending:index')) as string[] | undefined;
    expect(index?.length).toBe(1);
    await keyv.delete('pending:index');
    await keyv.disconnect();
    world.discord.moveMember({ userId: 'member', channelId: null });
  },
  60_000,
);
