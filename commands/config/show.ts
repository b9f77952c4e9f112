/** `/config show`: every server setting, grouped as the commands are, in pages when long. */

import { runShow, turnShowPage } from '../../src/discord/config-show.ts';
import { described, type SubcommandPart } from '../../src/discord/index.ts';

export default {
  names: ['show'],

  build: (builder) =>
    builder.addSubcommand((sub) => described(sub.setName('show'), 'commands.config.show')),

  execute: runShow,
  button: turnShowPage,
} satisfies SubcommandPart;
