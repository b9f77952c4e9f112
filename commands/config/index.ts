/**
 * `/config` (Manage Server), one file per group of subcommands. A new group is one more file
 * here and its line in `parts`; the order of `parts` is the order Discord shows.
 */
import { PermissionFlagsBits } from 'discord.js';
import {
  type ApiVersion,
  type Command,
  guildCommand,
  partOf,
  requireManager,
  withParts,
} from '../../src/discord/index.ts';
import blockWord from './block-word.ts';
import defaults from './defaults.ts';
import dictionary from './dictionary.ts';
import forget from './forget.ts';
import key from './key.ts';
import limits from './limits.ts';
import memberName from './member-name.ts';
import read from './read.ts';
import readChannel from './read-channel.ts';
import reader from './reader.ts';
import show from './show.ts';
import twitch from './twitch.ts';

const parts = [
  key,
  defaults,
  show,
  limits,
  readChannel,
  twitch,
  read,
  reader,
  memberName,
  dictionary,
  blockWord,
  forget,
];

/** `/config` as offered on `api` (v3's money and language options only there; absent: all). */
const dataFor = (api?: ApiVersion) =>
  withParts(
    guildCommand('config').setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild),
    parts,
    api,
  );

export default {
  data: dataFor(),
  dataFor,

  async execute(interaction, context) {
    requireManager(interaction);
    await partOf(parts, interaction).execute(interaction, context);
  },

  async autocomplete(interaction, context) {
    await partOf(parts, interaction).autocomplete?.(interaction, context);
  },

  async modal(interaction, context) {
    requireManager(interaction);
    await partOf(parts, interaction).modal?.(interaction, context);
  },

  async button(interaction, context) {
    requireManager(interaction);
    await partOf(parts, interaction).button?.(interaction, context);
  },
} satisfies Command;
