/**
 * Hands the chat reader what Discord says about messages: created, edited, deleted. Needs the
 * GuildMessages and (privileged) MessageContent intents, and `Partials.Message` so edits and
 * deletes of messages the bot does not cache still arrive.
 */
import {
  type Client,
  Events,
  type Message,
  MessageFlags,
  MessageReferenceType,
  type PartialMessage,
  PermissionFlagsBits,
} from 'discord.js';
import type { Logger } from '../log/index.ts';
import type { ChatContent, ChatReader, IncomingMessage } from '../reader/index.ts';

/** What a message (or a forwarded message's snapshot) carries that can be spoken. */
function contentOf(
  message: Pick<Message | PartialMessage, 'content' | 'attachments' | 'stickers'>,
): ChatContent {
  return {
    content: message.content ?? '',
    attachments: [...message.attachments.values()].map((a) => ({
      name: a.name,
      contentType: a.contentType,
    })),
    stickers: [...message.stickers.values()].map((s) => s.name),
  };
}

/** The message a forward carries (Discord sends it as a snapshot), if `message` is a forward. */
function forwardedOf(message: Message | PartialMessage): ChatContent | undefined {
  if (message.reference?.type !== MessageReferenceType.Forward) return undefined;
  const snapshot = message.messageSnapshots.first();
  return snapshot === undefined ? undefined : contentOf(snapshot);
}

/** A poll's question and answers as text, if the message carries one. */
function pollOf(message: Message | PartialMessage): ChatContent['poll'] {
  const poll = message.poll;
  if (poll === null || poll === undefined) return undefined;
  return {
    question: poll.question.text ?? '',
    answers: [...poll.answers.values()].flatMap((answer) => answer.text ?? []),
  };
}

/**
 * A discord.js message as the reader's plain input; undefined outside servers or without content.
 * A forward (read only with `forwards` on) is read as what it forwards (its content also meets
 * `ignore-prefixes`), a poll as its question and answers; @silent ones say so (`silent`).
 */
export function incomingMessage(message: Message | PartialMessage): IncomingMessage | undefined {
  const { guild, author } = message;
  if (guild === null || author === null || message.content === null) return undefined;
  const member = message.member;
  const forwarded = forwardedOf(message);
  const poll = pollOf(message);
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
    joinedAt: member?.joinedTimestamp ?? undefined,
    content:
      message.content === '' && forwarded !== undefined ? forwarded.content : message.content,
    silent: message.flags.has(MessageFlags.SuppressNotifications),
    ...(forwarded === undefined ? {} : { forward: true }),
    message: {
      ...contentOf(message),
      ...(forwarded === undefined ? {} : { forwarded }),
      ...(poll === undefined ? {} : { poll }),
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
