/** `/config twitch add|remove|list`: Twitch channels whose chat streamer mode reads aloud. */
import { listGroup, type SubcommandPart } from '../../src/discord/index.ts';
import { twitchGroup } from '../../src/discord/twitch-config.ts';

export default listGroup(twitchGroup) satisfies SubcommandPart;
