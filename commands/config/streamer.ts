/**
 * Streamer mode: `/config read-channel`, `reader` and `dictionary`. One part for the three
 * while `src/discord/reader-config.ts` builds and runs them together.
 */
import type { SubcommandPart } from '../../src/discord/index.ts';
import { runReaderConfig, withReaderSubcommands } from '../../src/discord/reader-config.ts';

export default {
  names: ['read-channel', 'reader', 'dictionary'],
  build: withReaderSubcommands,
  async execute(interaction, context) {
    await runReaderConfig(interaction, context);
  },
} satisfies SubcommandPart;
