/** What the chat reader is handed: the messages it hears and the speaking path it uses. */
import type { RawPcmInput } from '../audio/index.ts';
import type { ChatVoice } from '../speaking/index.ts';
import type { MentionNames } from '../speech/index.ts';
import type { SniffedAudio, SpeakUpdate } from '../voice/index.ts';
import type { MessageFacts } from './filter.ts';
import type { ChatContent } from './text.ts';

/** A chat message as the reader sees it, without discord.js types. */
export interface IncomingMessage extends MessageFacts {
  readonly id: string;
  readonly guildId: string;
  /** Server nickname, else display name, else username. */
  readonly authorName: string;
  readonly message: ChatContent;
  /** Names for the mentions in the content. */
  readonly names: MentionNames;
  /** A Twitch `/me` action: read as "Bobby waves", not "Bobby said waves". */
  readonly action?: boolean;
  /**
   * A Twitch cheer's bits (its text without cheermotes, `action` set): read as "Bobby cheered
   * 500 bits: …" in the language the line is read in, with or without text.
   */
  readonly cheer?: number;
  /** The voice the author chose where they chat (Twitch's `!voice`), before any other. */
  readonly voiceId?: string;
}

/** The voice a member's messages are spoken in, as the speaking service chose it. */
export type { ChatVoice };

/**
 * Makes a queue item's audio when its turn to generate comes, and opens it when it plays; says
 * when that audio is a live stream's raw PCM (see `SpeechSource.rawFormatOf`).
 */
export interface TurnSource {
  generate(signal: AbortSignal): Promise<string>;
  open(audioUrl: string, signal: AbortSignal): Promise<SniffedAudio>;
  rawFormatOf(audioUrl?: string): RawPcmInput | undefined;
}

/** One chat turn in the server's speech queue: its text is decided when it starts generating. */
export interface ChatTurn {
  readonly guildId: string;
  readonly requesterId: string;
  readonly requesterName: string;
  /** What `/queue` shows until the turn knows its text. */
  readonly text: string;
  readonly source: TurnSource;
  readonly onUpdate: (update: SpeakUpdate) => void;
}

/** The speaking path, as the reader uses it (the speaking service and voice behind it). */
export interface ChatSpeaking {
  /** The bot's voice channel in the server, if any. */
  channelOf(guildId: string): string | undefined;
  /**
   * The voice for a member's messages; throws a UserError when the server has no key or the
   * member's chat share is used up (their message is then not read). With the line's `text`,
   * the voice reads in its language (the key differs per language: turns merge one language).
   */
  voiceOf(
    guildId: string,
    member: { id: string; name: string; voiceId?: string },
    text?: string,
  ): Promise<ChatVoice>;
  /** Queues a turn; false when the queue refuses it now (full, or not in voice). */
  queue(turn: ChatTurn): { ok: true; itemId: string } | { ok: false };
  /** Skips the item playing now in the server. */
  skip(guildId: string): boolean;
  /** Joins the member's voice channel (auto-join); notices go to `textChannelId`. */
  join(guildId: string, channelId: string, textChannelId: string): Promise<void>;
}
