/** Gateway payloads built from the world: READY, GUILD_CREATE, members chunks, MESSAGE_CREATE. */
import { covers, type Gateway, type GatewaySession, Intent } from './gateway.ts';
import type { Json, MessageJson } from './types.ts';
import { Permission, type World, type WorldGuild } from './world.ts';

/**
 * MESSAGE_CREATE (or MESSAGE_UPDATE) to each session, honouring GuildMessages and MessageContent
 * like Discord: mentioned users (with their member) and roles are resolved from the content;
 * webhook messages carry no member; nothing is sent from a channel the bot cannot view.
 */
export function dispatchMessageCreate(
  world: World,
  gateway: Gateway,
  message: MessageJson,
  type: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE' = 'MESSAGE_CREATE',
): void {
  const botId = world.bot.id;
  const authorId = String(message.author.id);
  const guild = world.guild(String(message.guild_id));
  const viewable = world.channelPermissions(guild, String(message.channel_id), botId);
  if ((viewable & Permission.ViewChannel) === 0n) return;
  const mentioned = message.content.includes(`<@${botId}>`);
  const userIds = [...message.content.matchAll(/<@!?(\d+)>/g)].map((m) => String(m[1]));
  const mentions = [...new Set(userIds)].flatMap((id) => {
    const user = [...world.users.values()].find((u) => u.id === id);
    return user ? [{ ...user, member: world.member(guild, id, false) }] : [];
  });
  const roleIds = [...message.content.matchAll(/<@&(\d+)>/g)].map((m) => String(m[1]));
  const mentionRoles = roleIds.filter((id) => guild.roles.some((r) => r.id === id));
  for (const session of gateway.connected()) {
    if (!(session.intents & Intent.GuildMessages) || !covers(session, guild.id)) continue;
    const visible = session.intents & Intent.MessageContent || mentioned || authorId === botId;
    const payload: Json = {
      ...message,
      ...(message.webhook_id === undefined ? { member: world.member(guild, authorId, false) } : {}),
      mentions,
      mention_roles: mentionRoles,
      // Without MessageContent Discord empties these, a poll too (`message_snapshots` alike).
      ...(visible
        ? {}
        : {
            content: '',
            embeds: [],
            attachments: [],
            components: [],
            poll: undefined,
            message_snapshots: undefined,
          }),
    };
    gateway.send(session, type, payload);
  }
}

/**
 * GUILD_MEMBER_UPDATE to each session whose shard holds the guild and that has the privileged
 * GuildMembers intent, as Discord sends it. A bot without that intent learns a member's roles
 * anew from their next message (MESSAGE_CREATE's `member.roles`) or voice state.
 */
export function dispatchMemberUpdate(
  world: World,
  gateway: Gateway,
  guild: WorldGuild,
  userId: string,
): void {
  for (const session of gateway.connected()) {
    if (!(session.intents & Intent.GuildMembers) || !covers(session, guild.id)) continue;
    gateway.send(session, 'GUILD_MEMBER_UPDATE', {
      guild_id: guild.id,
      ...world.member(guild, userId),
    });
  }
}

/** MESSAGE_DELETE to each session with GuildMessages. */
export function dispatchMessageDelete(gateway: Gateway, message: MessageJson): void {
  gateway.dispatch(
    'MESSAGE_DELETE',
    { id: message.id, channel_id: message.channel_id, guild_id: message.guild_id },
    Intent.GuildMessages,
  );
}

/** READY and GUILD_CREATE payloads for a session (voice states need GuildVoiceStates). */
export function identifyPayloads(
  world: World,
  session: GatewaySession,
): { ready: Json; guilds: Json[] } {
  const withVoice = (session.intents & Intent.GuildVoiceStates) !== 0;
  const guilds = world.guilds.filter((g) => covers(session, g.id));
  return {
    ready: {
      v: 10,
      user: { ...world.bot, verified: true, mfa_enabled: false, flags: 0 },
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      application: { id: world.applicationId, flags: 0 },
      shard: session.shard ?? [0, 1],
      private_channels: [],
      presences: [],
      relationships: [],
      user_settings: {},
      session_type: 'normal',
      geo_ordered_rtc_regions: ['local'],
    },
    guilds: guilds.map((g) => world.guildCreate(g, withVoice)),
  };
}

/** GUILD_CREATE of a guild the bot just joined, to the session whose shard holds it. */
export function dispatchGuildCreate(world: World, gateway: Gateway, guild: WorldGuild): void {
  for (const session of gateway.connected()) {
    if (!covers(session, guild.id)) continue;
    const withVoice = (session.intents & Intent.GuildVoiceStates) !== 0;
    gateway.send(session, 'GUILD_CREATE', world.guildCreate(guild, withVoice));
  }
}

/**
 * GUILD_DELETE to the session whose shard holds the guild: without `unavailable` when the bot
 * was removed (discord.js emits `guildDelete`), with `unavailable: true` for an outage
 * (`guildUnavailable`).
 */
export function dispatchGuildDelete(gateway: Gateway, guildId: string, outage: boolean): void {
  for (const session of gateway.connected()) {
    if (!covers(session, guildId)) continue;
    gateway.send(
      session,
      'GUILD_DELETE',
      outage ? { id: guildId, unavailable: true } : { id: guildId },
    );
  }
}

/** Answers op 8 (request guild members) with one GUILD_MEMBERS_CHUNK per guild. */
export function membersChunk(
  world: World,
  gateway: Gateway | undefined,
  session: GatewaySession,
  d: Json,
): void {
  const guildIds = Array.isArray(d.guild_id) ? d.guild_id.map(String) : [String(d.guild_id)];
  const userIds = Array.isArray(d.user_ids)
    ? d.user_ids.map(String)
    : d.user_ids
      ? [String(d.user_ids)]
      : undefined;
  const query = typeof d.query === 'string' ? d.query.toLowerCase() : '';
  for (const guild of world.guilds.filter((g) => guildIds.includes(g.id))) {
    const members = [...guild.memberRoles.keys()]
      .filter((id) =>
        userIds ? userIds.includes(id) : world.user(id).username.toLowerCase().startsWith(query),
      )
      .map((id) => world.member(guild, id));
    const notFound = userIds?.filter((id) => !guild.memberRoles.has(id)) ?? [];
    gateway?.send(session, 'GUILD_MEMBERS_CHUNK', {
      guild_id: guild.id,
      members,
      chunk_index: 0,
      chunk_count: 1,
      not_found: notFound,
      ...(d.nonce === undefined ? {} : { nonce: d.nonce }),
    });
  }
}
