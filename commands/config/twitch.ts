/** `/config twitch add|remove|list|read|reward`: Twitch channels read aloud, and what of them. */
import type { SubcommandPart } from '../../src/discord/index.ts';
import { twitchPart } from '../../src/discord/twitch-config.ts';

export default twitchPart satisfies SubcommandPart;
