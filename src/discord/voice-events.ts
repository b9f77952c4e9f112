/**
 * Keeps the voice service true to what Discord says: leaves when no human is left in the
 * bot's channel or the channel is deleted, and follows the bot being moved or disconnected.
 * A move leaves the bot alone only for a moment when someone drags it and its listeners one by
 * one (in either order): then the bot waits `moveGraceMs` for a human before leaving, and the
 * item playing goes on meanwhile. A last human who leaves voice altogether is not a move.
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

/** How long the bot waits for a human after a move left it alone; see {@link wireVoiceEvents}. */
export const MOVE_GRACE_MS = 15_000;

/** Settings of {@link wireVoiceEvents}. */
export interface VoiceEventOptions {
  /** How long a move may leave the bot alone before it leaves; default {@link MOVE_GRACE_MS}. */
  readonly moveGraceMs?: number;
}

/**
 * What the bot does when no human is left in its channel: `now` when the last one left voice
 * (or the channel stays empty), `after-grace` when the bot or the last human was moved to another
 * channel, since whoever moves them may be moving the others too (an admin drags one at a time).
 */
export function aloneLeave(
  cause: 'bot-moved' | 'human-moved' | 'human-left',
): 'now' | 'after-grace' {
  return cause === 'human-left' ? 'now' : 'after-grace';
}

/**
 * Listens to `voiceStateUpdate`, `channelDelete` and `guildDelete` and tells `voice` what
 * changed. Needs the Guilds and GuildVoiceStates intents. A grace ends when a human arrives, the
 * bot is disconnected or leaves, or the server is gone; its timer never keeps the process alive.
 * Returns a function that removes the listeners (and ends any grace under way).
 */
export function wireVoiceEvents(
  client: Client,
  voice: VoiceService,
  logger: Logger,
  options: VoiceEventOptions = {},
): () => void {
  const graceMs = options.moveGraceMs ?? MOVE_GRACE_MS;
  const graces = new Map<string, NodeJS.Timeout>();
  const endGrace = (guildId: string): void => {
    clearTimeout(graces.get(guildId));
    graces.delete(guildId);
  };
  const leave = (guildId: string, reason: LeaveReason): void => {
    endGrace(guildId);
    voice.leave(guildId, reason).then(
      (left) => {
        if (left) logger.info({ guildId, reason }, 'left voice after a Discord event');
      },
      (error: unknown) => logger.error({ err: error, guildId, reason }, 'leaving voice failed'),
    );
  };
  // Nobody in the bot's channel: leave now, or once the grace ends if still nobody is there.
  const alone = (guild: Guild, cause: Parameters<typeof aloneLeave>[0]): void => {
    if (aloneLeave(cause) === 'now') {
      leave(guild.id, 'alone');
      return;
    }
    // Dragged on again: whoever drags it is still at it, so the wait counts from this move.
    if (cause === 'bot-moved') endGrace(guild.id);
    else if (graces.has(guild.id)) return;
    const waitingIn = voice.channelOf(guild.id);
    if (waitingIn === undefined) return;
    logger.info({ guildId: guild.id, cause, graceMs }, 'alone after a move: waiting for a member');
    const timer = setTimeout(() => {
      graces.delete(guild.id);
      // Only the channel it waited in: a later session (left and joined again) is not its own.
      if (voice.channelOf(guild.id) === waitingIn && humansIn(guild, waitingIn) === 0) {
        leave(guild.id, 'alone');
      }
    }, graceMs);
    timer.unref();
    graces.set(guild.id, timer);
  };

  const onVoiceState = (before: VoiceState, after: VoiceState): void => {
    const guildId = after.guild.id;
    if (after.id === client.user?.id) {
      if (before.channelId === after.channelId) return;
      voice.botVoiceStateChanged?.(guildId, after.channelId);
      if (after.channelId === null) endGrace(guildId);
      // Moved (by someone else) into a channel with nobody to listen.
      else if (voice.channelOf(guildId) === after.channelId) {
        if (humansIn(after.guild, after.channelId) === 0) alone(after.guild, 'bot-moved');
        else endGrace(guildId);
      }
      return;
    }
    const botChannel = voice.channelOf(guildId);
    if (botChannel === undefined) return;
    if (after.channelId === botChannel && before.channelId !== botChannel) {
      // Someone came (back): the bot stays; another bot arriving is nobody to read to.
      if (humansIn(after.guild, botChannel) > 0) endGrace(guildId);
      return;
    }
    if (before.channelId !== botChannel) return;
    if (after.channelId === botChannel) return; // mute, deafen, stream: still here
    if (humansIn(after.guild, botChannel) === 0) {
      alone(after.guild, after.channelId === null ? 'human-left' : 'human-moved');
    }
  };

  const onChannelDelete = (channel: DMChannel | GuildChannel): void => {
    if (channel.isDMBased()) return;
    if (voice.channelOf(channel.guildId) === channel.id) leave(channel.guildId, 'channel-deleted');
  };

  // The bot removed from the server: no channel there to wait in.
  const onGuildDelete = (guild: Guild): void => endGrace(guild.id);

  client.on(Events.VoiceStateUpdate, onVoiceState);
  client.on(Events.ChannelDelete, onChannelDelete);
  client.on(Events.GuildDelete, onGuildDelete);
  return () => {
    for (const guildId of [...graces.keys()]) endGrace(guildId);
    client.off(Events.VoiceStateUpdate, onVoiceState);
    client.off(Events.ChannelDelete, onChannelDelete);
    client.off(Events.GuildDelete, onGuildDelete);
  };
}
