/** `/config block-word add|remove|list`: words never read aloud, in chat or by `/say`. */

import { runBlockWord, withBlockWordGroup } from '../../src/discord/block-word-config.ts';
import type { SubcommandPart } from '../../src/discord/index.ts';

export default {
  names: ['block-word'],
  build: withBlockWordGroup,
  execute: runBlockWord,
} satisfies SubcommandPart;
