/** Voice states on the gateway side: the bot's op 4, humans moving, disconnects, channel deletes. */
import { type Gateway, type GatewaySession, Intent } from './gateway.ts';
import type { Json, VoiceBackend } from './types.ts';
import {
  Permission,
  randomToken,
  type VoiceStateEntry,
  type World,
  type WorldGuild,
} from './world.ts';

/** Without a backend the bot is sent here: nothing listens on port 1. */
const REFUSING_ENDPOINT = '127.0.0.1:1';

/** Keeps voice states and tells the bot about its voice server through the backend. */
export class VoiceHub {
  readonly #world: World;
  readonly #gateway: Gateway;
  readonly #backend: VoiceBackend | undefined;

  constructor(world: World, gateway: Gateway, backend: VoiceBackend | undefined) {
    this.#world = world;
    this.#gateway = gateway;
    this.#backend = backend;
  }

  /** Current voice states of a guild. */
  states(guildId: string): VoiceStateEntry[] {
    return [...this.#world.guild(guildId).voiceStates.values()].map((s) => ({ ...s }));
  }

  /** Op 4 from the bot: join, move, rejoin or leave. */
  botUpdate(session: GatewaySession, d: Json): void {
    const guild = this.#world.guilds.find((g) => g.id === d.guild_id);
    if (!guild) return;
    const botId = this.#world.bot.id;
    if (d.channel_id === null || d.channel_id === undefined) {
      this.#leave(guild, botId);
      return;
    }
    const channelId = String(d.channel_id);
    const channel = guild.channels.find((c) => c.id === channelId && c.type === 2);
    // Discord answers nothing when the channel is not a voice channel or Connect is missing.
    if (!channel || !(this.#world.permissions(guild, botId) & Permission.Connect)) return;
    const previous = guild.voiceStates.get(botId);
    const entry: VoiceStateEntry = {
      userId: botId,
      channelId,
      sessionId: previous?.sessionId ?? randomToken(16),
      selfDeaf: d.self_deaf === true,
      selfMute: d.self_mute === true,
    };
    guild.voiceStates.set(botId, entry);
    this.#announce(guild, botId, entry);
    const server = this.#backend?.open({
      guildId: guild.id,
      channelId,
      userId: botId,
      sessionId: entry.sessionId,
    }) ?? { endpoint: REFUSING_ENDPOINT, token: randomToken(8) };
    this.#gateway.send(session, 'VOICE_SERVER_UPDATE', {
      token: server.token,
      guild_id: guild.id,
      endpoint: server.endpoint,
    });
  }

  /** A member joins, moves to, or (with null) leaves a voice channel. */
  moveMember(userId: string, channelId: string | null, guildId?: string): void {
    if (channelId === null) {
      const guild = guildId
        ? this.#world.guild(guildId)
        : this.#world.guilds.find((g) => g.voiceStates.has(userId));
      if (guild) this.#leave(guild, userId);
      return;
    }
    const found = this.#world.channel(channelId);
    if (found?.channel.type !== 2) {
      throw new Error(`fake-discord: ${channelId} is not a voice channel`);
    }
    const previous = found.guild.voiceStates.get(userId);
    const entry: VoiceStateEntry = {
      userId,
      channelId,
      sessionId: previous?.sessionId ?? randomToken(16),
      selfDeaf: false,
      selfMute: false,
    };
    found.guild.voiceStates.set(userId, entry);
    this.#announce(found.guild, userId, entry);
  }

  /**
   * Someone with Move Members drags the bot to another voice channel, as Discord does it: the
   * bot's VOICE_STATE_UPDATE (same session, new channel), its old voice session ends (4014), and a
   * VOICE_SERVER_UPDATE for a new one.
   */
  moveBot(guildId: string, channelId: string): void {
    const guild = this.#world.guild(guildId);
    const botId = this.#world.bot.id;
    const previous = guild.voiceStates.get(botId);
    if (!previous) throw new Error('fake-discord: the bot is not in voice');
    if (!guild.channels.some((c) => c.id === channelId && c.type === 2)) {
      throw new Error(`fake-discord: ${channelId} is not a voice channel`);
    }
    const entry: VoiceStateEntry = { ...previous, channelId };
    guild.voiceStates.set(botId, entry);
    this.#announce(guild, botId, entry);
    this.#backend?.close({ guildId, sessionId: entry.sessionId });
    const server = this.#backend?.open({
      guildId,
      channelId,
      userId: botId,
      sessionId: entry.sessionId,
    }) ?? { endpoint: REFUSING_ENDPOINT, token: randomToken(8) };
    const data = { token: server.token, guild_id: guildId, endpoint: server.endpoint };
    this.#gateway.dispatch('VOICE_SERVER_UPDATE', data);
  }

  /** Server-side disconnect of the bot (kicked from voice). */
  disconnectBot(guildId: string): void {
    this.#leave(this.#world.guild(guildId), this.#world.bot.id);
  }

  /** Deletes a channel: everyone in it leaves voice, then CHANNEL_DELETE. */
  deleteChannel(channelId: string): void {
    const found = this.#world.channel(channelId);
    if (!found) throw new Error(`fake-discord: unknown channel ${channelId}`);
    const { guild, channel } = found;
    for (const state of [...guild.voiceStates.values()]) {
      if (state.channelId === channelId) this.#leave(guild, state.userId);
    }
    guild.channels = guild.channels.filter((c) => c !== channel);
    this.#gateway.dispatch('CHANNEL_DELETE', channel, Intent.Guilds);
  }

  #leave(guild: WorldGuild, userId: string): void {
    const previous = guild.voiceStates.get(userId);
    guild.voiceStates.delete(userId);
    this.#announce(guild, userId, undefined, previous?.sessionId);
    if (previous && userId === this.#world.bot.id) {
      this.#backend?.close({ guildId: guild.id, sessionId: previous.sessionId });
    }
  }

  #announce(
    guild: WorldGuild,
    userId: string,
    entry: VoiceStateEntry | undefined,
    sessionId?: string,
  ): void {
    const state = this.#world.voiceStateJson(guild, userId, entry);
    if (sessionId !== undefined) state.session_id = sessionId;
    this.#gateway.dispatch('VOICE_STATE_UPDATE', state, Intent.GuildVoiceStates);
  }
}
