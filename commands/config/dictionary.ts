/** `/config dictionary add|remove|list`: how words are pronounced in streamer mode. */

import { dictionaryGroup } from '../../src/discord/dictionary-config.ts';
import { listGroup, type SubcommandPart } from '../../src/discord/index.ts';

export default listGroup(dictionaryGroup) satisfies SubcommandPart;
