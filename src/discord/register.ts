import { createHash } from 'node:crypto';
import type { Client } from 'discord.js';
import type Keyv from 'keyv';
import type { Logger } from '../log/index.ts';
import { type ApiVersion, type Command, definitionOf } from './command.ts';

/**
 * Registers the slash commands (globally, or to one guild in development)
 * when their definitions changed since the last registration, or always with `force`.
 */
export async function registerCommands(options: {
  client: Client<true>;
  commands: ReadonlyMap<string, Command>;
  keyv: Keyv;
  logger: Logger;
  guildId?: string | undefined;
  force?: boolean;
  /** The TTS API version: options it cannot use are not offered. */
  api: ApiVersion;
}): Promise<boolean> {
  const { client, commands, keyv, logger, guildId, api } = options;
  const definitions = [...commands.values()].map((command) => definitionOf(command, api));
  const target = guildId === undefined ? 'global' : `guild:${guildId}`;
  const hash = createHash('sha256').update(JSON.stringify({ target, definitions })).digest('hex');
  const storeKey = `commands:${client.application.id}:${target}`;
  if (!options.force && (await keyv.get(storeKey)) === hash) {
    logger.debug({ target }, 'slash commands unchanged');
    return false;
  }
  if (guildId === undefined) await client.application.commands.set(definitions);
  else await client.application.commands.set(definitions, guildId);
  await keyv.set(storeKey, hash);
  logger.info({ target, count: definitions.length }, 'registered slash commands');
  return true;
}
