import type { Readable } from 'node:stream';
import type { DiscordGatewayAdapterCreator } from '@discordjs/voice';
import type { RawPcmInput } from '../audio/index.ts';
import type { LeaveReason } from './notices.ts';

/** Where one `/say` item stands, as shown in its reply. */
export type SpeakUpdate =
  | { readonly state: 'queued'; readonly position: number }
  | { readonly state: 'generating'; readonly position: number }
  | { readonly state: 'ready'; readonly position: number }
  | { readonly state: 'playing' }
  | { readonly state: 'played'; readonly durationMs: number }
  | { readonly state: 'failed'; readonly error: unknown }
  | { readonly state: 'skipped' }
  | {
      readonly state: 'cancelled';
      /** Set when the item was cancelled because the server's API key changed or was removed. */
      readonly reason?: 'key_changed' | 'key_removed';
    };

/**
 * What voice needs to play one item: a way to make its audio when the item's turn to generate
 * comes, and to stream it when its turn to play comes. Voice knows nothing of the TTS API.
 */
export interface SpeechSource {
  /**
   * Makes the audio (generation, cache…); resolves with its address. Aborted when the item
   * leaves the queue, also after it resolved (so audio it still holds, a live stream, is let
   * go). Called when the item's turn comes, so it uses the server's key of that moment.
   */
  generate(signal: AbortSignal): Promise<string>;
  /**
   * Opens the audio at an address `generate` gave, as bytes for ffmpeg, with its format as
   * sniffed from those bytes (a file extension such as `wav` or `mp3`), or raw PCM.
   */
  open(audioUrl: string, signal: AbortSignal): Promise<SniffedAudio>;
  /**
   * The raw PCM format of the audio at `audioUrl` when it is a live stream rather than a file
   * (undefined: a file). Without an address, the format this source most likely gives, so ffmpeg
   * can be started for it ahead. Absent: always files.
   */
  rawFormatOf?(audioUrl?: string): RawPcmInput | undefined;
}

/** Audio bytes and the format they were sniffed as (never taken from the address), or raw PCM. */
export interface SniffedAudio {
  readonly stream: Readable;
  readonly extension: string;
  /** Set for raw PCM (no container): the format ffmpeg was started for. */
  readonly raw?: RawPcmInput | undefined;
}

/** One request to speak in a guild's voice channel. */
export interface SpeakRequest {
  readonly guildId: string;
  readonly requesterId: string;
  readonly requesterName: string;
  /** What will be said, as `/queue` shows it. */
  readonly text: string;
  /** How long it should play, for wait estimates; estimated from the text when absent. */
  readonly expectedMs?: number;
  readonly source: SpeechSource;
  /** Told of every change of the item, in order, ending with played, failed, skipped or cancelled. */
  readonly onUpdate: (update: SpeakUpdate) => void;
}

/** Outcome of {@link VoiceService.speak}. */
export type SpeakOutcome =
  | { readonly ok: true; readonly itemId: string; readonly position: number }
  | { readonly ok: false; readonly reason: 'not_connected' }
  | { readonly ok: false; readonly reason: 'full'; readonly maxLength: number }
  | {
      readonly ok: false;
      readonly reason: 'requester_full';
      /** Most pending items per requester (the playing one not counted). */
      readonly maxPerRequester: number;
      /** Estimated time the requester's next item starts, freeing a place. */
      readonly freesAt: number;
    };

/** One entry of `/queue`. */
export interface QueueEntry {
  readonly itemId: string;
  readonly position: number;
  readonly requesterId: string;
  readonly requesterName: string;
  readonly text: string;
  readonly state: string;
}

/** A voice channel to join, described without discord.js types. */
export interface VoiceTarget {
  readonly guildId: string;
  readonly channelId: string;
  readonly adapterCreator: DiscordGatewayAdapterCreator;
  /** Text channel the join was asked from: where notices about this voice session go. */
  readonly textChannelId?: string;
}

/**
 * The bot's presence in voice channels and each guild's speech queue.
 * The only way the rest of the bot joins, leaves or plays audio.
 */
export interface VoiceService {
  /** The voice channel the bot is connected to in the guild, if any. */
  channelOf(guildId: string): string | undefined;
  /** Joins (or moves to) the channel and waits until the connection is ready. */
  join(target: VoiceTarget): Promise<void>;
  /**
   * Leaves the guild's voice channel, clearing its queue; false when not connected. `reason`
   * (default `command`) decides the notice posted where `/join` was used.
   */
  leave(guildId: string, reason?: LeaveReason): Promise<boolean>;
  /**
   * Discord says the bot's own voice channel in the guild is now `channelId` (null: the bot was
   * disconnected by someone), so the session can follow a move or clean up.
   */
  botVoiceStateChanged?(guildId: string, channelId: string | null): void;
  /** Queues speech in the guild the bot is connected to. */
  speak(request: SpeakRequest): SpeakOutcome;
  /**
   * Skips only the item that is up: the one playing or, while nothing plays, the head of the
   * queue (its generation is aborted). Nothing else moves. False when the queue is empty.
   */
  skip(guildId: string): boolean;
  /** Clears the queue and stops playing; the number of items removed. */
  stop(guildId: string): number;
  /**
   * The guild's API key was replaced or removed. Pending items never use the old key again:
   * ones the old key is generating are cancelled with a reason, and on removal every pending
   * item is; waiting ones resolve the new key when they generate (see {@link SpeechSource}).
   * Returns how many were cancelled.
   */
  keyChanged(guildId: string, change: 'replaced' | 'removed'): number;
  /** The guild's queue in play order. */
  queue(guildId: string): QueueEntry[];
  /** Leaves every channel and kills every ffmpeg process. */
  destroy(): Promise<void>;
}
