/**
 * The streamer-mode parts of `/config`: `read-channel add|remove|list`, `reader` and
 * `dictionary add|remove|list`. Builds their options and runs them over the settings store.
 */
import {
  ChannelType,
  type ChatInputCommandInteraction,
  MessageFlags,
  PermissionFlagsBits,
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
import { UserError } from '../refusal/index.ts';
import { codeSpan, quoteSafely } from '../speech/index.ts';
import { EMOJI_MODES, READ_BOTS, READER_BOUNDS, SPOILER_MODES } from '../store/index.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { described } from './localize.ts';

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
      described(group.setName('read-channel'), 'commands.config.read-channel')
        .addSubcommand((sub) =>
          described(sub.setName('add'), 'commands.config.read-channel-add').addChannelOption((o) =>
            described(o.setName('channel'), 'commands.config.read-channel-add-channel')
              .setRequired(true)
              .addChannelTypes(...READABLE_CHANNELS),
          ),
        )
        .addSubcommand((sub) =>
          described(sub.setName('remove'), 'commands.config.read-channel-remove').addChannelOption(
            (o) =>
              described(
                o.setName('channel'),
                'commands.config.read-channel-remove-channel',
              ).setRequired(true),
          ),
        )
        .addSubcommand((sub) =>
          described(sub.setName('list'), 'commands.config.read-channel-list'),
        ),
    )
    .addSubcommand((sub) =>
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
        ),
    )
    .addSubcommandGroup((group) =>
      described(group.setName('dictionary'), 'commands.config.dictionary')
        .addSubcommand((sub) =>
          described(sub.setName('add'), 'commands.config.dictionary-add')
            .addStringOption((o) =>
              described(o.setName('word'), 'commands.config.dictionary-add-word')
                .setRequired(true)
                .setMaxLength(READER_BOUNDS.word),
            )
            .addStringOption((o) =>
              described(o.setName('replacement'), 'commands.config.dictionary-add-replacement')
                .setRequired(true)
                .setMaxLength(READER_BOUNDS.replacement),
            ),
        )
        .addSubcommand((sub) =>
          described(sub.setName('remove'), 'commands.config.dictionary-remove').addStringOption(
            (o) =>
              described(o.setName('word'), 'commands.config.dictionary-remove-word').setRequired(
                true,
              ),
          ),
        )
        .addSubcommand((sub) => described(sub.setName('list'), 'commands.config.dictionary-list')),
    );
}

/**
 * Refuses a read channel whose messages the bot would never get. The reader hears only the
 * gateway's message events, which Discord sends for the channels the bot can view; it never
 * fetches history, so View Channel is what it needs (Read Message History is not).
 */
async function requireReadable(
  interaction: ChatInputCommandInteraction,
  channelId: string,
): Promise<void> {
  const guild = interaction.guild;
  // Without the server in the cache the bot cannot tell; the setting is kept as asked.
  if (guild === null) return;
  const me = guild.members.me ?? (await guild.members.fetchMe());
  const channel = guild.channels.cache.get(channelId);
  if (channel?.permissionsFor(me).has(PermissionFlagsBits.ViewChannel) !== true)
    throw new UserError('reader_channel_unreadable', { channel: `<#${channelId}>` });
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
  { services, translator }: CommandContext,
): Promise<boolean> {
  const group = interaction.options.getSubcommandGroup(false);
  const sub = interaction.options.getSubcommand();
  if (group === null && sub !== 'reader') return false;
  const guildId = guildIdOf(interaction);
  // Answer before the store: it can outlast Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const { settings } = services;
  const { t } = translator;
  let content: string;
  if (group === 'read-channel') {
    const channel = sub === 'list' ? undefined : interaction.options.getChannel('channel', true);
    if (channel !== undefined && sub === 'add') await requireReadable(interaction, channel.id);
    const saved = await settings.updateGuild(guildId, (guild) => ({
      ...guild,
      reader:
        channel === undefined
          ? guild.reader
          : sub === 'add'
            ? addReadChannel(guild.reader, channel.id)
            : removeReadChannel(guild.reader, channel.id),
    }));
    const list = saved.reader.channels.map((id) => `<#${id}>`).join(', ') || t('reader.none');
    const channels = t('reader.channels', { channels: list });
    content =
      channel === undefined
        ? channels
        : `${t(sub === 'add' ? 'reader.channel_added' : 'reader.channel_removed', { channel: `<#${channel.id}>` })} ${channels}`;
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
      .map(
        (e) =>
          `${codeSpan(e.word)} → ${quoteSafely(e.replacement, 200) || t('reader.says_nothing')}`,
      )
      .join('\n');
    const shown = codeSpan(word);
    const head =
      sub === 'add'
        ? t('reader.word_added', { word: shown })
        : sub === 'remove'
          ? t(removed ? 'reader.word_removed' : 'reader.word_absent', { word: shown })
          : '';
    const title = t('reader.dictionary', { size: saved.dictionary.length });
    content = `${head}\n${title}\n${entries || t('reader.dictionary_empty')}`.trim();
  } else {
    const input = readerInput(interaction);
    let notes: string[] = [];
    const saved = await settings.updateGuild(guildId, (guild) => {
      notes = toggleNotes(translator, guild.reader, input);
      return { ...guild, reader: applyReaderOptions(guild.reader, input) };
    });
    const changed = Object.values(input).some((v) => v !== undefined);
    const head = changed ? [t('reader.saved'), ...notes].join(' ') : t('reader.settings');
    content = `${head}\n${describeReader(translator, saved.reader)}`;
  }
  await interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
  return true;
}
