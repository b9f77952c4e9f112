/** `/config dictionary add|remove|list`: how words are pronounced in streamer mode. */

import { runDictionary, withDictionaryGroup } from '../../src/discord/dictionary-config.ts';
import type { SubcommandPart } from '../../src/discord/index.ts';

export default {
  names: ['dictionary'],
  build: withDictionaryGroup,
  execute: runDictionary,
} satisfies SubcommandPart;
