/**
 * `/config block-word add|remove|list`: words never read aloud, in chat (skipped or bleeped,
 * per `/config reader blocked`) or by `/say`. Builds the group's options and runs it over the
 * settings store.
 */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import { addBlockedWord, removeBlockedWord } from '../reader/config.ts';
import { codeSpan } from '../speech/index.ts';
import { READER_BOUNDS } from '../store/index.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { described } from './localize.ts';

/** Adds the `block-word` group to `/config`. */
export function withBlockWordGroup(
  builder: SlashCommandSubcommandsOnlyBuilder,
): SlashCommandSubcommandsOnlyBuilder {
  return builder.addSubcommandGroup((group) =>
    described(group.setName('block-word'), 'commands.config.block-word')
      .addSubcommand((sub) =>
        described(sub.setName('add'), 'commands.config.block-word-add').addStringOption((o) =>
          described(o.setName('word'), 'commands.config.block-word-add-word')
            .setRequired(true)
            .setMaxLength(READER_BOUNDS.blockedWordLength),
        ),
      )
      .addSubcommand((sub) =>
        described(sub.setName('remove'), 'commands.config.block-word-remove').addStringOption((o) =>
          described(o.setName('word'), 'commands.config.block-word-remove-word').setRequired(true),
        ),
      )
      .addSubcommand((sub) => described(sub.setName('list'), 'commands.config.block-word-list')),
  );
}

/** Runs `/config block-word …`: adds, removes or lists, and answers with the list (to the manager only). */
export async function runBlockWord(
  interaction: ChatInputCommandInteraction,
  { services, translator: { t } }: CommandContext,
): Promise<void> {
  const sub = interaction.options.getSubcommand();
  const guildId = guildIdOf(interaction);
  // Answer before the store: it can outlast Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const word = sub === 'list' ? '' : interaction.options.getString('word', true);
  let removed = true;
  const saved = await services.settings.updateGuild(guildId, (guild) => {
    if (sub === 'add') return { ...guild, blockedWords: addBlockedWord(guild.blockedWords, word) };
    if (sub === 'remove') {
      const result = removeBlockedWord(guild.blockedWords, word);
      removed = result.removed;
      return { ...guild, blockedWords: result.words };
    }
    return guild;
  });
  const shown = codeSpan(word.trim());
  const head =
    sub === 'add'
      ? t('reader.blocked_added', { word: shown })
      : sub === 'remove'
        ? t(removed ? 'reader.blocked_removed' : 'reader.blocked_absent', { word: shown })
        : '';
  const title = t('reader.blocked_list', { size: saved.blockedWords.length });
  const list = saved.blockedWords.map((w) => codeSpan(w)).join(', ');
  const content = `${head}\n${title}\n${list || t('reader.dictionary_empty')}`.trim();
  await interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
}
