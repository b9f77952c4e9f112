/** What a test holds for one interaction it sent: everything the bot did for it, in order. */
import type { MessageStore } from './messages.ts';
import type { InteractionEvent, Json, MessageJson, ReceivedFile, UserRef } from './types.ts';

const DEFAULT_TIMEOUT_MS = 5_000;

/** Submits a modal shown for `parent`; supplied by the interaction factory. */
export type SubmitModal = (
  parent: InteractionHandle,
  modal: Json,
  values: Record<string, string>,
  user: UserRef | undefined,
) => InteractionHandle;

/** Construction data of a handle. */
export interface HandleInit {
  payload: Json;
  messages: MessageStore;
  submit: SubmitModal;
  /** For component interactions: the message the component is on. */
  clickedMessageId?: string;
}

/** Records the callback, edits, follow-ups and deletes of one interaction. */
export class InteractionHandle {
  readonly id: string;
  readonly token: string;
  readonly type: number;
  /** The INTERACTION_CREATE payload as sent. */
  readonly payload: Json;
  readonly events: InteractionEvent[] = [];
  readonly clickedMessageId: string | undefined;
  /** Id of the original response message once there is one. */
  originalId: string | undefined;
  readonly followUpIds: string[] = [];
  readonly #messages: MessageStore;
  readonly #submit: SubmitModal;
  readonly #listeners = new Set<() => void>();
  readonly #cancels = new Set<(reason: Error) => void>();

  constructor(init: HandleInit) {
    this.payload = init.payload;
    this.id = String(init.payload.id);
    this.token = String(init.payload.token);
    this.type = Number(init.payload.type);
    this.#messages = init.messages;
    this.#submit = init.submit;
    this.clickedMessageId = init.clickedMessageId;
  }

  /** Whether the bot has answered the callback yet. */
  get acknowledged(): boolean {
    return this.callback() !== undefined;
  }

  /** The callback event, if any. */
  callback(): Extract<InteractionEvent, { kind: 'callback' }> | undefined {
    const event = this.events.find((e) => e.kind === 'callback');
    return event?.kind === 'callback' ? event : undefined;
  }

  /** Appends an event and wakes waiters (called by the fake's REST side). */
  record(event: InteractionEvent): void {
    this.events.push(event);
    for (const listener of [...this.#listeners]) listener();
  }

  /** Rejects every pending wait (the fake is closing), so no timer outlives it. */
  dispose(): void {
    const reason = new Error(`fake-discord: closed while waiting on interaction ${this.id}`);
    for (const cancel of [...this.#cancels]) cancel(reason);
  }

  /** Resolves with the first event (past or future) matching `predicate`. */
  waitFor(
    predicate: (event: InteractionEvent) => boolean,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<InteractionEvent> {
    return new Promise((resolve, reject) => {
      let seen = 0;
      const check = () => {
        for (; seen < this.events.length; seen++) {
          const event = this.events[seen];
          if (event && predicate(event)) {
            finish();
            resolve(event);
            return;
          }
        }
      };
      const timer = setTimeout(() => {
        finish();
        const kinds = this.events.map((e) =>
          e.kind === 'callback' ? `callback ${e.type}` : e.kind,
        );
        reject(
          new Error(
            `fake-discord: interaction ${this.id} (type ${this.type}): no matching event within ${timeoutMs} ms; events so far: [${kinds.join(', ')}]`,
          ),
        );
      }, timeoutMs);
      const cancel = (reason: Error) => {
        finish();
        reject(reason);
      };
      const finish = () => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        this.#cancels.delete(cancel);
      };
      this.#listeners.add(check);
      this.#cancels.add(cancel);
      check();
    });
  }

  /**
   * Resolves with the original response once it has content: after a type 4 or 7 callback, or
   * the first edit of `@original` after a defer (5 or 6).
   */
  async waitForReply(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<MessageJson> {
    await this.waitFor(
      (e) =>
        (e.kind === 'callback' && (e.type === 4 || e.type === 7)) ||
        (e.kind === 'edit' && e.original),
      timeoutMs,
    );
    const message = this.lastMessage();
    if (!message) throw new Error(`fake-discord: interaction ${this.id}: the reply was deleted`);
    return message;
  }

  /** Resolves with the modal (callback type 9 data: custom_id, title, components). */
  async waitForModal(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Json> {
    const event = await this.waitFor((e) => e.kind === 'callback' && e.type === 9, timeoutMs);
    return (event.kind === 'callback' && event.data) || {};
  }

  /** Current state of the original response (content, embeds, components, attachments, flags). */
  lastMessage(): MessageJson | undefined {
    const message = this.originalId ? this.#messages.get(this.originalId) : undefined;
    return message ? structuredClone(message) : undefined;
  }

  /** Current state of the follow-up messages that still exist. */
  followUps(): MessageJson[] {
    return this.followUpIds.flatMap((id) => {
      const message = this.#messages.get(id);
      return message ? [structuredClone(message)] : [];
    });
  }

  /** Every file the bot uploaded for this interaction, in order. */
  files(): ReceivedFile[] {
    return this.events.flatMap((e) => ('files' in e ? e.files : []));
  }

  /**
   * Waits for the modal, then submits it as `user` (default: who opened it) with text input
   * values by custom id; returns the MODAL_SUBMIT interaction's handle.
   */
  async submitModal(
    values: Record<string, string>,
    options: { user?: UserRef; timeoutMs?: number } = {},
  ): Promise<InteractionHandle> {
    const modal = await this.waitForModal(options.timeoutMs);
    return this.#submit(this, modal, values, options.user);
  }
}
