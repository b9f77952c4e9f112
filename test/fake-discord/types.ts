/** Shared types of the fake Discord; the fake voice server implements `VoiceBackend`. */

/** One voice session of the bot in one guild, as the fake gateway handed it out. */
export interface VoiceSession {
  guildId: string;
  channelId: string;
  userId: string;
  /** New for every join from "not in voice"; kept across moves and same-channel rejoins. */
  sessionId: string;
}

/** Where the bot's voice websocket goes; plugged into `startFakeDiscord({ voice })`. */
export interface VoiceBackend {
  /** Called when the bot joins or moves: returns where its voice websocket should connect. */
  open(session: VoiceSession): { endpoint: string; token: string };
  /**
   * Called when the bot leaves (op 4 with channel_id null) or is disconnected. Discord closes
   * the voice websocket of that session with code 4014 at this point.
   */
  close(session: { guildId: string; sessionId: string }): void;
}

/** Loose JSON object, as Discord sends and receives it. */
export type Json = Record<string, unknown>;

/** 'bot', 'admin', 'member', a name from `extraUsers`, or a user id. */
export type UserRef = string;

/** One guild of the fake world. Channel names must be unique within the guild. */
export interface GuildOptions {
  name?: string;
  /** Default `['general']`; the first is `textChannelId`. */
  textChannels?: string[];
  /** Default `['Voice']`; the first is `voiceChannelId`. */
  voiceChannels?: string[];
  /** Members already in a voice channel (name or id) when the bot connects. */
  voiceStates?: Array<{ user: UserRef; channel: string }>;
  /** Permissions of @everyone; default: view, send, attach, embed, history, connect, speak, commands. */
  everyonePermissions?: bigint;
  /** Permissions of the bot's own role; default: view, send, attach, embed, history, connect, speak. */
  botPermissions?: bigint;
  /** Default 'en-US'. */
  locale?: string;
  /** Server nicknames by user (name or id). */
  nicknames?: Record<UserRef, string>;
  /** When members joined the server (ISO time), by user (name or id); default: when the guild was made. */
  memberJoinedAt?: Record<UserRef, string>;
  /**
   * More roles, by name, with the members who have them (name or id): e.g. `{ VIP: ['carol'] }`.
   * They grant no permission; what they are for is who has them (`member.roles`).
   */
  roles?: Record<string, UserRef[]>;
  /** The text channel (name) Discord posts system messages in; default the first; null: none. */
  systemChannel?: string | null;
  /**
   * Permission overwrites by channel name, as a server admin sets them in Edit Channel →
   * Permissions: e.g. `{ mods: [{ target: '@everyone', deny: Permission.ViewChannel }] }`.
   */
  channelOverwrites?: Record<string, ChannelOverwrite[]>;
}

/** One overwrite of a channel: for a role (by name: '@everyone', 'Admins', 'tts-bot') or a user. */
export interface ChannelOverwrite {
  target: string;
  allow?: bigint;
  deny?: bigint;
}

/** Options of `startFakeDiscord`. */
export interface FakeDiscordOptions {
  /** The bot token the fake accepts; a random one by default. */
  token?: string;
  /** Default: one guild with the defaults of `GuildOptions`. */
  guilds?: GuildOptions[];
  /** More regular members (no Manage Server), by name: usable as `UserRef`. */
  extraUsers?: string[];
  /** Other bot accounts (members of every guild), by name: usable as `UserRef`. */
  extraBots?: string[];
  /** Intent bits the fake refuses at IDENTIFY with close code 4014, as Discord does for privileged intents not enabled. */
  disallowedIntents?: number;
  voice?: VoiceBackend;
  /** Largest upload per request (sum of files); over it REST answers 413 / 40005. Default 10 MiB. */
  uploadLimitBytes?: number;
  /** Gateway heartbeat interval; default 41250 ms like Discord. */
  heartbeatIntervalMs?: number;
  /**
   * Shards GET /gateway/bot recommends (default 1). Guild `i` is made to live on shard
   * `i % shards` by Discord's formula `(guild_id >> 22) % shards`; a session that identifies with
   * `shard: [id, count]` gets only its guilds' GUILD_CREATEs and events.
   */
  shards?: number;
}

/** A file part of a multipart request. */
export interface ReceivedFile {
  /** Part name, e.g. `files[0]`. */
  key: string;
  index: number;
  filename: string;
  contentType: string;
  data: Buffer;
}

/** An attachment on a stored message; `url` is served by the fake. */
export interface AttachmentJson {
  id: string;
  filename: string;
  size: number;
  content_type: string;
  url: string;
  proxy_url: string;
  [key: string]: unknown;
}

/** A message as the fake stores and serves it. */
export interface MessageJson {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: Json;
  content: string;
  embeds: Json[];
  components: Json[];
  attachments: AttachmentJson[];
  flags: number;
  timestamp: string;
  edited_timestamp: string | null;
  type: number;
  mentions: Json[];
  mention_roles: string[];
  pinned: boolean;
  tts: boolean;
  mention_everyone: boolean;
  [key: string]: unknown;
}

/** One REST request the fake received. */
export interface RecordedRequest {
  method: string;
  /** Decoded path after `/api/v10`, e.g. `/webhooks/1/abc/messages/@original`. */
  route: string;
  query: Record<string, string>;
  /** Parsed JSON body, or `payload_json` of a multipart body. */
  body: unknown;
  files: ReceivedFile[];
  status: number;
}

/** Something the bot did for one interaction, in order. */
export type InteractionEvent =
  | { kind: 'callback'; type: number; data: Json | undefined; files: ReceivedFile[] }
  | { kind: 'edit'; messageId: string; original: boolean; data: Json; files: ReceivedFile[] }
  | { kind: 'followUp'; messageId: string; data: Json; files: ReceivedFile[] }
  | { kind: 'delete'; messageId: string; original: boolean };

/** A command definition as stored by the fake (what the bot sent plus `id` and defaults). */
export interface StoredCommand {
  id: string;
  name: string;
  type: number;
  application_id: string;
  guild_id?: string;
  default_member_permissions: string | null;
  options?: CommandOption[];
  [key: string]: unknown;
}

/** An option of a stored command definition. */
export interface CommandOption {
  type: number;
  name: string;
  required?: boolean;
  choices?: Array<{ name: string; value: string | number }>;
  options?: CommandOption[];
  [key: string]: unknown;
}
