/** `/config reader`: how streamer mode reads; with no option, the settings. */
import type { SubcommandPart } from '../../src/discord/index.ts';
import { runReaderOptions, withReaderSubcommand } from '../../src/discord/reader-options.ts';

export default {
  names: ['reader'],
  build: withReaderSubcommand,
  execute: runReaderOptions,
} satisfies SubcommandPart;
