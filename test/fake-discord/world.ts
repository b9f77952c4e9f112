/** The fake world: users, guilds, channels, roles, members and voice states, with snowflake ids. */
import { randomBytes } from 'node:crypto';
import type { FakeDiscordOptions, GuildOptions, Json, UserRef } from './types.ts';

const DISCORD_EPOCH = 1_420_070_400_000n;

/** Discord permission bits the fake uses. */
export const Permission = {
  Administrator: 1n << 3n,
  ManageGuild: 1n << 5n,
  AddReactions: 1n << 6n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  Connect: 1n << 20n,
  Speak: 1n << 21n,
  UseVAD: 1n << 25n,
  UseApplicationCommands: 1n << 31n,
} as const;

const ALL_PERMISSIONS = (1n << 53n) - 1n;
const BOT_DEFAULT =
  Permission.ViewChannel |
  Permission.SendMessages |
  Permission.EmbedLinks |
  Permission.AttachFiles |
  Permission.ReadMessageHistory |
  Permission.Connect |
  Permission.Speak |
  Permission.UseVAD;
const EVERYONE_DEFAULT = BOT_DEFAULT | Permission.AddReactions | Permission.UseApplicationCommands;

/** A user of the fake world, in Discord's JSON shape. */
export interface UserJson extends Json {
  id: string;
  username: string;
  bot: boolean;
}

/** A voice state of one user in one guild. */
export interface VoiceStateEntry {
  userId: string;
  channelId: string;
  sessionId: string;
  selfDeaf: boolean;
  selfMute: boolean;
}

/** One guild with its channels, roles, members and voice states. */
export interface WorldGuild {
  id: string;
  name: string;
  ownerId: string;
  locale: string;
  joinedAt: string;
  textChannelId: string;
  voiceChannelId: string;
  /** Where Discord posts system messages (`system_channel_id`); null: none. */
  systemChannelId: string | null;
  channels: Json[];
  roles: Json[];
  /** user id → role ids (without @everyone). */
  memberRoles: Map<string, string[]>;
  /** user id → server nickname. */
  nicknames: Map<string, string>;
  /** user id → when they joined the server (ISO), when not `joinedAt`. */
  memberJoinedAt: Map<string, string>;
  voiceStates: Map<string, VoiceStateEntry>;
}

