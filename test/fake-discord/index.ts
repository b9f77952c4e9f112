/**
 * A fake Discord (REST + gateway on 127.0.0.1) that the real discord.js client logs into, for
 * end-to-end tests. Voice media is served by `./voice/` through the `VoiceBackend` hook.
 *
 * @example
 * const fake = await startFakeDiscord({ voice: fakeVoiceServer });
 * const client = new Client({ intents, rest: { api: fake.apiUrl } });
 * await client.login(fake.token);
 * const say = fake.slash({ user: 'member', name: 'say', options: { text: 'hi' } });
 * const reply = await say.waitForReply(); // reply.attachments, reply.flags & 64
 * const [audio] = say.files(); // { filename, contentType, data: Buffer }
 * const submitted = await fake.slash({ user: 'admin', name: 'settings', subcommand: 'key' })
 *   .submitModal({ 'api-key': 'k' });
 * fake.clickButton({ user: 'member', message: reply, customId: 'skip' });
 * await client.destroy();
 * await fake.close();
 */
import type { Server } from 'node:http';
import { CommandStore } from './commands.ts';
import {
  dispatchGuildCreate,
  dispatchGuildDelete,
  dispatchMemberUpdate,
  dispatchMessageCreate,
  dispatchMessageDelete,
  identifyPayloads,
  membersChunk,
} from './dispatches.ts';
import { Gateway } from './gateway.ts';
import type { InteractionHandle } from './handle.ts';
import { type ClickInput, Interactions, type SlashInput } from './interactions.ts';
import { MessageStore } from './messages.ts';
import { startRest } from './rest.ts';
import type {
  FakeDiscordOptions,
  GuildOptions,
  Json,
  MessageJson,
  RecordedRequest,
  StoredCommand,
  UserRef,
} from './types.ts';
import { VoiceHub } from './voice-hook.ts';
import { randomToken, type VoiceStateEntry, World, type WorldGuild } from './world.ts';

export type { InteractionHandle } from './handle.ts';
export type { ClickInput, SlashInput } from './interactions.ts';
export type * from './types.ts';
export type { VoiceStateEntry } from './world.ts';
export { Permission } from './world.ts';

/** Ids of one guild of the fake world. */
export interface GuildIds {
  id: string;
  name: string;
  textChannelId: string;
  voiceChannelId: string;
  /** Where Discord posts system messages (welcome, boosts); null: none. */
  systemChannelId: string | null;
  /** Every channel by name. */
  channels: Record<string, string>;
  /** Every role by name ('@everyone', 'Admins', 'tts-bot' and `GuildOptions.roles`). */
  roles: Record<string, string>;
}

/** A user's id and name. */
export interface BriefUser {
  id: string;
  username: string;
}

/** What the bot registered. */
export interface RegisteredCommands {
  global: StoredCommand[];
  guilds: Record<string, StoredCommand[]>;
  /** Bulk overwrites (PUT) received, global and guild together. */
  putCount: number;
}

/** A running fake Discord; see `startFakeDiscord`. */
export class FakeDiscord {
  /** For `new Client({ rest: { api: fake.apiUrl } })`. */
  readonly apiUrl: string;
  readonly gatewayUrl: string;
  readonly token: string;
  readonly applicationId: string;
  readonly botUser: BriefUser;
  /** 'admin' (Manage Server), 'member' (none) and any `extraUsers`. */
  readonly users: Readonly<{ admin: BriefUser; member: BriefUser; [name: string]: BriefUser }>;
  /** The first guild. */
  readonly guild: GuildIds;
  readonly guilds: GuildIds[];
  /** Every REST request received, in order. */
  readonly requests: RecordedRequest[];
  readonly #world: World;
  readonly #server: Server;
  readonly #gateway: Gateway;
  readonly #commands: CommandStore;
  readonly #messages: MessageStore;
  readonly #interactions: Interactions;
  readonly #voice: VoiceHub;
  readonly #ready: Promise<void>;

