/** Messages the bot sent or edited, with their attachments' bytes. */
import type { AttachmentJson, Json, MessageJson, ReceivedFile } from './types.ts';

/** Ephemeral message flag. */
export const EPHEMERAL = 64;
/** Flag of a deferred ("thinking…") response until its first edit. */
export const LOADING = 128;

/** Input of `MessageStore.create`. */
export interface NewMessage {
  channelId: string;
  guildId: string | undefined;
  author: Json;
  data: Json;
  files: ReceivedFile[];
  type: number;
  /** Extra fields such as webhook_id or interaction_metadata. */
  extra?: Json;
}

/** Stored attachment bytes, served at the attachment's `url`. */
export interface StoredFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

/** Holds messages by id; edits follow Discord's rules for `attachments`. */
export class MessageStore {
  readonly #messages = new Map<string, MessageJson>();
  readonly #files = new Map<string, StoredFile>();
  readonly #nextId: () => string;
  readonly #baseUrl: () => string;

  constructor(nextId: () => string, baseUrl: () => string) {
    this.#nextId = nextId;
    this.#baseUrl = baseUrl;
  }

  /** Stores a new message built from a message payload and uploaded files. */
  create(input: NewMessage): MessageJson {
    const { data } = input;
    const message: MessageJson = {
      id: this.#nextId(),
      channel_id: input.channelId,
      ...(input.guildId === undefined ? {} : { guild_id: input.guildId }),
      author: input.author,
      content: typeof data.content === 'string' ? data.content : '',
      embeds: Array.isArray(data.embeds) ? (data.embeds as Json[]) : [],
      components: Array.isArray(data.components) ? (data.components as Json[]) : [],
      attachments: this.#attachments(input.channelId, [], data.attachments, input.files),
      flags: typeof data.flags === 'number' ? data.flags : 0,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      type: input.type,
      mentions: [],
      mention_roles: [],
      pinned: false,
      tts: data.tts === true,
      mention_everyone: false,
      ...input.extra,
    };
    this.#messages.set(message.id, message);
    return message;
  }

  /** Applies an edit (only the fields present) and returns the new state. */
  edit(id: string, data: Json, files: ReceivedFile[]): MessageJson {
    const message = this.get(id);
    if (!message) throw new Error(`fake-discord: unknown message ${id}`);
    if (typeof data.content === 'string' || data.content === null) {
      message.content = data.content ?? '';
    }
    if (Array.isArray(data.embeds)) message.embeds = data.embeds as Json[];
    if (Array.isArray(data.components)) message.components = data.components as Json[];
    if ('attachments' in data || files.length > 0) {
      message.attachments = this.#attachments(
        message.channel_id,
        message.attachments,
        data.attachments,
        files,
      );
    }
    if (typeof data.flags === 'number') {
      message.flags = (message.flags & EPHEMERAL) | (data.flags & ~EPHEMERAL);
    }
    message.flags &= ~LOADING;
    message.edited_timestamp = new Date().toISOString();
    return message;
  }

  /** The live stored message, or undefined when unknown or deleted. */
  get(id: string): MessageJson | undefined {
    return this.#messages.get(id);
  }

  /** Deletes a message; false when it did not exist. */
  delete(id: string): boolean {
    return this.#messages.delete(id);
  }

  /** Messages of a channel, oldest first. */
  inChannel(channelId: string): MessageJson[] {
    return [...this.#messages.values()].filter((m) => m.channel_id === channelId);
  }

  /** The bytes behind an attachment id. */
  file(attachmentId: string): StoredFile | undefined {
    return this.#files.get(attachmentId);
  }

  #attachments(
    channelId: string,
    existing: AttachmentJson[],
    requested: unknown,
    files: ReceivedFile[],
  ): AttachmentJson[] {
    const unused = new Map(files.map((file) => [file.index, file]));
    const upload = (file: ReceivedFile, meta: Json): AttachmentJson => {
      unused.delete(file.index);
      const id = this.#nextId();
      this.#files.set(id, {
        filename: file.filename,
        contentType: file.contentType,
        data: file.data,
      });
      const url = `${this.#baseUrl()}/attachments/${channelId}/${id}/${encodeURIComponent(file.filename)}`;
      const { id: _index, filename: _name, ...rest } = meta;
      return {
        ...rest,
        id,
        filename: file.filename,
        size: file.data.length,
        content_type: file.contentType,
        url,
        proxy_url: url,
      };
    };
    if (!Array.isArray(requested)) {
      return [...existing, ...files.map((file) => upload(file, {}))];
    }
    const result: AttachmentJson[] = [];
    for (const entry of requested as Json[]) {
      const kept = existing.find((a) => a.id === String(entry.id));
      const uploaded = unused.get(Number(entry.id));
      if (kept) result.push(kept);
      else if (uploaded) result.push(upload(uploaded, entry));
    }
    for (const file of [...unused.values()]) result.push(upload(file, {}));
    return result;
  }
}