/** Makes increasing numeric snowflakes carrying the current time. */
export function snowflakes(): () => string {
  let increment = 0n;
  return () => {
    increment = (increment + 1n) & 0xfffn;
    return (((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) | increment).toString();
  };
}

/** Random token-like string, for interaction tokens and session ids. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** Builds and holds the world; everything else reads ids and JSON from here. */
export class World {
  readonly nextId = snowflakes();
  readonly applicationId: string;
  readonly bot: UserJson;
  /** By name: 'bot', 'admin', 'member' and `extraUsers`. */
  readonly users = new Map<string, UserJson>();
  readonly guilds: WorldGuild[];
  /** Shards GET /gateway/bot recommends; guild `i` lives on shard `i % shardCount`. */
  readonly shardCount: number;
  /** Guilds the bot was removed from, by id. */
  readonly #removed = new Map<string, WorldGuild>();

  constructor(options: FakeDiscordOptions) {
    this.shardCount = options.shards ?? 1;
    this.applicationId = this.nextId();
    this.bot = this.#addUser('bot', 'tts-bot', true);
    this.#addUser('admin', 'admin', false);
    this.#addUser('member', 'member', false);
    for (const name of options.extraUsers ?? []) this.#addUser(name, name, false);
    for (const name of options.extraBots ?? []) this.#addUser(name, name, true);
    this.guilds = (options.guilds ?? [{}]).map((spec, index) => this.#buildGuild(spec, index));
  }

  /** Adds a guild the bot was just invited to (its GUILD_CREATE is sent by the caller). */
  addGuild(spec: GuildOptions): WorldGuild {
    const guild = this.#buildGuild(spec, this.guilds.length);
    this.guilds.push(guild);
    return guild;
  }

  /** Takes a guild the bot was removed from out of the world (kept for {@link World.restoreGuild}). */
  removeGuild(id: string): WorldGuild {
    const guild = this.guild(id);
    this.guilds.splice(this.guilds.indexOf(guild), 1);
    this.#removed.set(id, guild);
    return guild;
  }

  /** Puts a removed guild back, as it was (the bot was invited again). */
  restoreGuild(id: string): WorldGuild {
    const guild = this.#removed.get(id);
    if (!guild) throw new Error(`fake-discord: guild ${id} was not removed`);
    this.#removed.delete(id);
    this.guilds.push(guild);
    return guild;
  }

  /** The user a `UserRef` names; throws on an unknown one. */
  user(ref: UserRef): UserJson {
    const byName = this.users.get(ref);
    if (byName) return byName;
    for (const user of this.users.values()) if (user.id === ref) return user;
    throw new Error(`fake-discord: unknown user "${ref}" (known: ${[...this.users.keys()]})`);
  }

  /** The guild with this id; throws when unknown. */
  guild(id: string): WorldGuild {
    const guild = this.guilds.find((g) => g.id === id);
    if (!guild) throw new Error(`fake-discord: unknown guild ${id}`);
    return guild;
  }

  /** Finds a channel (and its guild) by id. */
  channel(id: string): { guild: WorldGuild; channel: Json } | undefined {
    for (const guild of this.guilds) {
      const channel = guild.channels.find((c) => c.id === id);
      if (channel) return { guild, channel };
    }
    return undefined;
  }

  /** Guild member JSON; `withUser` false for MESSAGE_CREATE's `member`. */
  member(guild: WorldGuild, userId: string, withUser = true): Json {
    const member: Json = {
      roles: guild.memberRoles.get(userId) ?? [],
      joined_at: guild.memberJoinedAt.get(userId) ?? guild.joinedAt,
      nick: guild.nicknames.get(userId) ?? null,
      avatar: null,
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      communication_disabled_until: null,
    };
    if (withUser) member.user = this.user(userId);
    return member;
  }

  /**
   * Gives `userId` the role named `roleName`, or takes it away (`has` false); true when that
   * changed what they have.
   */
  setRole(guild: WorldGuild, userId: string, roleName: string, has: boolean): boolean {
    const role = guild.roles.find((r) => r.name === roleName);
    if (!role) throw new Error(`fake-discord: no role "${roleName}" in ${guild.name}`);
    const held = guild.memberRoles.get(userId);
    if (!held) throw new Error(`fake-discord: ${userId} is not a member of ${guild.name}`);
    const roleId = String(role.id);
    if (held.includes(roleId) === has) return false;
    guild.memberRoles.set(userId, has ? [...held, roleId] : held.filter((id) => id !== roleId));
    return true;
  }

  /** Guild-level permissions of a user (no channel overwrites), as Discord computes them. */
  permissions(guild: WorldGuild, userId: string): bigint {
    if (userId === guild.ownerId) return ALL_PERMISSIONS;
    const roleIds = new Set([guild.id, ...(guild.memberRoles.get(userId) ?? [])]);
    let bits = 0n;
    for (const role of guild.roles) {
      if (roleIds.has(String(role.id))) bits |= BigInt(String(role.permissions));
    }
    return bits & Permission.Administrator ? ALL_PERMISSIONS : bits;
  }

  /**
   * A user's permissions in one channel, as Discord computes them: the guild's, then the
   * channel's overwrites for @everyone, for the user's roles, then for the user.
   */
  channelPermissions(guild: WorldGuild, channelId: string, userId: string): bigint {
    let bits = this.permissions(guild, userId);
    if (bits === ALL_PERMISSIONS) return bits;
    const channel = guild.channels.find((c) => c.id === channelId);
    const overwrites = (channel?.permission_overwrites ?? []) as Array<{
      id: string;
      allow: string;
      deny: string;
    }>;
    const apply = (found: Array<{ allow: string; deny: string }>) => {
      const deny = found.reduce((all, o) => all | BigInt(o.deny), 0n);
      const allow = found.reduce((all, o) => all | BigInt(o.allow), 0n);
      bits = (bits & ~deny) | allow;
    };
    apply(overwrites.filter((o) => o.id === guild.id));
    const roles = new Set(guild.memberRoles.get(userId) ?? []);
    apply(overwrites.filter((o) => roles.has(o.id)));
    apply(overwrites.filter((o) => o.id === userId));
    return bits;
  }

  /** A voice state in gateway JSON (`member` included for VOICE_STATE_UPDATE). */
  voiceStateJson(guild: WorldGuild, userId: string, entry: VoiceStateEntry | undefined): Json {
    return {
      guild_id: guild.id,
      channel_id: entry?.channelId ?? null,
      user_id: userId,
      member: this.member(guild, userId),
      session_id: entry?.sessionId ?? randomToken(16),
      deaf: false,
      mute: false,
      self_deaf: entry?.selfDeaf ?? false,
      self_mute: entry?.selfMute ?? false,
      self_video: false,
      suppress: false,
      request_to_speak_timestamp: null,
    };
  }

  /** GUILD_CREATE payload; voice states only with the GuildVoiceStates intent. */
  guildCreate(guild: WorldGuild, withVoiceStates: boolean): Json {
    const members = [...guild.memberRoles.keys()].map((id) => this.member(guild, id));
    const voiceStates = withVoiceStates
      ? [...guild.voiceStates.values()].map((entry) => {
          const {
            member: _member,
            guild_id: _guildId,
            ...state
          } = this.voiceStateJson(guild, entry.userId, entry);
          return state;
        })
      : [];
    return {
      id: guild.id,
      name: guild.name,
      icon: null,
      owner_id: guild.ownerId,
      preferred_locale: guild.locale,
      features: [],
      emojis: [],
      stickers: [],
      roles: guild.roles,
      channels: guild.channels,
      threads: [],
      members,
      voice_states: voiceStates,
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      member_count: members.length,
      large: false,
      unavailable: false,
      joined_at: guild.joinedAt,
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      mfa_level: 0,
      nsfw_level: 0,
      premium_tier: 0,
      system_channel_id: guild.systemChannelId,
      system_channel_flags: 0,
      application_id: null,
      max_members: 500_000,
    };
  }

  /** GUILD_UPDATE payload: the guild object without GUILD_CREATE's extra fields (members, channels…). */
  guildUpdate(guild: WorldGuild): Json {
    const {
      channels: _channels,
      threads: _threads,
      members: _members,
      voice_states: _voiceStates,
      presences: _presences,
      stage_instances: _stageInstances,
      guild_scheduled_events: _events,
      soundboard_sounds: _sounds,
      member_count: _memberCount,
      large: _large,
      unavailable: _unavailable,
      joined_at: _joinedAt,
      ...update
    } = this.guildCreate(guild, false);
    // `guild_id` too, so the fake gateway sends it only to the shard that holds the guild.
    return { ...update, guild_id: guild.id };
  }

  #addUser(key: string, username: string, bot: boolean): UserJson {
    const user: UserJson = {
      id: this.nextId(),
      username,
      discriminator: '0',
      global_name: bot ? null : username,
      avatar: null,
      bot,
      public_flags: 0,
    };
    this.users.set(key, user);
    return user;
  }

  /** A fresh guild id whose shard (`(id >> 22) % shardCount`) is `index % shardCount`. */
  #guildId(index: number): string {
    const id = BigInt(this.nextId());
    const count = BigInt(this.shardCount);
    const shift = (BigInt(index) - (id >> 22n)) % count;
    return (id + (((shift + count) % count) << 22n)).toString();
  }

  #buildGuild(spec: GuildOptions, index: number): WorldGuild {
    const id = this.#guildId(index);
    const role = (name: string, permissions: bigint, position: number, managed = false): Json => ({
      id: position === 0 ? id : this.nextId(),
      name,
      permissions: permissions.toString(),
      position,
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      managed,
      mentionable: false,
      flags: 0,
      icon: null,
      unicode_emoji: null,
    });
    const roles = [
      role('@everyone', spec.everyonePermissions ?? EVERYONE_DEFAULT, 0),
      role('Admins', Permission.ManageGuild, 1),
      role('tts-bot', spec.botPermissions ?? BOT_DEFAULT, 2, true),
      ...Object.keys(spec.roles ?? {}).map((name, i) => role(name, 0n, 3 + i)),
    ];
    const channel = (name: string, type: number, position: number): Json => ({
      id: this.nextId(),
      type,
      guild_id: id,
      name,
      position,
      permission_overwrites: [],
      parent_id: null,
      nsfw: false,
      rate_limit_per_user: 0,
      flags: 0,
      ...(type === 0
        ? { topic: null, last_message_id: null }
        : { bitrate: 64_000, user_limit: 0, rtc_region: null }),
    });
    const texts = (spec.textChannels ?? ['general']).map((name, i) => channel(name, 0, i));
    const voices = (spec.voiceChannels ?? ['Voice']).map((name, i) => channel(name, 2, i));
    const [text, voice] = [texts[0], voices[0]];
    if (!text || !voice) throw new Error('fake-discord: a guild needs a text and a voice channel');
    const memberRoles = new Map<string, string[]>();
    for (const [key, user] of this.users) {
      const roleIndex = key === 'bot' ? 2 : key === 'admin' ? 1 : -1;
      memberRoles.set(user.id, roleIndex < 0 ? [] : [String(roles[roleIndex]?.id)]);
    }
    for (const [name, holders] of Object.entries(spec.roles ?? {})) {
      const roleId = String(roles.find((r) => r.name === name)?.id);
      for (const holder of holders) memberRoles.get(this.user(holder).id)?.push(roleId);
    }
    const named = (name: string): Json => {
      const found = [...texts, ...voices].find((c) => c.name === name);
      if (!found) throw new Error(`fake-discord: no channel "${name}" in this guild`);
      return found;
    };
    const system =
      spec.systemChannel === undefined ? text : spec.systemChannel && named(spec.systemChannel);
    const guild: WorldGuild = {
      id,
      name: spec.name ?? `Test Server ${index + 1}`,
      ownerId: this.nextId(),
      locale: spec.locale ?? 'en-US',
      joinedAt: new Date().toISOString(),
      textChannelId: String(text.id),
      voiceChannelId: String(voice.id),
      systemChannelId: system ? String(system.id) : null,
      channels: [...texts, ...voices],
      roles,
      memberRoles,
      nicknames: new Map(
        Object.entries(spec.nicknames ?? {}).map(([user, nick]) => [this.user(user).id, nick]),
      ),
      memberJoinedAt: new Map(
        Object.entries(spec.memberJoinedAt ?? {}).map(([user, at]) => [this.user(user).id, at]),
      ),
      voiceStates: new Map(),
    };
    for (const [name, overwrites] of Object.entries(spec.channelOverwrites ?? {})) {
      const target = guild.channels.find((c) => c.name === name);
      if (!target) throw new Error(`fake-discord: no channel "${name}" in ${guild.name}`);
      target.permission_overwrites = overwrites.map((o) => {
        const role = roles.find((r) => r.name === o.target);
        return {
          id: role ? String(role.id) : this.user(o.target).id,
          type: role ? 0 : 1,
          allow: String(o.allow ?? 0n),
          deny: String(o.deny ?? 0n),
        };
      });
    }
    for (const { user, channel: ref } of spec.voiceStates ?? []) {
      const target = guild.channels.find((c) => c.type === 2 && (c.name === ref || c.id === ref));
      if (!target) throw new Error(`fake-discord: no voice channel "${ref}" in ${guild.name}`);
      const userId = this.user(user).id;
      guild.voiceStates.set(userId, {
        userId,
        channelId: String(target.id),
        sessionId: randomToken(16),
        selfDeaf: false,
        selfMute: false,
      });
    }
    return guild;
  }
}
