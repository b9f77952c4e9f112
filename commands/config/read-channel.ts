/** `/config read-channel add|remove|list`: the channels streamer mode reads aloud. */
import { listGroup, type SubcommandPart } from '../../src/discord/index.ts';
import { readChannelGroup } from '../../src/discord/read-channel-config.ts';

export default listGroup(readChannelGroup) satisfies SubcommandPart;
