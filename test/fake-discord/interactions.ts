/** Builds INTERACTION_CREATE payloads and applies the bot's callbacks and webhook calls to them. */
import { buildOptions, type CommandStore, type Invocation } from './commands.ts';
import { collectCustomIds, findComponent, modalComponents } from './components.ts';
import type { Gateway } from './gateway.ts';
import { InteractionHandle } from './handle.ts';
import { EPHEMERAL, LOADING, type MessageStore } from './messages.ts';
import type { Json, MessageJson, ReceivedFile, UserRef } from './types.ts';
import { randomToken, type World, type WorldGuild } from './world.ts';

/** A REST answer: status and JSON body (none for 204). */
export interface RestReply {
  status: number;
  body?: unknown;
}

/** Discord's JSON error body. */
export function apiError(status: number, message: string, code: number): RestReply {
  return { status, body: { message, code } };
}

/** Who invokes a command, where. */
export interface SlashInput extends Invocation {
  user: UserRef;
  /** Default: the first text channel of the first guild. */
  channelId?: string;
  /** Skip the `default_member_permissions` check Discord's client does. */
  force?: boolean;
  /** The member's client language (`interaction.locale`); default `en-US`. */
  locale?: string;
}

/** A click on a message component. */
export interface ClickInput {
  user: UserRef;
  message: MessageJson | string;
  customId: string;
  /** For select menus. */
  values?: string[];
  /** The member's client language (`interaction.locale`); default `en-US`. */
  locale?: string;
}

/** Creates interactions and routes the bot's answers to their handles. */
export class Interactions {
  readonly #world: World;
  readonly #gateway: Gateway;
  readonly #commands: CommandStore;
  readonly #messages: MessageStore;
  readonly #handles = new Map<string, InteractionHandle>();
  readonly #uploadLimitBytes: number;

  constructor(
    world: World,
    gateway: Gateway,
    commands: CommandStore,
    messages: MessageStore,
    uploadLimitBytes: number,
  ) {
    this.#uploadLimitBytes = uploadLimitBytes;
    this.#world = world;
    this.#gateway = gateway;
    this.#commands = commands;
    this.#messages = messages;
  }

  /** Sends an application command (type 2). */
  slash(input: SlashInput): InteractionHandle {
    return this.#command(2, input);
  }

  /** Sends an autocomplete (type 4) and resolves with the choices the bot answered. */
  async autocomplete(input: SlashInput & { focused: string }, timeoutMs?: number): Promise<Json[]> {
    const handle = this.#command(4, input);
    const event = await handle.waitFor((e) => e.kind === 'callback', timeoutMs);
    const choices = event.kind === 'callback' ? event.data?.choices : undefined;
    return Array.isArray(choices) ? (choices as Json[]) : [];
  }

  /** Clicks a button (or picks select values) on a stored message (type 3). */
  clickButton(input: ClickInput): InteractionHandle {
    const id = typeof input.message === 'string' ? input.message : input.message.id;
    const message = this.#messages.get(id);
    if (!message) throw new Error(`fake-discord: message ${id} does not exist (deleted?)`);
    const component = findComponent(message.components, input.customId);
    if (!component) {
      const ids = collectCustomIds(message.components);
      throw new Error(`fake-discord: no component "${input.customId}" on ${id} (has: ${ids})`);
    }
    if (component.disabled === true)
      throw new Error(`fake-discord: "${input.customId}" is disabled`);
    const data: Json = { custom_id: input.customId, component_type: component.type };
    if (input.values) data.values = input.values;
    const payload = this.#payload(3, input.user, message.channel_id, data, input.locale);
    payload.message = structuredClone(message);
    return this.#send(payload, id);
  }

  /** The handle of an interaction by id or token. */
  find(idOrToken: string): InteractionHandle | undefined {
    for (const handle of this.#handles.values()) {
      if (handle.id === idOrToken || handle.token === idOrToken) return handle;
    }
    return undefined;
  }

