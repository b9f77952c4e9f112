/** `/config twitch add|remove|list`: Twitch channels whose chat streamer mode reads aloud. */
import type { SubcommandPart } from '../../src/discord/index.ts';
import { runTwitch, withTwitchGroup } from '../../src/discord/twitch-config.ts';

export default {
  names: ['twitch'],
  build: withTwitchGroup,
  execute: runTwitch,
} satisfies SubcommandPart;