  /** Use `startFakeDiscord`. */
  constructor(parts: {
    world: World;
    token: string;
    baseUrl: string;
    server: Server;
    gateway: Gateway;
    commands: CommandStore;
    messages: MessageStore;
    interactions: Interactions;
    voice: VoiceHub;
    requests: RecordedRequest[];
    ready: Promise<void>;
  }) {
    const world = parts.world;
    this.#world = world;
    this.#server = parts.server;
    this.#gateway = parts.gateway;
    this.#commands = parts.commands;
    this.#messages = parts.messages;
    this.#interactions = parts.interactions;
    this.#voice = parts.voice;
    this.#ready = parts.ready;
    this.apiUrl = `${parts.baseUrl}/api`;
    this.gatewayUrl = parts.gateway.url;
    this.token = parts.token;
    this.applicationId = world.applicationId;
    this.requests = parts.requests;
    const brief = (u: BriefUser): BriefUser => ({ id: u.id, username: u.username });
    this.botUser = brief(world.bot);
    this.users = {
      ...Object.fromEntries([...world.users].map(([key, user]) => [key, brief(user)])),
      admin: brief(world.user('admin')),
      member: brief(world.user('member')),
    };
    this.guilds = world.guilds.map(guildIds);
    const first = this.guilds[0];
    if (!first) throw new Error('fake-discord: the world needs at least one guild');
    this.guild = first;
  }

  /** Resolves once the bot has identified on the gateway on every shard (READY and GUILD_CREATEs sent). */
  whenReady(): Promise<void> {
    return this.#ready;
  }

