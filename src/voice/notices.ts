/** Why the bot left a voice channel, and what it tells the guild about it. */

/**
 * Why a guild's voice session ended. `command`: `/leave`; `idle`: nothing to say for a while;
 * `alone`: no human left in the channel; `disconnected`: someone disconnected the bot;
 * `channel-deleted`; `lost`: the connection could not recover; `join-failed`: the join never became ready (its
 * reply says so); `shutdown`: the bot stops.
 */
export type LeaveReason =
  | 'command'
  | 'idle'
  | 'alone'
  | 'disconnected'
  | 'channel-deleted'
  | 'lost'
  | 'join-failed'
  | 'shutdown';

function span(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}

/** The notice for the text channel where `/join` was used; undefined when none is due. */
export function leaveNotice(
  reason: LeaveReason,
  context: { readonly channelId: string; readonly idleMs: number; readonly detail?: string },
): string | undefined {
  const channel = `<#${context.channelId}>`;
  switch (reason) {
    case 'command':
    case 'join-failed':
    case 'shutdown':
      return undefined;
    case 'idle':
      return `👋 Left ${channel} after ${span(context.idleMs)} with nothing to say. Use \`/join\` to bring me back.`;
    case 'alone':
      return `👋 Left ${channel}: nobody is listening any more.`;
    case 'disconnected':
      return `🔌 I was disconnected from ${channel}, so the queue was cleared. Use \`/join\` to bring me back.`;
    case 'channel-deleted':
      return '🗑️ My voice channel was deleted, so the queue was cleared. Use `/join` in another one.';
    case 'lost':
      return `⚠️ Lost the voice connection to ${channel} (${context.detail ?? 'no reason given'}), so the queue was cleared. Use \`/join\` to try again.`;
  }
}
