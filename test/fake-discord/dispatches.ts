/** Gateway payloads built from the world: READY, GUILD_CREATE, members chunks, MESSAGE_CREATE. */
import { type Gateway, type GatewaySession, Intent } from './gateway.ts';
import type { Json, MessageJson } from './types.ts';
import type { World } from './world.ts';

/** MESSAGE_CREATE to each session, honouring GuildMessages and MessageContent like Discord. */
export function dispatchMessageCreate(world: World, gateway: Gateway, message: MessageJson): void {
  const botId = world.bot.id;
  const authorId = String(message.author.id);
  const guild = world.guild(String(message.guild_id));
  const mentioned = message.content.includes(`<@${botId}>`);
  for (const session of gateway.connected()) {
    if (!(session.intents & Intent.GuildMessages)) continue;
    const visible = session.intents & Intent.MessageContent || mentioned || authorId === botId;
    const payload: Json = {
      ...message,
      member: world.member(guild, authorId, false),
      mentions: mentioned ? [{ ...world.bot, member: world.member(guild, botId, false) }] : [],
      ...(visible ? {} : { content: '', embeds: [], attachments: [], components: [] }),
    };
    gateway.send(session, 'MESSAGE_CREATE', payload);
  }
}

/** READY and GUILD_CREATE payloads for a session (voice states need GuildVoiceStates). */
export function identifyPayloads(
  world: World,
  session: GatewaySession,
): { ready: Json; guilds: Json[] } {
  const withVoice = (session.intents & Intent.GuildVoiceStates) !== 0;
  return {
    ready: {
      v: 10,
      user: { ...world.bot, verified: true, mfa_enabled: false, flags: 0 },
      guilds: world.guilds.map((g) => ({ id: g.id, unavailable: true })),
      application: { id: world.applicationId, flags: 0 },
      shard: [0, 1],
      private_channels: [],
      presences: [],
      relationships: [],
      user_settings: {},
      session_type: 'normal',
      geo_ordered_rtc_regions: ['local'],
    },
    guilds: world.guilds.map((g) => world.guildCreate(g, withVoice)),
  };
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
