/**
 * `/config dictionary add|remove|list`: the server's pronunciation dictionary for streamer
 * mode. Builds the group's options and runs it over the settings store.
 */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import { addDictionaryEntry, removeDictionaryEntry } from '../reader/config.ts';
import { codeSpan, quoteSafely } from '../speech/index.ts';
import { READER_BOUNDS } from '../store/index.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { described } from './localize.ts';

/** Adds the `dictionary` group to `/config`. */
export function withDictionaryGroup(
  builder: SlashCommandSubcommandsOnlyBuilder,
): SlashCommandSubcommandsOnlyBuilder {
  return builder.addSubcommandGroup((group) =>
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
        described(sub.setName('remove'), 'commands.config.dictionary-remove').addStringOption((o) =>
          described(o.setName('word'), 'commands.config.dictionary-remove-word').setRequired(true),
        ),
      )
      .addSubcommand((sub) => described(sub.setName('list'), 'commands.config.dictionary-list')),
  );
}

/** Runs `/config dictionary …`: adds, removes or lists, and answers with the dictionary. */
export async function runDictionary(
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
      (e) => `${codeSpan(e.word)} → ${quoteSafely(e.replacement, 200) || t('reader.says_nothing')}`,
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
  const content = `${head}\n${title}\n${entries || t('reader.dictionary_empty')}`.trim();
  await interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
}
