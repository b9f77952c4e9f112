/**
 * `/config dictionary add|remove|list`: the server's pronunciation dictionary for streamer
 * mode. A list group over the settings store.
 */
import { addDictionaryEntry, removeDictionaryEntry } from '../reader/config.ts';
import { codeSpan, quoteSafely } from '../speech/index.ts';
import { READER_BOUNDS } from '../store/index.ts';
import type { ListGroup } from './list-group.ts';
import { described } from './localize.ts';

/** A word as written and, for `add`, what to say instead. */
interface Entry {
  readonly word: string;
  readonly replacement: string;
}

/** The `dictionary` group: a word and its replacement, stored in `dictionary`. */
export const dictionaryGroup: ListGroup<Entry> = {
  name: 'dictionary',
  addOptions: (sub) =>
    sub
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
  removeOptions: (sub) =>
    sub.addStringOption((o) =>
      described(o.setName('word'), 'commands.config.dictionary-remove-word').setRequired(true),
    ),
  item: ({ options }, sub) => ({
    word: options.getString('word', true),
    // `remove` has no replacement option.
    replacement: sub === 'add' ? options.getString('replacement', true) : '',
  }),
  add: (settings, { word, replacement }) => ({
    ...settings,
    dictionary: addDictionaryEntry(settings.dictionary, word, replacement),
  }),
  remove: (settings, { word }) => {
    const { entries, removed } = removeDictionaryEntry(settings.dictionary, word);
    return { settings: { ...settings, dictionary: entries }, removed };
  },
  listWrites: true,
  said: (change, { t }) => {
    const word = codeSpan(change.item.word);
    if (change.sub === 'add') return t('reader.word_added', { word });
    return t(change.removed === false ? 'reader.word_absent' : 'reader.word_removed', { word });
  },
  listed: (saved, { translator: { t } }) => {
    const entries = saved.dictionary
      .map(
        (e) =>
          `${codeSpan(e.word)} → ${quoteSafely(e.replacement, 200) || t('reader.says_nothing')}`,
      )
      .join('\n');
    return `${t('reader.dictionary', { size: saved.dictionary.length })}\n${entries || t('reader.dictionary_empty')}`;
  },
};
