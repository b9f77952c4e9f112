/** `/config block-word add|remove|list`: words never read aloud, in chat or by `/say`. */

import { blockWordGroup } from '../../src/discord/block-word-config.ts';
import { listGroup, type SubcommandPart } from '../../src/discord/index.ts';

export default listGroup(blockWordGroup) satisfies SubcommandPart;
