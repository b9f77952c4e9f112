/**
 * `/config block-word add|remove|list`: words never read aloud, in chat (skipped or bleeped,
 * per `/config reader blocked`) or by `/say`. A list group over the settings store.
 */
import { addBlockedWord, removeBlockedWord } from '../reader/config.ts';
import { codeSpan } from '../speech/index.ts';
import { READER_BOUNDS } from '../store/index.ts';
import type { ListGroup } from './list-group.ts';
import { described } from './localize.ts';

/** The `block-word` group: a word, stored in `blockedWords`. */
export const blockWordGroup: ListGroup<string> = {
  name: 'block-word',
  addOptions: (sub) =>
    sub.addStringOption((o) =>
      described(o.setName('word'), 'commands.config.block-word-add-word')
        .setRequired(true)
        .setMaxLength(READER_BOUNDS.blockedWordLength),
    ),
  removeOptions: (sub) =>
    sub.addStringOption((o) =>
      described(o.setName('word'), 'commands.config.block-word-remove-word').setRequired(true),
    ),
  item: (interaction) => interaction.options.getString('word', true),
  add: (settings, word) => ({
    ...settings,
    blockedWords: addBlockedWord(settings.blockedWords, word),
  }),
  remove: (settings, word) => {
    const { words, removed } = removeBlockedWord(settings.blockedWords, word);
    return { settings: { ...settings, blockedWords: words }, removed };
  },
  listWrites: true,
  said: (change, { t }) => {
    const word = codeSpan(change.item.trim());
    if (change.sub === 'add') return t('reader.blocked_added', { word });
    return t(change.removed === false ? 'reader.blocked_absent' : 'reader.blocked_removed', {
      word,
    });
  },
  listed: (saved, { translator: { t } }) => {
    const list = saved.blockedWords.map((w) => codeSpan(w)).join(', ');
    return `${t('reader.blocked_list', { size: saved.blockedWords.length })}\n${list || t('reader.dictionary_empty')}`;
  },
};
