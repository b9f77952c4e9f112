import { Client, GatewayIntentBits, Options, Partials } from 'discord.js';

/**
 * A discord.js client with only the intents the bot needs (guilds and voice
 * states) and bounded caches, so thousands of servers do not mean every
 * member and message kept in memory.
 */
export function createDiscordClient(options: { apiUrl?: string | undefined }): Client {
  return new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates],
    partials: [Partials.GuildMember],
    allowedMentions: { parse: [] },
    rest: options.apiUrl === undefined ? {} : { api: options.apiUrl },
    makeCache: Options.cacheWithLimits({
      ...Options.DefaultMakeCacheSettings,
      MessageManager: 0,
      PresenceManager: 0,
      ReactionManager: 0,
      GuildMessageManager: 0,
      ThreadManager: 0,
      GuildMemberManager: {
        maxSize: 200,
        keepOverLimit: (member) => member.id === member.client.user.id,
      },
      UserManager: { maxSize: 1000, keepOverLimit: (user) => user.id === user.client.user.id },
    }),
  });
}
