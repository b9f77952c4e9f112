/**
 * The tour's Twitch step: the admin adds a Twitch channel, three chatters write in its chat on
 * the fake Twitch server, and the bot, still in voice, reads them aloud, each chatter in a
 * voice of their own (`voices: auto`). The transcript shows the chat and the voice of each line.
 */
import type { FakeTwitch } from '../../test/fake-twitch/index.ts';
import type { LocalStack } from '../local-stack/index.ts';
import { heardSoFar, waitUntilHeard, waitUntilPlayed } from './heard.ts';
import type { Transcript } from './transcript.ts';

/** The Twitch channel the tour reads. */
export const DEMO_TWITCH_CHANNEL = 'demostreamer';

/** What chatters write on Twitch, and a phrase its spoken form must contain. */
export const TWITCH_POSTS = [
  {
    login: 'ronni_tv',
    displayName: 'RonniTV',
    text: 'hello from Twitch, great stream today',
    heard: 'great stream today',
  },
  {
    login: 'pixelfox',
    displayName: 'PixelFox',
    text: 'that jump was insane Kappa',
    emotes: '25:21-25',
    heard: 'that jump was insane',
  },
  {
    login: 'mod_mia',
    displayName: 'ModMia',
    text: 'cheers the streamer on',
    action: true,
    badges: 'moderator/1',
    heard: 'cheers the streamer on',
  },
] as const;

/** What the Twitch step produced: each spoken text with the voice it was spoken in. */
export interface TwitchStepResult {
  readonly spoken: readonly { readonly text: string; readonly voiceId: string }[];
}

/** Plays the step with the bot in voice; throws when the chat is not heard within `timeoutMs`. */
export async function runTwitchStep(
  stack: LocalStack,
  twitch: FakeTwitch,
  out: Transcript,
  timeoutMs: number,
): Promise<TwitchStepResult> {
  const { discord } = stack;
  out.say('admin', `/config twitch add channel:${DEMO_TWITCH_CHANNEL}`);
  const added = discord.slash({
    user: 'admin',
    name: 'config',
    subcommand: 'twitch add',
    options: { channel: DEMO_TWITCH_CHANNEL },
  });
  out.bot((await added.waitForReply(timeoutMs)).content);
  const deadline = Date.now() + timeoutMs;
  while (!twitch.joined(DEMO_TWITCH_CHANNEL)) {
    if (Date.now() > deadline) throw new Error('demo: the bot did not join the Twitch chat');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const before = heardSoFar(stack);
  stack.voiceServer.reset(discord.guild.id);
  out.print(`\nchatters write in twitch.tv/${DEMO_TWITCH_CHANNEL} (a local fake Twitch chat)`);
  for (const [i, post] of TWITCH_POSTS.entries()) {
    const shown = 'action' in post ? `/me ${post.text}` : post.text;
    out.print(`${post.displayName} (on Twitch) › ${shown}`);
    twitch.post(DEMO_TWITCH_CHANNEL, { id: `demo-${i}`, userId: String(9000 + i), ...post });
  }
  const lines = await waitUntilHeard(
    stack,
    before,
    TWITCH_POSTS.map((post) => post.heard),
    { deadline, what: 'the Twitch chat' },
  );
  const spoken = lines.map(({ text, voiceId }) => ({ text, voiceId }));
  // Heard means played: the last line is not cut off by the `/leave` that follows.
  await waitUntilPlayed(stack, lines, timeoutMs);
  for (const line of spoken) out.print(`  bot (in voice, voice ${line.voiceId}) › “${line.text}”`);
  return { spoken };
}
