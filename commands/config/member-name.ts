/**
 * `/config member-name`: how a member's name is spoken in chat ("Bobby said"), set by an admin
 * for a nickname that reads badly; with only the member, shows it. The member's own
 * `/myvoice name` sets the same name.
 */
import { MessageFlags } from 'discord.js';
import {
  described,
  describeSpokenName,
  guildIdOf,
  type SubcommandPart,
} from '../../src/discord/index.ts';
import { UserError } from '../../src/refusal/index.ts';
import { setSpokenName } from '../../src/settings/index.ts';
import { normalizeSpokenName, SPOKEN_NAME_MAX } from '../../src/store/index.ts';

export default {
  names: ['member-name'],
  build: (builder) =>
    builder.addSubcommand((sub) =>
      described(sub.setName('member-name'), 'commands.config.member-name')
        .addUserOption((o) =>
          described(o.setName('member'), 'commands.config.member-name-member').setRequired(true),
        )
        .addStringOption((o) =>
          described(o.setName('name'), 'commands.config.member-name-name').setMaxLength(
            SPOKEN_NAME_MAX,
          ),
        )
        .addBooleanOption((o) =>
          described(o.setName('reset'), 'commands.config.member-name-reset'),
        ),
    ),

  async execute(interaction, { services, translator }) {
    const { options } = interaction;
    const member = options.getUser('member', true);
    const raw = options.getString('name');
    const name = raw === null ? undefined : normalizeSpokenName(raw);
    if (raw !== null && name === undefined) throw new UserError('spoken_name_empty', {});
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const guildId = guildIdOf(interaction);
    // A name given is set (after the reset, if both); `reset` alone clears it; neither shows it.
    const stored =
      name !== undefined || options.getBoolean('reset') === true
        ? await setSpokenName(services.members, guildId, member.id, name)
        : await services.members.get(guildId, member.id);
    await interaction.editReply({
      content: describeSpokenName(translator, member.id, stored),
      allowedMentions: { parse: [] },
    });
  },
} satisfies SubcommandPart;
