/**
 * The reader's options, each stated once: its name, how Discord offers it, how it is read back,
 * and where it lives now. `/config read who|sound|pace` offer them by purpose (`read-config.ts`);
 * the old `/config reader` keeps every one for a while (deprecated), saves them as before and
 * says where each went, so an admin's habit and a stale client both keep working.
 */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandBuilder,
  type SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import type { MessageKey, Translator } from '../i18n/index.ts';
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

type Options = ChatInputCommandInteraction['options'];
type Sub = SlashCommandSubcommandBuilder;

/** Where a reader option lives now: a `/config read` subcommand, or `/config twitch read`. */
export type ReaderOptionHome = 'who' | 'sound' | 'pace' | 'lists' | 'twitch';

/** One reader option: its name as typed, how it is offered and read, and its new home. */
export interface ReaderOption {
  readonly name: string;
  readonly home: ReaderOptionHome;
  /** Adds the option to a subcommand, described by `commands.config.reader-<name>`. */
  add(sub: Sub): Sub;
  /** Its value as `/config reader`'s input; nothing when not given. */
  read(options: Options): ReaderOptionsInput;
}

const choices = (values: readonly string[]) => values.map((value) => ({ name: value, value }));
/** The option names the translation files describe (`commands.config.reader-<name>`). */
type ReaderOptionName<K = MessageKey> = K extends `commands.config.reader-${infer Name}`
  ? Name
  : never;
const key = (name: ReaderOptionName): MessageKey => `commands.config.reader-${name}`;

function option(
  name: string,
  home: ReaderOptionHome,
  add: (sub: Sub) => Sub,
  read: (options: Options) => ReaderOptionsInput,
): ReaderOption {
  return { name, home, add, read };
}

const given = <T>(value: T | null): T | undefined => value ?? undefined;

/** Every reader option, in the old `/config reader` order, then `forwards` and `chat-voices`. */
export const READER_OPTIONS: readonly ReaderOption[] = [
  option(
    'said-prefix',
    'sound',
    (s) => s.addBooleanOption((o) => described(o.setName('said-prefix'), key('said-prefix'))),
    (o) => ({ saidPrefix: given(o.getBoolean('said-prefix')) }),
  ),
  option(
    'read-bots',
    'who',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('read-bots'), key('read-bots')).addChoices(...choices(READ_BOTS)),
      ),
    (o) => ({ readBots: given(o.getString('read-bots')) as ReaderOptionsInput['readBots'] }),
  ),
  option(
    'ignore-prefixes',
    'who',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('ignore-prefixes'), key('ignore-prefixes')).setMaxLength(200),
      ),
    (o) => ({ ignorePrefixes: given(o.getString('ignore-prefixes')) }),
  ),
  option(
    'ignore-member',
    'lists',
    (s) => s.addUserOption((o) => described(o.setName('ignore-member'), key('ignore-member'))),
    (o) => ({ ignoreMember: given(o.getUser('ignore-member'))?.id }),
  ),
  option(
    'ignore-role',
    'lists',
    (s) => s.addRoleOption((o) => described(o.setName('ignore-role'), key('ignore-role'))),
    (o) => ({ ignoreRole: given(o.getRole('ignore-role'))?.id }),
  ),
  option(
    'voice-members-only',
    'who',
    (s) =>
      s.addBooleanOption((o) =>
        described(o.setName('voice-members-only'), key('voice-members-only')),
      ),
    (o) => ({ voiceMembersOnly: given(o.getBoolean('voice-members-only')) }),
  ),
  option(
    'auto-join',
    'pace',
    (s) => s.addBooleanOption((o) => described(o.setName('auto-join'), key('auto-join'))),
    (o) => ({ autoJoin: given(o.getBoolean('auto-join')) }),
  ),
  option(
    'voice-chat',
    'who',
    (s) => s.addBooleanOption((o) => described(o.setName('voice-chat'), key('voice-chat'))),
    (o) => ({ voiceChat: given(o.getBoolean('voice-chat')) }),
  ),
  option(
    'silent',
    'who',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('silent'), key('silent')).addChoices(...choices(SILENT_MODES)),
      ),
    (o) => ({ silent: given(o.getString('silent')) as ReaderOptionsInput['silent'] }),
  ),
  option(
    'max-length',
    'pace',
    (s) =>
      s.addIntegerOption((o) =>
        described(o.setName('max-length'), key('max-length'))
          .setMinValue(READER_BOUNDS.maxLength.min)
          .setMaxValue(READER_BOUNDS.maxLength.max),
      ),
    (o) => ({ maxLength: given(o.getInteger('max-length')) }),
  ),
  option(
    'max-age',
    'pace',
    (s) =>
      s.addStringOption((o) => described(o.setName('max-age'), key('max-age')).setMaxLength(20)),
    (o) => ({ maxAge: given(o.getString('max-age')) }),
  ),
  option(
    'emoji',
    'sound',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('emoji'), key('emoji')).addChoices(...choices(EMOJI_MODES)),
      ),
    (o) => ({ emoji: given(o.getString('emoji')) as ReaderOptionsInput['emoji'] }),
  ),
  option(
    'spoilers',
    'sound',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('spoilers'), key('spoilers')).addChoices(...choices(SPOILER_MODES)),
      ),
    (o) => ({ spoilers: given(o.getString('spoilers')) as ReaderOptionsInput['spoilers'] }),
  ),
  option(
    'blocked',
    'sound',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('blocked'), key('blocked')).addChoices(...choices(BLOCKED_MODES)),
      ),
    (o) => ({ blocked: given(o.getString('blocked')) as ReaderOptionsInput['blocked'] }),
  ),
  option(
    'priority-role',
    'lists',
    (s) => s.addRoleOption((o) => described(o.setName('priority-role'), key('priority-role'))),
    (o) => ({ priorityRole: given(o.getRole('priority-role'))?.id }),
  ),
  option(
    'max-speed',
    'pace',
    (s) =>
      s.addNumberOption((o) =>
        described(o.setName('max-speed'), key('max-speed'))
          .setMinValue(READER_BOUNDS.maxSpeed.min)
          .setMaxValue(READER_BOUNDS.maxSpeed.max),
      ),
    (o) => ({ maxSpeed: given(o.getNumber('max-speed')) }),
  ),
  option(
    'new-member-delay',
    'who',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('new-member-delay'), key('new-member-delay')).setMaxLength(20),
      ),
    (o) => ({ newMemberDelay: given(o.getString('new-member-delay')) }),
  ),
  option(
    'twitch-badges',
    'twitch',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('twitch-badges'), key('twitch-badges')).setMaxLength(100),
      ),
    (o) => ({ twitchBadges: given(o.getString('twitch-badges')) }),
  ),
  option(
    'voices',
    'sound',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('voices'), key('voices')).addChoices(...choices(VOICE_MODES)),
      ),
    (o) => ({ voices: given(o.getString('voices')) as ReaderOptionsInput['voices'] }),
  ),
  option(
    'forwards',
    'who',
    (s) => s.addBooleanOption((o) => described(o.setName('forwards'), key('forwards'))),
    (o) => ({ forwards: given(o.getBoolean('forwards')) }),
  ),
  option(
    'chat-voices',
    'twitch',
    (s) =>
      s.addStringOption((o) =>
        described(o.setName('chat-voices'), key('chat-voices')).addChoices(
          ...choices(CHAT_VOICE_MODES),
        ),
      ),
    (o) => ({
      chatVoices: given(o.getString('chat-voices')) as ReaderOptionsInput['chatVoices'],
    }),
  ),
];

