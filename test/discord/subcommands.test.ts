import type {
  ButtonInteraction,
  ChatInputCommandInteraction,
  ModalSubmitInteraction,
} from 'discord.js';
import { SlashCommandBuilder } from 'discord.js';
import { describe, expect, test } from 'vitest';
import { partOf, type SubcommandPart, withParts } from '../../src/discord/index.ts';

/** A part adding plain subcommands, answering nothing (routing is what is tested). */
function part(...names: string[]): SubcommandPart {
  return {
    names,
    build: (builder) =>
      names.reduce(
        (b, name) => b.addSubcommand((sub) => sub.setName(name).setDescription(name)),
        builder,
      ),
    execute: () => Promise.resolve(),
  };
}

/** Just what `partOf` reads of a slash command interaction. */
function slash(group: string | null, subcommand: string): ChatInputCommandInteraction {
  const options = { getSubcommandGroup: () => group, getSubcommand: () => subcommand };
  return {
    isModalSubmit: () => false,
    isButton: () => false,
    options,
  } as unknown as ChatInputCommandInteraction;
}

describe('a command in parts', () => {
  const key = part('api-key', 'remove-api-key');
  const show = part('show');
  const dictionary = part('dictionary');
  const parts = [key, show, dictionary];

  test('its data holds every part’s subcommands, in the parts’ order', () => {
    const data = withParts(new SlashCommandBuilder().setName('c').setDescription('c'), parts);
    expect(data.toJSON().options?.map((option) => option.name)).toEqual([
      'api-key',
      'remove-api-key',
      'show',
      'dictionary',
    ]);
  });

  test.each([
    [null, 'remove-api-key', key],
    [null, 'show', show],
    ['dictionary', 'add', dictionary],
  ])('group %s, subcommand %s goes to its part', (group, subcommand, expected) => {
    expect(partOf(parts, slash(group, subcommand))).toBe(expected);
  });

  test('a modal goes to the part named after the command in its custom id', () => {
    const modal = { isModalSubmit: () => true, customId: 'c:api-key' };
    expect(partOf(parts, modal as unknown as ModalSubmitInteraction)).toBe(key);
  });

  test('a button goes to the part named after the command, whatever follows', () => {
    const button = { isModalSubmit: () => false, isButton: () => true, customId: 'c:show:again' };
    expect(partOf(parts, button as unknown as ButtonInteraction)).toBe(show);
  });

  test('a subcommand no part adds is an error, not a silent no-answer', () => {
    expect(() => partOf(parts, slash(null, 'erase'))).toThrow('no part answers erase');
  });
});
