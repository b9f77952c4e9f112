import davey from '@snazzah/davey';
import { ExternalSender, proposalsVector, splitCommitWelcome } from './mls.ts';

/** DAVE opcodes of voice gateway v8 (binary ones carry MLS messages). */
export const DaveOp = {
  PrepareTransition: 21,
  ExecuteTransition: 22,
  TransitionReady: 23,
  PrepareEpoch: 24,
  ExternalSender: 25,
  KeyPackage: 26,
  Proposals: 27,
  CommitWelcome: 28,
  AnnounceCommitTransition: 29,
  Welcome: 30,
  InvalidCommitWelcome: 31,
} as const;

/** The DAVE protocol version the fake speaks. */
export const DAVE_PROTOCOL_VERSION = 1;

const MEDIA_AUDIO = 0;
const DAVE_MARKER = 0xfafa;

/** What a group's listening members made of the bot's media frames. */
export interface DaveCounters {
  /** Non-silence frames that arrived while DAVE was negotiated. */
  frames: number;
  /** Frames ending with the 0xFAFA marker. */
  marked: number;
  decrypted: number;
  /** Marked frames no member could decrypt. */
  failed: number;
  /** Frames without the marker: audio a real member would have refused. */
  plaintext: number;
}

/** Counters at zero. */
export function newDaveCounters(): DaveCounters {
  return { frames: 0, marked: 0, decrypted: 0, failed: 0, plaintext: 0 };
}

/** A binary message for the bot: opcode and payload, before the fake adds its sequence number. */
export interface DaveMessage {
  op: number;
  payload: Buffer;
}

type Session = InstanceType<typeof davey.DAVESession>;

/**
 * One DAVE group as Discord runs it for a bot's voice session: the fake is the MLS delivery
 * service and external sender; the listening members are real `@snazzah/davey` sessions that
 * join through the bot's Welcome and decrypt every frame the bot sends.
 */
export class DaveGroup {
  readonly #sender = new ExternalSender();
  readonly #channelId: string;
  readonly #botId: string;
  readonly #members = new Map<string, Session>();
  #epoch = 0n;
  #opened = false;
  #keyPackageSeen = false;

  constructor(channelId: string, botId: string, memberIds: readonly string[]) {
    this.#channelId = channelId;
    this.#botId = botId;
    for (const id of memberIds) {
      const member = new davey.DAVESession(DAVE_PROTOCOL_VERSION, id, channelId);
      member.setExternalSender(this.#sender.package());
      this.#members.set(id, member);
    }
  }

  /** User ids of the listening members, for op 11 (clients connect). */
  get memberIds(): string[] {
    return [...this.#members.keys()];
  }

  /** True once every listening member is in the bot's group. */
  get ready(): boolean {
    return [...this.#members.values()].every((member) => member.ready);
  }

  /**
   * Opens the handshake: op 25, then the proposals if the bot's key package came first (it sends
   * one at Session Description, maybe before a delayed op 25).
   */
  open(): DaveMessage[] {
    this.#opened = true;
    const first = { op: DaveOp.ExternalSender, payload: this.#sender.package() };
    return this.#keyPackageSeen ? [first, ...this.#proposals()] : [first];
  }

  /** Answers the bot's key package (op 26) with proposals adding the listening members (op 27). */
  onKeyPackage(_keyPackage: Buffer): DaveMessage[] {
    this.#keyPackageSeen = true;
    return this.#opened ? this.#proposals() : [];
  }

  #proposals(): DaveMessage[] {
    const adds = [...this.#members.values()].map((member) =>
      this.#sender.add(this.#channelId, this.#epoch, member.getSerializedKeyPackage()),
    );
    if (adds.length === 0) return [];
    return [
      { op: DaveOp.Proposals, payload: Buffer.concat([Buffer.from([0]), proposalsVector(adds)]) },
    ];
  }

  /**
   * Takes the bot's commit and Welcome (op 28): the members added process the Welcome, and the
   * commit is announced back to the bot (op 29, transition 0: the group's first epoch).
   */
  onCommitWelcome(payload: Buffer): DaveMessage[] {
    const { commit, welcome } = splitCommitWelcome(payload);
    if (welcome) {
      for (const member of this.#members.values()) {
        if (!member.ready) member.processWelcome(welcome);
      }
    }
    this.#epoch += 1n;
    return [{ op: DaveOp.AnnounceCommitTransition, payload: Buffer.concat([u16(0), commit]) }];
  }

  /**
   * Hears one media frame (already out of transport encryption) as the members would; returns
   * the Opus payload they decrypted, or undefined when they could not, and counts it in `counters`.
   */
  hear(frame: Buffer, counters: DaveCounters): Buffer | undefined {
    counters.frames += 1;
    if (frame.length < 2 || frame.readUInt16BE(frame.length - 2) !== DAVE_MARKER) {
      counters.plaintext += 1;
      return undefined;
    }
    counters.marked += 1;
    const listener = this.#members.values().next().value;
    if (!listener) return undefined;
    try {
      const opus = listener.decrypt(this.#botId, MEDIA_AUDIO, frame);
      counters.decrypted += 1;
      return opus;
    } catch (error) {
      counters.failed += 1;
      if (!(error instanceof Error)) throw error;
      return undefined;
    }
  }
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