/** The options at `home`, in the old order. */
export function readerOptionsAt(home: ReaderOptionHome): readonly ReaderOption[] {
  return READER_OPTIONS.filter((o) => o.home === home);
}

/** The input `options` give for `of` (absent values left out). */
export function readerInputOf(options: Options, of: readonly ReaderOption[]): ReaderOptionsInput {
  const input: Record<string, unknown> = {};
  for (const o of of)
    for (const [field, value] of Object.entries(o.read(options)))
      if (value !== undefined) input[field] = value;
  return input as ReaderOptionsInput;
}

/** The command where a reader option lives now, as an admin types it. */
export function newHomeOf(option: ReaderOption): string {
  if (option.home === 'twitch')
    return `/config twitch read ${option.name === 'twitch-badges' ? 'badges' : option.name}`;
  if (option.home === 'lists') return `/config read ${option.name} action:add|remove`;
  return `/config read ${option.home} ${option.name}`;
}

/** Adds the deprecated `reader` subcommand, with every option, to `/config`. */
export function withReaderSubcommand(
  builder: SlashCommandSubcommandsOnlyBuilder,
): SlashCommandSubcommandsOnlyBuilder {
  return builder.addSubcommand((sub) =>
    READER_OPTIONS.reduce(
      (s, o) => o.add(s),
      described(sub.setName('reader'), 'commands.config.reader'),
    ),
  );
}

/** "`max-age` → `/config read pace max-age`" for each option given; empty when none. */
export function movedNote({ t }: Translator, given: readonly ReaderOption[]): string {
  if (given.length === 0) return t('reader.moved_all');
  const moves = given.map((o) => `\`${o.name}\` → \`${newHomeOf(o)}\``).join(', ');
  return t('reader.moved', { moves });
}

/**
 * Runs the deprecated `/config reader`: saves the options given as it always did (the lists
 * still toggle there), answers with the settings and where each option given now lives.
 */
export async function runReaderOptions(
  interaction: ChatInputCommandInteraction,
  { services, translator }: CommandContext,
): Promise<void> {
  const guildId = guildIdOf(interaction);
  // Answer before the store: it can outlast Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const { t } = translator;
  const input = readerInputOf(interaction.options, READER_OPTIONS);
  const given = READER_OPTIONS.filter((o) => interaction.options.get(o.name) !== null);
  let notes: string[] = [];
  const saved = await services.settings.updateGuild(guildId, (guild) => {
    notes = toggleNotes(translator, guild.reader, input);
    return { ...guild, reader: applyReaderOptions(guild.reader, input) };
  });
  const head = given.length > 0 ? [t('reader.saved'), ...notes].join(' ') : t('reader.settings');
  const moved = movedNote(translator, given);
  const content = `${head}\n${moved}\n${describeReader(translator, saved.reader, saved.blockedWords.length)}`;
  await interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
}
