/** Who listens to the Twitch chat service, and what each kind of event carries. */
import type { Logger } from '../log/index.ts';
import type { TwitchChatEvent, TwitchCleared, TwitchDeleted, TwitchMessage } from './events.ts';

/** How a read channel is doing. */
export interface TwitchChannelState {
  readonly channel: string;
  /** Logged in to Twitch chat (the one connection every channel shares). */
  readonly connected: boolean;
  /** Twitch confirmed the JOIN on this connection. */
  readonly joined: boolean;
  /** Messages delivered from this channel since midnight UTC. */
  readonly receivedToday: number;
}

/** The events of `TwitchChat.on`, by name. */
export interface TwitchChatEvents {
  readonly message: TwitchMessage;
  readonly deleted: TwitchDeleted;
  readonly cleared: TwitchCleared;
  /** A channel's connection or join state changed. */
  readonly state: TwitchChannelState;
}

type ListenerSets = {
  readonly [K in keyof TwitchChatEvents]: Set<(event: TwitchChatEvents[K]) => void>;
};

/** Listener sets by event name; a listener that throws is logged and does not stop the others. */
export class ChatListeners {
  readonly #sets: ListenerSets = {
    message: new Set(),
    deleted: new Set(),
    cleared: new Set(),
    state: new Set(),
  };

  /** Adds a listener; returns the function that removes it. */
  on<K extends keyof TwitchChatEvents>(
    name: K,
    listener: (event: TwitchChatEvents[K]) => void,
  ): () => void {
    const set: Set<(event: TwitchChatEvents[K]) => void> = this.#sets[name];
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** Calls every listener of `name`. */
  emit<K extends keyof TwitchChatEvents>(
    name: K,
    event: TwitchChatEvents[K],
    logger: Logger,
  ): void {
    const set: Set<(event: TwitchChatEvents[K]) => void> = this.#sets[name];
    for (const listener of set) {
      try {
        listener(event);
      } catch (error) {
        logger.error({ err: error, event: name }, 'Twitch chat listener failed');
      }
    }
  }

  /** Calls the listeners of a chat event's kind. */
  emitChat(event: TwitchChatEvent, logger: Logger): void {
    if (event.kind === 'message') this.emit('message', event, logger);
    else if (event.kind === 'deleted') this.emit('deleted', event, logger);
    else this.emit('cleared', event, logger);
  }
}