  /** Rejects the pending waits of every handle. */
  dispose(): void {
    for (const handle of this.#handles.values()) handle.dispose();
  }

  /** `POST /interactions/{id}/{token}/callback`. */
  callback(
    id: string,
    token: string,
    body: Json,
    files: ReceivedFile[],
    withResponse: boolean,
  ): RestReply {
    const handle = this.#handles.get(id);
    if (!handle || handle.token !== token) return apiError(404, 'Unknown interaction', 10062);
    if (handle.acknowledged) {
      return apiError(400, 'Interaction has already been acknowledged.', 40060);
    }
    const type = Number(body.type);
    const data = (body.data ?? undefined) as Json | undefined;
    if (!allowedCallbacks(handle).includes(type)) {
      return apiError(
        400,
        `Invalid Form Body (callback type ${type} for interaction type ${handle.type})`,
        50035,
      );
    }
    if (type === 4 || type === 5) {
      const flags = Number(data?.flags ?? 0);
      const messageData = type === 4 ? (data ?? {}) : { flags: (flags & EPHEMERAL) | LOADING };
      handle.originalId = this.#newMessage(handle, messageData, files).id;
    } else if (type === 6 || type === 7) {
      handle.originalId = handle.clickedMessageId;
      if (type === 7 && handle.originalId)
        this.#messages.edit(handle.originalId, data ?? {}, files);
    }
    handle.record({ kind: 'callback', type, data, files });
    if (!withResponse) return { status: 204 };
    const message = handle.originalId ? this.#messages.get(handle.originalId) : undefined;
    return {
      status: 200,
      body: {
        interaction: {
          id: handle.id,
          type: handle.type,
          response_message_id: message?.id ?? null,
          response_message_loading: type === 5,
          response_message_ephemeral: message ? (message.flags & EPHEMERAL) !== 0 : false,
        },
        resource: { type, ...(message && type !== 6 ? { message } : {}) },
      },
    };
  }

  /** `/webhooks/{app}/{token}` (follow-up) and `/webhooks/{app}/{token}/messages/{id}`. */
  webhook(
    method: string,
    applicationId: string,
    token: string,
    messageId: string | undefined,
    request: { body: Json; files: ReceivedFile[]; wait: boolean },
  ): RestReply {
    const handle = this.find(token);
    if (!handle || handle.token !== token || applicationId !== this.#world.applicationId) {
      return apiError(404, 'Unknown Webhook', 10015);
    }
    if (messageId === undefined) {
      if (method !== 'POST') return apiError(405, '405: Method Not Allowed', 0);
      if (!handle.acknowledged) return apiError(404, 'Unknown Webhook', 10015);
      const message = this.#newMessage(handle, request.body, request.files);
      handle.followUpIds.push(message.id);
      handle.record({
        kind: 'followUp',
        messageId: message.id,
        data: request.body,
        files: request.files,
      });
      return request.wait ? { status: 200, body: message } : { status: 204 };
    }
    const original = messageId === '@original';
    const id = original ? handle.originalId : messageId;
    const mine = id !== undefined && (id === handle.originalId || handle.followUpIds.includes(id));
    const message = mine ? this.#messages.get(id) : undefined;
    if (!message) return apiError(404, 'Unknown Message', 10008);
    if (method === 'GET') return { status: 200, body: message };
    if (method === 'PATCH') {
      const edited = this.#messages.edit(message.id, request.body, request.files);
      handle.record({
        kind: 'edit',
        messageId: message.id,
        original,
        data: request.body,
        files: request.files,
      });
      return { status: 200, body: edited };
    }
    if (method === 'DELETE') {
      this.#messages.delete(message.id);
      handle.record({ kind: 'delete', messageId: message.id, original });
      return { status: 204 };
    }
    return apiError(405, '405: Method Not Allowed', 0);
  }

  #command(type: 2 | 4, input: SlashInput): InteractionHandle {
    const channelId = input.channelId ?? this.#firstGuild().textChannelId;
    const guild = this.#guildOf(channelId);
    const user = this.#world.user(input.user);
    const command = this.#commands.find(guild.id, input.name);
    const required = command.default_member_permissions;
    if (required && !input.force) {
      const bits = BigInt(required);
      if ((this.#world.permissions(guild, user.id) & bits) !== bits) {
        throw new Error(
          `fake-discord: ${input.user} cannot see /${input.name} (default_member_permissions ${required}); pass force: true to send it anyway`,
        );
      }
    }
    const resolved: Record<string, Json> = {};
    const options = buildOptions(
      command,
      input,
      (kind, value, where) => this.#resolve(guild, resolved, kind, String(value), where),
      type === 4,
    );
    const data: Json = { id: command.id, name: command.name, type: 1, options };
    if (command.guild_id) data.guild_id = command.guild_id;
    if (Object.keys(resolved).length > 0) data.resolved = resolved;
    return this.#send(this.#payload(type, input.user, channelId, data, input.locale));
  }

  #submitModal = (
    parent: InteractionHandle,
    modal: Json,
    values: Record<string, string>,
    user: UserRef | undefined,
  ): InteractionHandle => {
    const data = { custom_id: modal.custom_id, components: modalComponents(modal, values) };
    const member = parent.payload.member as { user: { id: string } };
    const channelId = String(parent.payload.channel_id);
    const locale = typeof parent.payload.locale === 'string' ? parent.payload.locale : undefined;
    const payload = this.#payload(5, user ?? member.user.id, channelId, data, locale);
    const clicked = parent.clickedMessageId
      ? this.#messages.get(parent.clickedMessageId)
      : undefined;
    if (clicked) payload.message = structuredClone(clicked);
    return this.#send(payload, clicked?.id);
  };

