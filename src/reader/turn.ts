/**
 * A chat turn and the messages it reads: the shapes `ReaderTurns` moves from queued to played,
 * apart from it so the reader and its tests can name them.
 */
import type { PendingMessage } from './backlog.ts';
import type { ChatVoice } from './types.ts';

/** Thrown by a turn whose messages were all deleted or went stale before it could speak. */
export class NothingToRead extends Error {
  override readonly name = 'NothingToRead';
}

/** A message with the voice it is spoken in. */
export interface ReaderMessage extends PendingMessage {
  readonly voice: ChatVoice;
  /**
   * An edit made after the message was taken for generation was read (its one re-read): later
   * edits no longer change what is said, so ten edits cost at most one generation more.
   */
  readonly reread?: boolean;
  /** From a priority chatter (a priority role; broadcaster, moderator or VIP): read first. */
  readonly priority?: boolean;
}

/** One chat turn in the speech queue: the batch it reads and where it stands. */
export interface Turn {
  batch: ReaderMessage[];
  state: 'waiting' | 'generating' | 'ready' | 'playing' | 'done';
  /**
   * The generation under way, then the audio it made until played (a live stream is let go
   * with it): aborted when one of its messages is deleted or edited, or the turn ends.
   */
  attempt: AbortController | undefined;
  /** A message of the batch changed after its audio was made: make it again before playing. */
  dirty: boolean;
  voice: ChatVoice | undefined;
  /** Characters of the batch as the backlog counts them (a chorus once), for the speech forecast. */
  cost: number;
  /** The API speed the turn is generated at (the voice's own, or faster for a busy chat). */
  speed: number | undefined;
  /** The busy chat's speed-up decided for the turn (1: none), applied to its batch's voice. */
  factor: number;
  /** Read with the compact glue ("Bobby, …"), decided with its speed. */
  compact: boolean;
  /** When it started playing. */
  playingSince: number | undefined;
}
