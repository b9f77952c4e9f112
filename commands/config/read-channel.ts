/** `/config read-channel add|remove|list`: the channels streamer mode reads aloud. */
import type { SubcommandPart } from '../../src/discord/index.ts';
import { runReadChannel, withReadChannelGroup } from '../../src/discord/read-channel-config.ts';

export default {
  names: ['read-channel'],
  build: withReadChannelGroup,
  execute: runReadChannel,
} satisfies SubcommandPart;
