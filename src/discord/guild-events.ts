/**
 * Says hello once when the bot is added to a server: how an admin sets it up, in the server's
 * own language, in its system channel. Never a DM, and nothing where the bot may not post.
 */
import { type Client, Events, type Guild, PermissionFlagsBits, type TextChannel } from 'discord.js';
import { translatorFor } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';

/** The server's system channel when the bot may see it and post in it; otherwise none. */
export function welcomeChannel(guild: Guild): TextChannel | undefined {
  const channel = guild.systemChannel;
  const me = guild.members.me;
  if (channel === null || me === null) return undefined;
  const allowed = channel
    .permissionsFor(me)
    .has([PermissionFlagsBits.ViewChannel, PermissionFlagsBits.SendMessages]);
  return allowed ? channel : undefined;
}

/**
 * Posts the welcome on `guildCreate`, which discord.js emits only for a server joined while it
 * is ready: the servers of start-up (listed in READY) and of a reconnect arrive as
 * `guildAvailable` instead. Returns a function that removes the listener.
 */
export function wireGuildEvents(client: Client, logger: Logger): () => void {
  const onJoin = (guild: Guild): void => {
    const log = logger.child({ guildId: guild.id });
    const channel = welcomeChannel(guild);
    if (channel === undefined) {
      log.info('added to a server without a system channel the bot may post in: no welcome');
      return;
    }
    const { t } = translatorFor(guild.preferredLocale);
    channel.send({ content: t('welcome.text'), allowedMentions: { parse: [] } }).then(
      () => log.info({ channelId: channel.id }, 'added to a server: welcome posted'),
      (error: unknown) => log.warn({ err: error }, 'added to a server: the welcome failed'),
    );
  };
  client.on(Events.GuildCreate, onJoin);
  return () => client.off(Events.GuildCreate, onJoin);
}