  /** The commands the bot registered, and how many bulk overwrites it made. */
  commands(): RegisteredCommands {
    return {
      global: structuredClone(this.#commands.global),
      guilds: Object.fromEntries(structuredClone([...this.#commands.guilds])),
      putCount: this.#commands.putCount,
    };
  }

  /** Sends a slash command from `user`; throws if it was not registered or the input is invalid. */
  slash(input: SlashInput): InteractionHandle {
    return this.#interactions.slash(input);
  }

  /** Sends an autocomplete for `focused` and resolves with the choices the bot answered. */
  autocomplete(input: SlashInput & { focused: string }, timeoutMs?: number): Promise<Json[]> {
    return this.#interactions.autocomplete(input, timeoutMs);
  }

  /** Clicks a button on a message the bot sent (a `MessageJson` or its id). */
  clickButton(input: ClickInput): InteractionHandle {
    return this.#interactions.clickButton(input);
  }

  /** The handle of an interaction by id or token. */
  interaction(idOrToken: string): InteractionHandle | undefined {
    return this.#interactions.find(idOrToken);
  }

  /** Current state of a stored message by id. */
  message(id: string): MessageJson | undefined {
    const message = this.#messages.get(id);
    return message ? structuredClone(message) : undefined;
  }

  /** Plain channel messages (bot posts and `sendMessage`), not interaction responses; oldest first. */
  channelMessages(channelId: string): MessageJson[] {
    return this.#messages
      .inChannel(channelId)
      .filter((m) => m.interaction_metadata === undefined)
      .map((m) => structuredClone(m));
  }

  /**
   * A user posts in a text channel or a voice channel's chat (`channelId` the voice channel's):
   * MESSAGE_CREATE (needs GuildMessages; content needs MessageContent). With `webhook`, the
   * message is relayed by a webhook of that name (a bot author, no member), as chat bridges
   * post. Also as Discord sends them: `flags` (4096: @silent), `stickers` (`sticker_items`), a
   * forward (`message_reference` of type 1 and a `message_snapshots` entry; no content of its
   * own) and a `poll`.
   */
  sendMessage(input: {
    user?: UserRef;
    channelId?: string;
    content: string;
    webhook?: { name: string };
    attachments?: Array<{ filename: string; contentType: string; size?: number }>;
    flags?: number;
    stickers?: readonly string[];
    forward?: {
      content: string;
      attachments?: Array<{ filename: string; contentType: string }>;
      stickers?: readonly string[];
    };
    poll?: { question: string; answers: readonly string[] };
  }): MessageJson {
    const channelId = input.channelId ?? this.guild.textChannelId;
    const found = this.#world.channel(channelId);
    if (found?.channel.type !== 0 && found?.channel.type !== 2)
      throw new Error(`fake-discord: ${channelId} is not a text or voice channel`);
    const webhookId = input.webhook ? this.#world.nextId() : undefined;
    const author = input.webhook
      ? {
          id: webhookId,
          username: input.webhook.name,
          discriminator: '0000',
          avatar: null,
          bot: true,
        }
      : this.#world.user(input.user ?? 'member');
    const attachmentsOf = (
      files: Array<{ filename: string; contentType: string; size?: number }>,
    ) =>
      files.map((file) => {
        const id = this.#world.nextId();
        const url = `${this.apiUrl}/attachments/${channelId}/${id}/${encodeURIComponent(file.filename)}`;
        return {
          id,
          filename: file.filename,
          size: file.size ?? 1024,
          content_type: file.contentType,
          url,
          proxy_url: url,
        };
      });
    const stickerItems = (names: readonly string[]) =>
      names.map((name) => ({ id: this.#world.nextId(), name, format_type: 1 }));
    const forward = input.forward;
    const message = this.#messages.create({
      channelId,
      guildId: found.guild.id,
      author,
      data: { content: input.content, flags: input.flags ?? 0 },
      files: [],
      type: 0,
      extra: {
        ...(webhookId ? { webhook_id: webhookId } : {}),
        attachments: attachmentsOf(input.attachments ?? []),
        ...(input.stickers ? { sticker_items: stickerItems(input.stickers) } : {}),
        ...(forward
          ? {
              message_reference: {
                type: 1,
                message_id: this.#world.nextId(),
                channel_id: channelId,
                guild_id: found.guild.id,
              },
              message_snapshots: [
                {
                  message: {
                    type: 0,
                    content: forward.content,
                    embeds: [],
                    attachments: attachmentsOf(forward.attachments ?? []),
                    ...(forward.stickers ? { sticker_items: stickerItems(forward.stickers) } : {}),
                    timestamp: new Date().toISOString(),
                    edited_timestamp: null,
                    flags: 0,
                    mentions: [],
                    mention_roles: [],
                  },
                },
              ],
            }
          : {}),
        ...(input.poll
          ? {
              poll: {
                question: { text: input.poll.question },
                answers: input.poll.answers.map((text, i) => ({
                  answer_id: i + 1,
                  poll_media: { text },
                })),
                expiry: new Date(Date.now() + 86_400_000).toISOString(),
                allow_multiselect: false,
                layout_type: 1,
              },
            }
          : {}),
      },
    });
    dispatchMessageCreate(this.#world, this.#gateway, message);
    return structuredClone(message);
  }

  /** The author edits a message posted with `sendMessage`: MESSAGE_UPDATE with the new content. */
  editMessage(id: string, content: string): MessageJson {
    const message = this.#messages.get(id);
    if (!message) throw new Error(`fake-discord: unknown message ${id}`);
    const edited = this.#messages.edit(id, { content }, []);
    dispatchMessageCreate(this.#world, this.#gateway, edited, 'MESSAGE_UPDATE');
    return structuredClone(edited);
  }

  /** A message is deleted (by its author or a moderator): MESSAGE_DELETE. */
  deleteMessage(id: string): void {
    const message = this.#messages.get(id);
    if (!message || !this.#messages.delete(id))
      throw new Error(`fake-discord: unknown message ${id}`);
    dispatchMessageDelete(this.#gateway, message);
  }

  /** Voice states of a guild (default: the first). */
  voiceStates(guildId = this.guild.id): VoiceStateEntry[] {
    return this.#voice.states(guildId);
  }

  /** A member joins/moves to a voice channel, or leaves voice with `channelId: null`. */
  moveMember(input: { userId: UserRef; channelId: string | null; guildId?: string }): void {
    this.#voice.moveMember(this.#world.user(input.userId).id, input.channelId, input.guildId);
  }

  /** Someone drags the bot to another voice channel of the guild (see `VoiceHub.moveBot`). */
  moveBot(channelId: string, guildId = this.guild.id): void {
    this.#voice.moveBot(guildId, channelId);
  }

  /** Server-side disconnect of the bot from voice (as when kicked). */
  disconnectBot(guildId = this.guild.id): void {
    this.#voice.disconnectBot(guildId);
  }

  /** Deletes a channel; members in it leave voice first. */
  deleteChannel(channelId: string): void {
    this.#voice.deleteChannel(channelId);
  }

  /**
   * A server admin gives a member a role (`has` true) or takes it away: GUILD_MEMBER_UPDATE to a
   * bot with the GuildMembers intent; every later member payload (messages, voice states,
   * interactions) carries the new `roles`.
   */
  setRole(input: { user: UserRef; role: string; has: boolean; guildId?: string }): void {
    const guild = this.#world.guild(input.guildId ?? this.guild.id);
    const userId = this.#world.user(input.user).id;
    if (this.#world.setRole(guild, userId, input.role, input.has))
      dispatchMemberUpdate(this.#world, this.#gateway, guild, userId);
  }

  /**
   * An admin changes the server's community language (Server Settings → Community): GUILD_UPDATE
   * with the new `preferred_locale`, which discord.js keeps as `guild.preferredLocale`.
   */
  setGuildLocale(locale: string, guildId = this.guild.id): void {
    const guild = this.#world.guild(guildId);
    guild.locale = locale;
    this.#gateway.dispatch('GUILD_UPDATE', this.#world.guildUpdate(guild));
  }

  /**
   * The bot is invited to a new server: the guild joins the world (the bot and every user are
   * members) and the bot's session gets its GUILD_CREATE, as Discord sends after an invite.
   */
  joinGuild(spec: GuildOptions = {}): GuildIds {
    const guild = this.#world.addGuild(spec);
    const ids = guildIds(guild);
    this.guilds.push(ids);
    dispatchGuildCreate(this.#world, this.#gateway, guild);
    return ids;
  }

  /**
   * The bot is removed from a server (kicked, or the server deleted): the guild leaves the world
   * and the bot's session gets GUILD_DELETE. With `outage`, the server only becomes unavailable
   * (`unavailable: true`) and stays; {@link FakeDiscord.rejoinGuild} brings it back.
   */
  leaveGuild(guildId: string, options: { outage?: boolean } = {}): void {
    if (options.outage) this.#world.guild(guildId);
    else {
      this.#world.removeGuild(guildId);
      this.guilds.splice(
        this.guilds.findIndex((ids) => ids.id === guildId),
        1,
      );
    }
    dispatchGuildDelete(this.#gateway, guildId, options.outage === true);
  }

  /**
   * The bot is invited back to a server it was removed from (same ids), or a server's outage
   * ends: its GUILD_CREATE is sent again.
   */
  rejoinGuild(guildId: string): GuildIds {
    const removed = !this.#world.guilds.some((guild) => guild.id === guildId);
    const guild = removed ? this.#world.restoreGuild(guildId) : this.#world.guild(guildId);
    const ids = guildIds(guild);
    if (removed) this.guilds.push(ids);
    dispatchGuildCreate(this.#world, this.#gateway, guild);
    return ids;
  }

  /** Sends any dispatch to the connected bot (escape hatch). */
  dispatch(type: string, data: unknown): void {
    this.#gateway.dispatch(type, data);
  }

  /** Closes the gateway and the HTTP server and rejects pending waits. */
  async close(): Promise<void> {
    this.#interactions.dispose();
    await this.#gateway.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.#server.close((error) => (error ? reject(error) : resolve())),
    );
  }
}

/** Starts a fake Discord on 127.0.0.1 (REST and gateway on free ports). */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const world = new World(options);
  const token = options.token ?? `${randomToken(18)}.${randomToken(6)}.${randomToken(27)}`;
  const requests: RecordedRequest[] = [];
  const uploadLimitBytes = options.uploadLimitBytes ?? 10 * 1024 * 1024;
  const commands = new CommandStore(world.nextId, world.applicationId);
  let baseUrl = '';
  let gateway: Gateway | undefined;
  const messages = new MessageStore(world.nextId, () => baseUrl);
  const rest = await startRest({
    world,
    token,
    gatewayUrl: () => gateway?.url ?? '',
    commands,
    messages,
    interactions: () => interactions,
    requests,
    uploadLimitBytes,
    messageCreated: (message) => {
      if (gateway) dispatchMessageCreate(world, gateway, message as MessageJson);
    },
  });
  baseUrl = rest.baseUrl;
  const { promise: ready, resolve: identified } = Promise.withResolvers<void>();
  const shardsIdentified = new Set<number>();
  let voice: VoiceHub | undefined;
  gateway = await Gateway.start({
    token,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    ...(options.disallowedIntents === undefined
      ? {}
      : { disallowedIntents: options.disallowedIntents }),
    identify: (session) => {
      if (session.shard === undefined) queueMicrotask(identified);
      else {
        shardsIdentified.add(session.shard[0]);
        if (shardsIdentified.size >= session.shard[1]) queueMicrotask(identified);
      }
      return identifyPayloads(world, session);
    },
    voiceStateUpdate: (session, data) => voice?.botUpdate(session, data),
    requestMembers: (session, data) => membersChunk(world, gateway, session, data),
  });
  voice = new VoiceHub(world, gateway, options.voice);
  const interactions = new Interactions(world, gateway, commands, messages, uploadLimitBytes);
  return new FakeDiscord({
    ...{ world, token, baseUrl, server: rest.server, gateway, commands, messages },
    ...{ interactions, voice, requests, ready },
  });
}

function guildIds(guild: WorldGuild): GuildIds {
  return {
    id: guild.id,
    name: guild.name,
    textChannelId: guild.textChannelId,
    voiceChannelId: guild.voiceChannelId,
    systemChannelId: guild.systemChannelId,
    channels: Object.fromEntries(guild.channels.map((c) => [String(c.name), String(c.id)])),
    roles: Object.fromEntries(guild.roles.map((r) => [String(r.name), String(r.id)])),
  };
}
