/** `/config limits`: the per-member limits of the server, shown and set. */
import { limitsSubcommand, runLimits, type SubcommandPart } from '../../src/discord/index.ts';

export default {
  names: ['limits'],
  build: (builder, api) => builder.addSubcommand((sub) => limitsSubcommand(sub, api)),
  execute: (interaction, { services, translator }) => runLimits(interaction, services, translator),
} satisfies SubcommandPart;
