/**
 * Keeps the voice service true to what Discord says: leaves when no human is left in the
 * bot's channel or the channel is deleted, and follows the bot being moved or disconnected.
 */
import {
  type Client,
  type DMChannel,
  Events,
  type Guild,
  type GuildChannel,
  type VoiceState,
} from 'discord.js';
import type { Logger } from '../log/index.ts';
import type { LeaveReason, VoiceService } from '../voice/index.ts';

/**
 * Members in a voice channel who are not bots, from the guild's voice states. A member missing
 * from the (bounded) member cache counts as a human: better to stay than to leave people.
 */
export function humansIn(guild: Guild, channelId: string): number {
  return guild.voiceStates.cache.filter(
    (state) =>
      state.channelId === channelId &&
      state.id !== guild.client.user.id &&
      state.member?.user.bot !== true,
  ).size;
}

/**
 * Listens to `voiceStateUpdate` and `channelDelete` and tells `voice` what changed. Needs the
 * Guilds and GuildVoiceStates intents. Returns a function that removes the listeners.
 */
export function wireVoiceEvents(client: Client, voice: VoiceService, logger: Logger): () => void {
  const leave = (guildId: string, reason: LeaveReason): void => {
    voice.leave(guildId, reason).then(
      (left) => {
        if (left) logger.info({ guildId, reason }, 'left voice after a Discord event');
      },
      (error: unknown) => logger.error({ err: error, guildId, reason }, 'leaving voice failed'),
    );
  };

  const onVoiceState = (before: VoiceState, after: VoiceState): void => {
    const guildId = after.guild.id;
    if (after.id === client.user?.id) {
      if (before.channelId === after.channelId) return;
      voice.botVoiceStateChanged?.(guildId, after.channelId);
      // Moved (by someone else) into a channel with nobody to listen.
      if (after.channelId !== null && voice.channelOf(guildId) === after.channelId) {
        if (humansIn(after.guild, after.channelId) === 0) leave(guildId, 'alone');
      }
      return;
    }
    const botChannel = voice.channelOf(guildId);
    if (botChannel === undefined || before.channelId !== botChannel) return;
    if (after.channelId === botChannel) return; // mute, deafen, stream: still here
    if (humansIn(after.guild, botChannel) === 0) leave(guildId, 'alone');
  };

  const onChannelDelete = (channel: DMChannel | GuildChannel): void => {
    if (channel.isDMBased()) return;
    if (voice.channelOf(channel.guildId) === channel.id) leave(channel.guildId, 'channel-deleted');
  };

  client.on(Events.VoiceStateUpdate, onVoiceState);
  client.on(Events.ChannelDelete, onChannelDelete);
  return () => {
    client.off(Events.VoiceStateUpdate, onVoiceState);
    client.off(Events.ChannelDelete, onChannelDelete);
  };
}
