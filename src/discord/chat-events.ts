/**
 * Hands the chat reader what Discord says about messages: created, edited, deleted. Needs the
 * GuildMessages and (privileged) MessageContent intents, and `Partials.Message` so edits and
 * deletes of messages the bot does not cache still arrive.
 */
import {
  type Client,
  Events,
  type Message,
  type PartialMessage,
  PermissionFlagsBits,
} from 'discord.js';
import type { Logger } from '../log/index.ts';
import type { ChatReader, IncomingMessage } from '../reader/index.ts';

/** A discord.js message as the reader's plain input; undefined outside servers or without content. */
export function incomingMessage(message: Message | PartialMessage): IncomingMessage | undefined {
  const { guild, author } = message;
  if (guild === null || author === null || message.content === null) return undefined;
  const member = message.member;
  return {
    id: message.id,
    guildId: guild.id,
    channelId: message.channelId,
    authorId: author.id,
    authorName: member?.displayName ?? author.displayName,
    self: author.id === message.client.user.id,
    bot: author.bot,
    webhook: message.webhookId !== null,
    roleIds: member ? [...member.roles.cache.keys()].filter((id) => id !== guild.id) : [],
    authorVoiceChannelId: guild.voiceStates.cache.get(author.id)?.channelId ?? undefined,
    content: message.content,
    message: {
      content: message.content,
      attachments: [...message.attachments.values()].map((a) => ({
        name: a.name,
        contentType: a.contentType,
      })),
      stickers: [...message.stickers.values()].map((s) => s.name),
    },
    names: {
      user: (id) =>
        message.mentions.members?.get(id)?.displayName ??
        guild.members.cache.get(id)?.displayName ??
        message.mentions.users.get(id)?.displayName ??
        message.client.users.cache.get(id)?.displayName,
      role: (id) => guild.roles.cache.get(id)?.name,
      // Named only when the author can see it: reading a mention aloud must not tell the
      // stream about a channel hidden from them ("a channel" instead). Without a member (a
      // webhook, a partial edit), as @everyone sees it.
      channel: (id) => {
        const channel = guild.channels.cache.get(id);
        const viewer = member ?? guild.roles.everyone;
        const visible = channel?.permissionsFor(viewer)?.has(PermissionFlagsBits.ViewChannel);
        return visible === true ? channel?.name : undefined;
      },
    },
  };
}

/** Listens to message events and passes them to `reader`; returns a function that stops it. */
export function wireChatEvents(client: Client, reader: ChatReader, logger: Logger): () => void {
  const failed = (error: unknown): void => logger.error({ err: error }, 'chat reader failed');
  const onCreate = (message: Message): void => {
    const incoming = incomingMessage(message);
    if (incoming !== undefined) reader.created(incoming).catch(failed);
  };
  const onUpdate = (_: unknown, message: Message | PartialMessage): void => {
    const incoming = incomingMessage(message);
    if (incoming !== undefined) reader.edited(incoming).catch(failed);
  };
  const onDelete = (message: Message | PartialMessage): void => {
    if (message.guildId !== null) reader.deleted(message.guildId, message.id).catch(failed);
  };
  const onBulkDelete = (messages: ReadonlyMap<string, Message | PartialMessage>): void => {
    for (const message of messages.values()) onDelete(message);
  };
  client.on(Events.MessageCreate, onCreate);
  client.on(Events.MessageUpdate, onUpdate);
  client.on(Events.MessageDelete, onDelete);
  client.on(Events.MessageBulkDelete, onBulkDelete);
  return () => {
    client.off(Events.MessageCreate, onCreate);
    client.off(Events.MessageUpdate, onUpdate);
    client.off(Events.MessageDelete, onDelete);
    client.off(Events.MessageBulkDelete, onBulkDelete);
  };
}
