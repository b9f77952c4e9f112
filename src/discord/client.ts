import { Client, GatewayIntentBits, Options, Partials } from 'discord.js';

/** What a bot owner must do when Discord refuses the Message Content intent (close code 4014). */
export const MESSAGE_CONTENT_REFUSED =
  'Discord refused the Message Content intent, so chat messages cannot be read aloud (streamer mode is off; everything else works). Enable it in the Discord developer portal: your application → Bot → Privileged Gateway Intents → Message Content Intent, then restart the bot.';

/**
 * A discord.js client with only the intents the bot needs (guilds and voice states; with
 * `readMessages`, guild messages and their content for the chat reader) and bounded caches,
 * so thousands of servers do not mean every member and message kept in memory.
 */
export function createDiscordClient(options: {
  apiUrl?: string | undefined;
  readMessages?: boolean;
}): Client {
  const messages = options.readMessages
    ? [GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent]
    : [];
  return new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates, ...messages],
    // Partial messages: edits and deletes of messages the bot does not cache still arrive.
    partials: [Partials.GuildMember, ...(options.readMessages ? [Partials.Message] : [])],
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
