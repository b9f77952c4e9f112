/**
 * `/config reader`: how streamer mode reads (prefix, bots, ignored members, lengths, freshness,
 * emoji, spoilers…). Builds the subcommand's options and runs it over the settings store; with
 * no option it shows the settings.
 */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import {
  applyReaderOptions,
  describeReader,
  type ReaderOptionsInput,
  toggleNotes,
} from '../reader/config.ts';
import {
  BLOCKED_MODES,
  CHAT_VOICE_MODES,
  EMOJI_MODES,
  READ_BOTS,
  READER_BOUNDS,
  SILENT_MODES,
  SPOILER_MODES,
  VOICE_MODES,
} from '../store/index.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { described } from './localize.ts';

const choices = (values: readonly string[]) => values.map((value) => ({ name: value, value }));

/** Adds the `reader` subcommand to `/config`. */
export function withReaderSubcommand(
  builder: SlashCommandSubcommandsOnlyBuilder,
): SlashCommandSubcommandsOnlyBuilder {
  return builder.addSubcommand((sub) =>
    described(sub.setName('reader'), 'commands.config.reader')
      .addBooleanOption((o) =>
        described(o.setName('said-prefix'), 'commands.config.reader-said-prefix'),
      )
      .addStringOption((o) =>
        described(o.setName('read-bots'), 'commands.config.reader-read-bots').addChoices(
          ...choices(READ_BOTS),
        ),
      )
      .addStringOption((o) =>
        described(
          o.setName('ignore-prefixes'),
          'commands.config.reader-ignore-prefixes',
        ).setMaxLength(200),
      )
      .addUserOption((o) =>
        described(o.setName('ignore-member'), 'commands.config.reader-ignore-member'),
      )
      .addRoleOption((o) =>
        described(o.setName('ignore-role'), 'commands.config.reader-ignore-role'),
      )
      .addBooleanOption((o) =>
        described(o.setName('voice-members-only'), 'commands.config.reader-voice-members-only'),
      )
      .addBooleanOption((o) =>
        described(o.setName('auto-join'), 'commands.config.reader-auto-join'),
      )
      .addBooleanOption((o) =>
        described(o.setName('voice-chat'), 'commands.config.reader-voice-chat'),
      )
      .addStringOption((o) =>
        described(o.setName('silent'), 'commands.config.reader-silent').addChoices(
          ...choices(SILENT_MODES),
        ),
      )
      .addIntegerOption((o) =>
        described(o.setName('max-length'), 'commands.config.reader-max-length')
          .setMinValue(READER_BOUNDS.maxLength.min)
          .setMaxValue(READER_BOUNDS.maxLength.max),
      )
      .addStringOption((o) =>
        described(o.setName('max-age'), 'commands.config.reader-max-age').setMaxLength(20),
      )
      .addStringOption((o) =>
        described(o.setName('emoji'), 'commands.config.reader-emoji').addChoices(
          ...choices(EMOJI_MODES),
        ),
      )
      .addStringOption((o) =>
        described(o.setName('spoilers'), 'commands.config.reader-spoilers').addChoices(
          ...choices(SPOILER_MODES),
        ),
      )
      .addStringOption((o) =>
        described(o.setName('blocked'), 'commands.config.reader-blocked').addChoices(
          ...choices(BLOCKED_MODES),
        ),
      )
      .addRoleOption((o) =>
        described(o.setName('priority-role'), 'commands.config.reader-priority-role'),
      )
      .addNumberOption((o) =>
        described(o.setName('max-speed'), 'commands.config.reader-max-speed')
          .setMinValue(READER_BOUNDS.maxSpeed.min)
          .setMaxValue(READER_BOUNDS.maxSpeed.max),
      )
      .addStringOption((o) =>
        described(
          o.setName('new-member-delay'),
          'commands.config.reader-new-member-delay',
        ).setMaxLength(20),
      )
      .addStringOption((o) =>
        described(o.setName('twitch-badges'), 'commands.config.reader-twitch-badges').setMaxLength(
          100,
        ),
      )
      .addStringOption((o) =>
        described(o.setName('voices'), 'commands.config.reader-voices').addChoices(
          ...choices(VOICE_MODES),
        ),
      )
      .addBooleanOption((o) => described(o.setName('forwards'), 'commands.config.reader-forwards'))
      .addStringOption((o) =>
        described(o.setName('chat-voices'), 'commands.config.reader-chat-voices').addChoices(
          ...choices(CHAT_VOICE_MODES),
        ),
      ),
  );
}

/** The `/config reader` options as typed. */
function readerInput(interaction: ChatInputCommandInteraction): ReaderOptionsInput {
  const o = interaction.options;
  const value = <T>(v: T | null): T | undefined => v ?? undefined;
  return {
    saidPrefix: value(o.getBoolean('said-prefix')),
    readBots: value(o.getString('read-bots')) as ReaderOptionsInput['readBots'],
    ignorePrefixes: value(o.getString('ignore-prefixes')),
    ignoreMember: value(o.getUser('ignore-member'))?.id,
    ignoreRole: value(o.getRole('ignore-role'))?.id,
    voiceMembersOnly: value(o.getBoolean('voice-members-only')),
    autoJoin: value(o.getBoolean('auto-join')),
    voiceChat: value(o.getBoolean('voice-chat')),
    silent: value(o.getString('silent')) as ReaderOptionsInput['silent'],
    maxLength: value(o.getInteger('max-length')),
    maxAge: value(o.getString('max-age')),
    emoji: value(o.getString('emoji')) as ReaderOptionsInput['emoji'],
    spoilers: value(o.getString('spoilers')) as ReaderOptionsInput['spoilers'],
    blocked: value(o.getString('blocked')) as ReaderOptionsInput['blocked'],
    priorityRole: value(o.getRole('priority-role'))?.id,
    maxSpeed: value(o.getNumber('max-speed')),
    newMemberDelay: value(o.getString('new-member-delay')),
    twitchBadges: value(o.getString('twitch-badges')),
    voices: value(o.getString('voices')) as ReaderOptionsInput['voices'],
    forwards: value(o.getBoolean('forwards')),
    chatVoices: value(o.getString('chat-voices')) as ReaderOptionsInput['chatVoices'],
  };
}

/** Runs `/config reader`: saves the options given and answers with the settings. */
export async function runReaderOptions(
  interaction: ChatInputCommandInteraction,
  { services, translator }: CommandContext,
): Promise<void> {
  const guildId = guildIdOf(interaction);
  // Answer before the store: it can outlast Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const { t } = translator;
  const input = readerInput(interaction);
  let notes: string[] = [];
  const saved = await services.settings.updateGuild(guildId, (guild) => {
    notes = toggleNotes(translator, guild.reader, input);
    return { ...guild, reader: applyReaderOptions(guild.reader, input) };
  });
  const changed = Object.values(input).some((v) => v !== undefined);
  const head = changed ? [t('reader.saved'), ...notes].join(' ') : t('reader.settings');
  const content = `${head}\n${describeReader(translator, saved.reader, saved.blockedWords.length)}`;
  await interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
}
