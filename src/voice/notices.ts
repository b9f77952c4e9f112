/** Why the bot left a voice channel, and what it tells the guild about it. */
import { english, type Translator } from '../i18n/index.ts';
import type { LostDetail } from './close-causes.ts';

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

/**
 * The notice for the text channel where `/join` was used, in the server's language (English
 * by default); undefined when none is due.
 */
export function leaveNotice(
  reason: LeaveReason,
  context: {
    readonly channelId: string;
    readonly idleMs: number;
    readonly detail?: string;
    /** A close that must not be retried: said in the server's language in place of `detail`. */
    readonly lost?: LostDetail;
  },
  { t }: Translator = english,
): string | undefined {
  const channel = `<#${context.channelId}>`;
  switch (reason) {
    case 'command':
    case 'join-failed':
    case 'shutdown':
      return undefined;
    case 'idle':
      return t('notices.idle', { channel, idle: span(context.idleMs) });
    case 'alone':
      return t('notices.alone', { channel });
    case 'disconnected':
      return t('notices.disconnected', { channel });
    case 'channel-deleted':
      return t('notices.channel_deleted');
    case 'lost': {
      const detail =
        context.lost === 'rate_limited'
          ? t('notices.lost_rate_limited')
          : context.lost === 'call_terminated'
            ? t('notices.lost_call_terminated')
            : (context.detail ?? t('notices.no_reason'));
      return t('notices.lost', { channel, detail });
    }
  }
}
