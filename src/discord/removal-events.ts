/**
 * A server removing the bot, or adding it back, told to the removal scheduler (`src/privacy`).
 * discord.js emits `guildDelete` only for a real removal: a `GUILD_DELETE` with
 * `unavailable: true` (an outage) becomes `guildUnavailable` instead (`GuildDeleteAction`).
 */
import { type Client, Events, type Guild } from 'discord.js';
import type { Logger } from '../log/index.ts';
import type { RemovalScheduler } from '../privacy/index.ts';
import type { TwitchSource } from '../reader/index.ts';

/** Wires removal and re-add to `scheduler`; returns a function that removes the listeners. */
export function wireRemovalEvents(
  client: Client,
  scheduler: Pick<RemovalScheduler, 'removed' | 'readded'>,
  logger: Logger,
): () => void {
  const onRemoved = (guild: Guild): void => {
    scheduler
      .removed(guild.id)
      .catch((error: unknown) =>
        logger.error(
          { err: error, guildId: guild.id },
          'could not record a server removal now; the next sweep tries again',
        ),
      );
  };
  // `guildCreate` comes only for a server joined while ready (start-up's come as READY).
  const onAdded = (guild: Guild): void => {
    scheduler
      .readded(guild.id)
      .catch((error: unknown) =>
        logger.error(
          { err: error, guildId: guild.id },
          'could not cancel a re-added server’s deletion now; the sweep will, seeing it back',
        ),
      );
  };
  client.on(Events.GuildDelete, onRemoved);
  client.on(Events.GuildCreate, onAdded);
  return () => {
    client.off(Events.GuildDelete, onRemoved);
    client.off(Events.GuildCreate, onAdded);
  };
}

/**
 * A server's Twitch reading follows the bot's membership: removed, it stops reading (its
 * settings stay for `DATA_RETENTION`, but nothing is read for a server the bot is not in);
 * added back, it reads its channels again, as at start. Returns a function that removes the
 * listeners.
 */
export function wireTwitchLifecycle(
  client: Client,
  twitch: Pick<TwitchSource, 'stopAll' | 'sync'>,
  logger: Logger,
): () => void {
  const onRemoved = (guild: Guild): void => twitch.stopAll(guild.id);
  const onAdded = (guild: Guild): void => {
    twitch
      .sync(guild.id)
      .catch((error: unknown) =>
        logger.warn({ err: error, guildId: guild.id }, 'could not start reading Twitch chat'),
      );
  };
  client.on(Events.GuildDelete, onRemoved);
  client.on(Events.GuildCreate, onAdded);
  return () => {
    client.off(Events.GuildDelete, onRemoved);
    client.off(Events.GuildCreate, onAdded);
  };
}
