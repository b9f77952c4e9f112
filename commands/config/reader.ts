/**
 * `/config reader` (deprecated): every reader option in one list, saved as before, with where
 * each now lives (`/config read …`, `/config twitch read badges`); with no option, the settings.
 */
import type { SubcommandPart } from '../../src/discord/index.ts';
import { runReaderOptions, withReaderSubcommand } from '../../src/discord/reader-options.ts';

export default {
  names: ['reader'],
  build: withReaderSubcommand,
  execute: runReaderOptions,
} satisfies SubcommandPart;