  #payload(type: number, userRef: UserRef, channelId: string, data: Json, locale = 'en-US'): Json {
    const guild = this.#guildOf(channelId);
    const user = this.#world.user(userRef);
    const channel = guild.channels.find((c) => c.id === channelId) ?? {};
    const memberPermissions = this.#world.permissions(guild, user.id).toString();
    return {
      id: this.#world.nextId(),
      application_id: this.#world.applicationId,
      type,
      token: randomToken(),
      version: 1,
      guild_id: guild.id,
      guild: { id: guild.id, locale: guild.locale, features: [] },
      channel_id: channelId,
      channel: { ...channel, permissions: memberPermissions },
      member: { ...this.#world.member(guild, user.id), permissions: memberPermissions },
      app_permissions: this.#world
        .channelPermissions(guild, channelId, this.#world.bot.id)
        .toString(),
      locale,
      guild_locale: guild.locale,
      entitlements: [],
      authorizing_integration_owners: { '0': guild.id },
      context: 0,
      attachment_size_limit: this.#uploadLimitBytes,
      data,
    };
  }

  #send(payload: Json, clickedMessageId?: string): InteractionHandle {
    if (this.#gateway.connected().length === 0) {
      throw new Error('fake-discord: the bot is not connected to the gateway');
    }
    const handle = new InteractionHandle({
      payload,
      messages: this.#messages,
      submit: this.#submitModal,
      ...(clickedMessageId === undefined ? {} : { clickedMessageId }),
    });
    this.#handles.set(handle.id, handle);
    this.#gateway.dispatch('INTERACTION_CREATE', payload);
    return handle;
  }

  #newMessage(handle: InteractionHandle, data: Json, files: ReceivedFile[]): MessageJson {
    const guildId = String(handle.payload.guild_id);
    const member = handle.payload.member as { user: Json };
    return this.#messages.create({
      channelId: String(handle.payload.channel_id),
      guildId,
      author: this.#world.bot,
      data,
      files,
      type: handle.type === 2 ? 20 : 0,
      extra: {
        webhook_id: this.#world.applicationId,
        application_id: this.#world.applicationId,
        interaction_metadata: {
          id: handle.id,
          type: handle.type,
          user: member.user,
          authorizing_integration_owners: { '0': guildId },
          ...(handle.clickedMessageId ? { interacted_message_id: handle.clickedMessageId } : {}),
        },
      },
    });
  }

  #resolve(
    guild: WorldGuild,
    resolved: Record<string, Json>,
    kind: number,
    value: string,
    where: string,
  ): string {
    const bucket = (name: string) => {
      resolved[name] ??= {};
      return resolved[name];
    };
    if (kind === 6 || (kind === 9 && !guild.roles.some((r) => r.id === value))) {
      const user = this.#world.user(value);
      bucket('users')[user.id] = user;
      const { user: _user, ...member } = this.#world.member(guild, user.id);
      bucket('members')[user.id] = {
        ...member,
        permissions: this.#world.permissions(guild, user.id).toString(),
      };
      return user.id;
    }
    if (kind === 7) {
      const channel = guild.channels.find((c) => c.id === value || c.name === value);
      if (!channel) throw new Error(`fake-discord: ${where}: no channel "${value}"`);
      bucket('channels')[String(channel.id)] = { ...channel, permissions: '0' };
      return String(channel.id);
    }
    if (kind === 8 || kind === 9) {
      const role = guild.roles.find((r) => r.id === value || r.name === value);
      if (!role) throw new Error(`fake-discord: ${where}: no role "${value}"`);
      bucket('roles')[String(role.id)] = role;
      return String(role.id);
    }
    throw new Error(`fake-discord: ${where}: option type ${kind} is not supported by the fake`);
  }

  #firstGuild(): WorldGuild {
    const guild = this.#world.guilds[0];
    if (!guild) throw new Error('fake-discord: the world has no guild');
    return guild;
  }

  #guildOf(channelId: string): WorldGuild {
    const found = this.#world.channel(channelId);
    if (!found) throw new Error(`fake-discord: unknown channel ${channelId}`);
    return found.guild;
  }
}

function allowedCallbacks(handle: InteractionHandle): number[] {
  if (handle.type === 4) return [8];
  if (handle.type === 3) return [4, 5, 6, 7, 9];
  if (handle.type === 5) return handle.clickedMessageId ? [4, 5, 6, 7] : [4, 5];
  return [4, 5, 9];
}
