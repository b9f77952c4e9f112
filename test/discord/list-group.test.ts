import type { ChatInputCommandInteraction, InteractionEditReplyOptions } from 'discord.js';
import { MessageFlags, SlashCommandBuilder } from 'discord.js';
import Keyv from 'keyv';
import { beforeEach, describe, expect, test } from 'vitest';
import { blockWordGroup } from '../../src/discord/block-word-config.ts';
import { dictionaryGroup } from '../../src/discord/dictionary-config.ts';
import { type CommandContext, type ListGroup, listGroup } from '../../src/discord/index.ts';
import { english } from '../../src/i18n/index.ts';
import { UserError } from '../../src/refusal/index.ts';
import { KeyvSettingsStore } from '../../src/store/index.ts';

const GUILD = 'guild-1';

/** What happened, in order: the deferral, each store call, the answer. */
let events: string[];
let store: KeyvSettingsStore;
let context: CommandContext;

beforeEach(() => {
  events = [];
  store = new KeyvSettingsStore(new Keyv());
  // The real store, with each call the helper makes noted in `events`.
  const settings = {
    guild: (id: string) => {
      events.push('guild');
      return store.guild(id);
    },
    updateGuild: (...args: Parameters<KeyvSettingsStore['updateGuild']>) => {
      events.push('updateGuild');
      return store.updateGuild(...args);
    },
  };
  context = { services: { settings }, translator: english } as unknown as CommandContext;
});

/** Runs `/config <group> <sub>` with string options; resolves with what was answered. */
async function run<Item>(
  group: ListGroup<Item>,
  sub: string,
  options: Record<string, string> = {},
): Promise<InteractionEditReplyOptions> {
  let answer: InteractionEditReplyOptions | undefined;
  const interaction = {
    guildId: GUILD,
    options: {
      getSubcommand: () => sub,
      getString: (name: string) => {
        const value = options[name];
        if (value === undefined) throw new Error(`no option ${name}`);
        return value;
      },
    },
    deferReply: ({ flags }: { flags: number }) => {
      events.push(flags === MessageFlags.Ephemeral ? 'defer privately' : 'defer');
      return Promise.resolve();
    },
    editReply: (options: InteractionEditReplyOptions) => {
      events.push('answer');
      answer = options;
      return Promise.resolve();
    },
  } as unknown as ChatInputCommandInteraction;
  await listGroup(group).execute(interaction, context);
  if (answer === undefined) throw new Error('no answer');
  return answer;
}

describe('a /config list group', () => {
  test('its data is one group: add and remove with their options, then list', () => {
    const part = listGroup(dictionaryGroup);
    expect(part.names).toEqual(['dictionary']);
    const data = part.build(new SlashCommandBuilder().setName('c').setDescription('c')).toJSON();
    const [group] = data.options ?? [];
    expect(group?.name).toBe('dictionary');
    expect(group?.description).toBe('Words the reader says differently');
    const subs = group !== undefined && 'options' in group ? (group.options ?? []) : [];
    expect(
      subs.map((sub) => [
        sub.name,
        'options' in sub ? (sub.options ?? []).map((option) => option.name) : [],
      ]),
    ).toEqual([
      ['add', ['word', 'replacement']],
      ['remove', ['word']],
      ['list', []],
    ]);
  });

  test('add answers privately before the store, then says what it did above the list', async () => {
    const answer = await run(blockWordGroup, 'add', { word: ' Darn ' });
    expect(events).toEqual(['defer privately', 'updateGuild', 'answer']);
    expect(answer).toEqual({
      content: 'Blocked `Darn`.\n**Blocked words** (1):\n`Darn`',
      allowedMentions: { parse: [] },
    });
    expect((await store.guild(GUILD)).blockedWords).toEqual(['Darn']);
  });

  test.each([
    ['there', ['darn'], 'Unblocked `darn`.'],
    ['not there', ['heck'], '`darn` was not blocked.'],
  ])('remove of a word %s says so', async (_, words, said) => {
    await store.setGuild(GUILD, { blockedWords: words });
    const answer = await run(blockWordGroup, 'remove', { word: 'darn' });
    expect(answer.content?.split('\n')[0]).toBe(said);
  });

  test('list is the list alone, written back through the locked update', async () => {
    const answer = await run(dictionaryGroup, 'list');
    expect(events).toEqual(['defer privately', 'updateGuild', 'answer']);
    expect(answer.content).toBe('**Dictionary** (0):\nempty');
  });

  test('a group whose list does not write only reads the settings', async () => {
    await run({ ...blockWordGroup, listWrites: false }, 'list');
    expect(events).toEqual(['defer privately', 'guild', 'answer']);
  });

  test('a refused add is no answer here (the router renders it) and writes nothing', async () => {
    await expect(run(blockWordGroup, 'add', { word: '!!!' })).rejects.toThrow(UserError);
    expect(events).toEqual(['defer privately', 'updateGuild']);
    expect((await store.guild(GUILD)).blockedWords).toEqual([]);
  });

  test('the answer is cut at Discord’s 2,000 characters', async () => {
    const replacement = 'x'.repeat(100);
    await store.setGuild(GUILD, {
      dictionary: Array.from({ length: 40 }, (_, i) => ({ word: `w${i}`, replacement })),
    });
    const answer = await run(dictionaryGroup, 'list');
    expect(answer.content).toHaveLength(2000);
  });

  test('a subcommand the group does not have is an error, not a silent no-answer', async () => {
    await expect(run(blockWordGroup, 'erase')).rejects.toThrow('has no subcommand erase');
    expect(events).toEqual([]);
  });
});
