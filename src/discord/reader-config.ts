/**
 * The streamer-mode parts of `/config`: `read-channel add|remove|list`, `reader` and
 * `dictionary add|remove|list`. Builds their options and runs them over the settings store.
 */
import {
  ChannelType,
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandBuilder,
  type SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import {
  addDictionaryEntry,
  addReadChannel,
  applyReaderOptions,
  describeReader,
  type ReaderOptionsInput,
  removeDictionaryEntry,
  removeReadChannel,
  toggleNotes,
} from '../reader/config.ts';
import { codeSpan, quoteSafely } from '../speech/index.ts';
import { EMOJI_MODES, READ_BOTS, READER_BOUNDS, SPOILER_MODES } from '../store/index.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';

const READABLE_CHANNELS = [
  ChannelType.GuildText,
  ChannelType.GuildVoice,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildStageVoice,
] as const;
const choices = (values: readonly string[]) => values.map((value) => ({ name: value, value }));

/** Adds the streamer-mode subcommands to `/config`. */
export function withReaderSubcommands(
  builder: SlashCommandBuilder | SlashCommandSubcommandsOnlyBuilder,
): SlashCommandSubcommandsOnlyBuilder {
  return builder
    .addSubcommandGroup((group) =>
      group
        .setName('read-channel')
        .setDescription('Channels whose messages are read aloud in voice')
        .addSubcommand((sub) =>
          sub
            .setName('add')
            .setDescription('Read this channel’s messages aloud')
            .addChannelOption((o) =>
              o
                .setName('channel')
                .setDescription('A text channel, or a voice channel’s chat')
                .setRequired(true)
                .addChannelTypes(...READABLE_CHANNELS),
            ),
        )
        .addSubcommand((sub) =>
          sub
            .setName('remove')
            .setDescription('Stop reading this channel')
            .addChannelOption((o) =>
              o.setName('channel').setDescription('The channel').setRequired(true),
            ),
        )
        .addSubcommand((sub) => sub.setName('list').setDescription('The channels read aloud')),
    )
    .addSubcommand((sub) =>
      sub
        .setName('reader')
        .setDescription('How chat is read aloud; with no option, shows the settings')
        .addBooleanOption((o) =>
          o.setName('said-prefix').setDescription('Say “Bobby said …” before messages (on)'),
        )
        .addStringOption((o) =>
          o
            .setName('read-bots')
            .setDescription('Read bots: none, webhooks (chat relays) or all (none)')
            .addChoices(...choices(READ_BOTS)),
        )
        .addStringOption((o) =>
          o
            .setName('ignore-prefixes')
            .setDescription('Messages starting with these are not read, space-separated (!); none')
            .setMaxLength(200),
        )
        .addUserOption((o) =>
          o.setName('ignore-member').setDescription('Ignore this member (again: read them again)'),
        )
        .addRoleOption((o) =>
          o.setName('ignore-role').setDescription('Ignore members with this role (again: undo)'),
        )
        .addBooleanOption((o) =>
          o
            .setName('voice-members-only')
            .setDescription('Read only members in my voice channel (off)'),
        )
        .addBooleanOption((o) =>
          o
            .setName('auto-join')
            .setDescription('Join the author’s voice channel when I am in none (off)'),
        )
        .addIntegerOption((o) =>
          o
            .setName('max-length')
            .setDescription('Characters read per message, then “and more” (300)')
            .setMinValue(READER_BOUNDS.maxLength.min)
            .setMaxValue(READER_BOUNDS.maxLength.max),
        )
        .addStringOption((o) =>
          o
            .setName('max-age')
            .setDescription('Skip messages older than this when their turn comes, e.g. 2m (2m)')
            .setMaxLength(20),
        )
        .addStringOption((o) =>
          o
            .setName('emoji')
            .setDescription('Emoji: say their names, or drop them (names)')
            .addChoices(...choices(EMOJI_MODES)),
        )
        .addStringOption((o) =>
          o
            .setName('spoilers')
            .setDescription('Spoilers: skip them, or read them (skip)')
            .addChoices(...choices(SPOILER_MODES)),
        ),
    )
    .addSubcommandGroup((group) =>
      group
        .setName('dictionary')
        .setDescription('Words the reader says differently')
        .addSubcommand((sub) =>
          sub
            .setName('add')
            .setDescription('Say a word differently (whole word, any case)')
            .addStringOption((o) =>
              o
                .setName('word')
                .setDescription('The word as written')
                .setRequired(true)
                .setMaxLength(READER_BOUNDS.word),
            )
            .addStringOption((o) =>
              o
                .setName('replacement')
                .setDescription('What to say instead')
                .setRequired(true)
                .setMaxLength(READER_BOUNDS.replacement),
            ),
        )
        .addSubcommand((sub) =>
          sub
            .setName('remove')
            .setDescription('Forget a word')
            .addStringOption((o) => o.setName('word').setDescription('The word').setRequired(true)),
        )
        .addSubcommand((sub) => sub.setName('list').setDescription('The dictionary')),
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
    maxLength: value(o.getInteger('max-length')),
    maxAge: value(o.getString('max-age')),
    emoji: value(o.getString('emoji')) as ReaderOptionsInput['emoji'],
    spoilers: value(o.getString('spoilers')) as ReaderOptionsInput['spoilers'],
  };
}

/** Runs a streamer-mode subcommand of `/config`; false when the subcommand is not one of them. */
export async function runReaderConfig(
  interaction: ChatInputCommandInteraction,
  { services }: CommandContext,
): Promise<boolean> {
  const group = interaction.options.getSubcommandGroup(false);
  const sub = interaction.options.getSubcommand();
  if (group === null && sub !== 'reader') return false;
  const guildId = guildIdOf(interaction);
  const { settings } = services;
  let content: string;
  if (group === 'read-channel') {
    const channel = sub === 'list' ? undefined : interaction.options.getChannel('channel', true);
    const saved = await settings.updateGuild(guildId, (guild) => ({
      ...guild,
      reader:
        channel === undefined
          ? guild.reader
          : sub === 'add'
            ? addReadChannel(guild.reader, channel.id)
            : removeReadChannel(guild.reader, channel.id),
    }));
    const channels = saved.reader.channels.map((id) => `<#${id}>`).join(', ') || 'none';
    content =
      channel === undefined
        ? `Channels read aloud: ${channels}.`
        : `${sub === 'add' ? `I will read <#${channel.id}> aloud while I am in a voice channel.` : `I no longer read <#${channel.id}>.`} Channels read aloud: ${channels}.`;
  } else if (group === 'dictionary') {
    const word = sub === 'list' ? '' : interaction.options.getString('word', true);
    let removed = true;
    const saved = await settings.updateGuild(guildId, (guild) => {
      if (sub === 'add') {
        const replacement = interaction.options.getString('replacement', true);
        return { ...guild, dictionary: addDictionaryEntry(guild.dictionary, word, replacement) };
      }
      if (sub === 'remove') {
        const result = removeDictionaryEntry(guild.dictionary, word);
        removed = result.removed;
        return { ...guild, dictionary: result.entries };
      }
      return guild;
    });
    const entries = saved.dictionary
      .map((e) => `${codeSpan(e.word)} → ${quoteSafely(e.replacement, 200) || '(nothing)'}`)
      .join('\n');
    const head =
      sub === 'add'
        ? `Added ${codeSpan(word)}.`
        : sub === 'remove'
          ? removed
            ? `Removed ${codeSpan(word)}.`
            : `${codeSpan(word)} was not in the dictionary.`
          : '';
    content = `${head}\n**Dictionary** (${saved.dictionary.length}):\n${entries || 'empty'}`.trim();
  } else {
    const input = readerInput(interaction);
    let notes: string[] = [];
    const saved = await settings.updateGuild(guildId, (guild) => {
      notes = toggleNotes(guild.reader, input);
      return { ...guild, reader: applyReaderOptions(guild.reader, input) };
    });
    const changed = Object.values(input).some((v) => v !== undefined);
    content = `${changed ? ['Reader settings saved.', ...notes].join(' ') : 'Reader settings:'}\n${describeReader(saved.reader)}`;
  }
  await interaction.reply({
    content: content.slice(0, 2000),
    flags: MessageFlags.Ephemeral,
    allowedMentions: { parse: [] },
  });
  return true;
}
