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

/** Voice gateway opcodes that announce members connecting (11) and disconnecting (13). */
export const ClientsOp = { Connect: 11, Disconnect: 13 } as const;

/** The DAVE protocol version the fake speaks. */
export const DAVE_PROTOCOL_VERSION = 1;

const MEDIA_AUDIO = 0;
const DAVE_MARKER = 0xfafa;
const APPEND = 0;

/** What a group's listening members made of the bot's media frames. */
export interface DaveCounters {
  /** Non-silence frames that arrived while DAVE was negotiated. */
  frames: number;
  /** Frames ending with the 0xFAFA marker. */
  marked: number;
  /** Marked frames every listening member decrypted. */
  decrypted: number;
  /** Marked frames some members decrypted and others could not (a member mid-transition). */
  partial: number;
  /** Marked frames no member could decrypt. */
  failed: number;
  /** Marked frames sent while no listening member was in the group (the bot alone). */
  unheard: number;
  /** Frames without the marker: audio a real member would have refused. */
  plaintext: number;
  /**
   * Frames without the marker the members accepted: the group was downgraded to protocol version
   * 0 (op 21/22), until the bot's first end-to-end encrypted frame after the upgrade (op 24).
   */
  downgraded: number;
}

/** Counters at zero. */
export function newDaveCounters(): DaveCounters {
  return {
    frames: 0,
    marked: 0,
    decrypted: 0,
    partial: 0,
    failed: 0,
    unheard: 0,
    plaintext: 0,
    downgraded: 0,
  };
}

/** What the group did so far: epochs, transitions and how the bot answered them. */
export interface DaveGroupStats {
  /** The group's MLS epoch (0 before the group exists). */
  epoch: number;
  /** Transitions (id > 0) announced to the bot, executed (op 22 sent), and stalled. */
  transitionsAnnounced: number;
  transitionsExecuted: number;
  /** Op 31 (invalid commit or Welcome) messages the bot sent. */
  invalidCommits: number;
  /** Times the bot was removed and re-added by a member's commit (after op 31). */
  readds: number;
  /** User ids of the listening members in the group now. */
  members: string[];
  /** The protocol version in effect (0 after an executed downgrade, 1 again after the upgrade). */
  protocolVersion: number;
  /** Times the group was recreated (op 24 with epoch 1): `recreateGroup` and upgrades. */
  recreations: number;
}

/** A binary message for the bot: opcode and payload, before the fake adds its sequence number. */
export interface DaveMessage {
  op: number;
  payload: Buffer;
}

/** A JSON message for the bot (ops 11, 13, 22), sent on the session's `seq`. */
export interface DaveJson {
  op: number;
  d: unknown;
}

/** Either kind of message the group sends. */
export type DaveOutgoing = DaveMessage | DaveJson;

/** True for a binary message. */
export function isBinary(message: DaveOutgoing): message is DaveMessage {
  return 'payload' in message;
}

/** How the fake misbehaves, for tests of the bot's recovery. */
export interface DaveFaults {
  /** Flip a byte of the next commit announced to the bot (op 29): the bot answers op 31. */
  corruptNextCommit: boolean;
  /** Never send Execute Transition (op 22): a transition that never completes. */
  stallTransitions: boolean;
}

type Session = InstanceType<typeof davey.DAVESession>;
type Membership = { kind: 'add' | 'remove'; userId: string };
type Change = Membership | { kind: 'downgrade' } | { kind: 'recreate'; protocolVersion: number };
type Pending =
  | { kind: 'commit'; change: Membership }
  | { kind: 'ready'; transitionId: number; protocolVersion?: number }
  | { kind: 'readd' };

/**
 * One DAVE group as Discord runs it for a bot's voice session: the fake is the MLS delivery
 * service and external sender; the listening members are real `@snazzah/davey` sessions that
 * join through the bot's Welcome, follow its commits, and decrypt every frame the bot sends.
 * Membership changes are serialised: the next one is proposed once the last transition executed.
 */
export class DaveGroup {
  readonly #sender = new ExternalSender();
  readonly #channelId: string;
  readonly #botId: string;
  /** Members present in the channel (in the group, or being added). */
  readonly #members = new Map<string, Session>();
  /** Members in the group: they process every commit. */
  readonly #inGroup = new Set<string>();
  /** Leaf index → user id, to name the leaf a Remove proposal takes out. */
  readonly #leaves: (string | undefined)[] = [];
  readonly #queue: Change[] = [];
  readonly #faults: DaveFaults;
  #pending: Pending | undefined;
  #epoch = 0n;
  #formed = false;
  #opened = false;
  #keyPackageSeen = false;
  #nextTransition = 1;
  #stats = {
    transitionsAnnounced: 0,
    transitionsExecuted: 0,
    invalidCommits: 0,
    readds: 0,
    recreations: 0,
  };
  /** The protocol version in effect: 0 from a downgrade's execute until the upgrade. */
  #protocolVersion = DAVE_PROTOCOL_VERSION;
  /** The members accept plaintext (a downgrade, until the bot encrypts again after the upgrade). */
  #passthrough = false;
  /** A recreated group's version: its first commit is a transition to it (op 29, 23, 22). */
  #recreated: number | undefined;
  /** Recreated after a downgrade: the bot's first encrypted frame ends the passthrough. */
  #upgrading = false;
  /**
   * Each member's session of the group before the last recreation: receivers keep the keys of
   * past epochs for a while (up to 10 s on Discord), so frames in flight still decrypt. Dropped
   * at the first frame every member decrypts in the new group (the bot's sender switched).
   */
  #previous = new Map<string, Session>();

  constructor(channelId: string, botId: string, memberIds: readonly string[], faults: DaveFaults) {
    this.#channelId = channelId;
    this.#botId = botId;
    this.#faults = faults;
    for (const id of memberIds) this.#members.set(id, this.#newMember(id));
  }

  /** User ids of the members present, for op 11 (clients connect). */
  get memberIds(): string[] {
    return [...this.#members.keys()];
  }

  /** True once every listening member is in the bot's group. */
  get ready(): boolean {
    return [...this.#members.values()].every((member) => member.ready);
  }

  /** True once the group exists (the bot's first commit came back). */
  get formed(): boolean {
    return this.#formed;
  }

  /** What the group did so far. */
  stats(): DaveGroupStats {
    return {
      epoch: Number(this.#epoch),
      ...this.#stats,
      members: [...this.#inGroup],
      protocolVersion: this.#protocolVersion,
    };
  }

  /**
   * Opens the handshake: op 25, then the proposals if the bot's key package came first (it sends
   * one at Session Description, maybe before a delayed op 25).
   */
  open(): DaveMessage[] {
    this.#opened = true;
    const first = { op: DaveOp.ExternalSender, payload: this.#sender.package() };
    return this.#keyPackageSeen ? [first, ...this.#firstProposals()] : [first];
  }

  /**
   * Answers the bot's key package (op 26): with proposals adding the listening members (op 27)
   * while the group does not exist; once it does (the bot reinitialised after op 31), a member
   * removes the bot's old leaf and adds the new one, and the bot gets the Welcome (op 30).
   */
  onKeyPackage(keyPackage: Buffer): DaveOutgoing[] {
    this.#keyPackageSeen = true;
    if (!this.#formed) return this.#opened ? this.#firstProposals() : [];
    return this.#readd(keyPackage);
  }

  #firstProposals(): DaveMessage[] {
    const adds = [...this.#members.values()].map((member) =>
      this.#sender.add(this.#channelId, this.#epoch, member.getSerializedKeyPackage()),
    );
    if (adds.length === 0) return [];
    return [proposalsMessage(adds)];
  }

  /**
   * Takes the bot's commit and Welcome (op 28): the members in the group process the commit, the
   * members added process the Welcome, and the commit is announced back to the bot (op 29).
   * The group's first commit is transition 0 (no execute needed); later ones wait for op 23.
   */
  onCommitWelcome(payload: Buffer): DaveOutgoing[] {
    const { commit, welcome } = splitCommitWelcome(payload);
    if (!this.#formed) {
      this.#leaves.push(this.#botId);
      for (const [id, member] of this.#members) {
        if (!member.ready && welcome) member.processWelcome(welcome);
        this.#inGroup.add(id);
        this.#leaves.push(id);
      }
      this.#formed = true;
      this.#epoch += 1n;
      let firstId = 0;
      if (this.#recreated !== undefined) {
        // A recreated group (op 24): everyone gets ready for the new group, then it is executed.
        firstId = this.#nextTransition++;
        this.#pending = { kind: 'ready', transitionId: firstId, protocolVersion: this.#recreated };
        this.#recreated = undefined;
        this.#stats.transitionsAnnounced += 1;
      }
      return [
        { op: DaveOp.AnnounceCommitTransition, payload: Buffer.concat([u16(firstId), commit]) },
      ];
    }
    const pending = this.#pending;
    if (pending?.kind !== 'commit') return []; // a late or duplicate commit: Discord takes the first
    this.#commitToMembers(commit, welcome, pending.change);
    const transitionId = this.#nextTransition++;
    this.#pending = { kind: 'ready', transitionId };
    this.#stats.transitionsAnnounced += 1;
    let announced = commit;
    if (this.#faults.corruptNextCommit) {
      this.#faults.corruptNextCommit = false;
      announced = Buffer.from(commit);
      announced[announced.length - 1] = (announced[announced.length - 1] ?? 0) ^ 0xff;
    }
    return [
      {
        op: DaveOp.AnnounceCommitTransition,
        payload: Buffer.concat([u16(transitionId), announced]),
      },
    ];
  }

  #commitToMembers(commit: Buffer, welcome: Buffer | undefined, change: Membership): void {
    for (const id of this.#inGroup) this.#members.get(id)?.processCommit(commit);
    this.#epoch += 1n;
    if (change.kind === 'add') {
      const member = this.#members.get(change.userId);
      if (member && welcome) {
        member.processWelcome(welcome);
        this.#inGroup.add(change.userId);
      }
      placeLeaf(this.#leaves, change.userId);
    } else {
      const leaf = this.#leaves.indexOf(change.userId);
      if (leaf >= 0) this.#leaves[leaf] = undefined;
    }
  }

  /** The bot is ready for a transition (op 23): execute it (op 22), then propose the next change. */
  onTransitionReady(transitionId: number): DaveOutgoing[] {
    const pending = this.#pending;
    if (pending?.kind !== 'ready' || pending.transitionId !== transitionId) return [];
    if (this.#faults.stallTransitions) return [];
    this.#pending = undefined;
    this.#stats.transitionsExecuted += 1;
    if (pending.protocolVersion !== undefined) this.#protocolVersion = pending.protocolVersion;
    if (pending.protocolVersion === 0) this.#passthrough = true;
    return [
      { op: DaveOp.ExecuteTransition, d: { transition_id: transitionId } },
      ...this.#proposeNext(),
    ];
  }

  /** The bot could not process a commit or Welcome (op 31): it reinitialises and sends a key package. */
  onInvalidCommit(_transitionId: number): DaveOutgoing[] {
    this.#stats.invalidCommits += 1;
    this.#pending = { kind: 'readd' };
    return [];
  }

  #readd(keyPackage: Buffer): DaveOutgoing[] {
    const committerId = [...this.#inGroup][0];
    const committer = committerId === undefined ? undefined : this.#members.get(committerId);
    const botLeaf = this.#leaves.indexOf(this.#botId);
    if (!committer || botLeaf < 0) return []; // the bot alone: nobody can re-add it (not modelled)
    const proposals = proposalsVector([
      this.#sender.remove(this.#channelId, this.#epoch, botLeaf),
      this.#sender.add(this.#channelId, this.#epoch, keyPackage),
    ]);
    const { commit, welcome } = committer.processProposals(APPEND, proposals);
    if (!commit || !welcome) throw new Error('the member did not commit the re-add of the bot');
    this.#proposeToMembers(proposals, committerId);
    for (const id of this.#inGroup) this.#members.get(id)?.processCommit(commit);
    this.#epoch += 1n;
    this.#leaves[botLeaf] = undefined;
    placeLeaf(this.#leaves, this.#botId);
    const transitionId = this.#nextTransition++;
    this.#pending = { kind: 'ready', transitionId };
    this.#stats.readds += 1;
    this.#stats.transitionsAnnounced += 1;
    return [{ op: DaveOp.Welcome, payload: Buffer.concat([u16(transitionId), welcome]) }];
  }

  /** A member joins the channel: op 11 at once, its Add proposal when no transition is pending. */
  join(userId: string): DaveOutgoing[] {
    if (this.#members.has(userId)) return [];
    this.#members.set(userId, this.#newMember(userId));
    this.#queue.push({ kind: 'add', userId });
    return [{ op: ClientsOp.Connect, d: { user_ids: [userId] } }, ...this.#proposeNext()];
  }

  /** A member leaves: op 13 at once (it stops listening), its Remove proposal when possible. */
  leave(userId: string): DaveOutgoing[] {
    if (!this.#members.delete(userId)) return [];
    this.#inGroup.delete(userId);
    this.#previous.delete(userId);
    this.#queue.push({ kind: 'remove', userId });
    return [{ op: ClientsOp.Disconnect, d: { user_id: userId } }, ...this.#proposeNext()];
  }

  /**
   * Discord recreates the group (op 24 with epoch 1, then op 25 again): the bot resets its
   * session and sends a new key package (op 26); the members present are proposed (op 27), the
   * bot commits (op 28), the members join through its Welcome, and the commit comes back as a
   * transition (op 29, 23, 22). After a downgrade this is the upgrade back to `protocolVersion`.
   */
  recreate(protocolVersion: number = DAVE_PROTOCOL_VERSION): DaveOutgoing[] {
    this.#queue.push({ kind: 'recreate', protocolVersion });
    return this.#proposeNext();
  }

  /**
   * A member without DAVE joined (op 11 is the caller's): Discord downgrades the group to
   * protocol version 0 (op 21), the bot answers op 23, the fake executes (op 22); from then on
   * the members accept plaintext until the bot encrypts again after the upgrade (`recreate`).
   */
  downgrade(): DaveOutgoing[] {
    this.#queue.push({ kind: 'downgrade' });
    return this.#proposeNext();
  }

  #prepareDowngrade(): DaveOutgoing[] {
    const transitionId = this.#nextTransition++;
    this.#pending = { kind: 'ready', transitionId, protocolVersion: 0 };
    this.#stats.transitionsAnnounced += 1;
    return [
      {
        op: DaveOp.PrepareTransition,
        d: { transition_id: transitionId, protocol_version: 0 },
      },
    ];
  }

  #recreate(protocolVersion: number): DaveOutgoing[] {
    this.#stats.recreations += 1;
    this.#previous = new Map([...this.#members].filter(([, member]) => member.ready));
    for (const id of this.#members.keys()) this.#members.set(id, this.#newMember(id));
    this.#inGroup.clear();
    this.#leaves.length = 0;
    this.#epoch = 0n;
    this.#formed = false;
    this.#keyPackageSeen = false;
    this.#recreated = protocolVersion;
    if (this.#passthrough) this.#upgrading = true;
    // Changes queued until now are in the new group already (its first proposals add everyone).
    this.#queue.length = 0;
    return [
      { op: DaveOp.PrepareEpoch, d: { epoch: 1, protocol_version: protocolVersion } },
      { op: DaveOp.ExternalSender, payload: this.#sender.package() },
    ];
  }

  #proposeNext(): DaveOutgoing[] {
    if (this.#pending !== undefined || !this.#formed) return [];
    const change = this.#queue.shift();
    if (!change) return [];
    if (change.kind === 'downgrade') return this.#prepareDowngrade();
    if (change.kind === 'recreate') return this.#recreate(change.protocolVersion);
    // Under protocol version 0 there is no group to change: the upgrade's new group has everyone.
    if (this.#protocolVersion === 0) return this.#proposeNext();
    if (change.kind === 'add' && this.#inGroup.has(change.userId)) return this.#proposeNext();
    let proposal: Buffer;
    if (change.kind === 'add') {
      const member = this.#members.get(change.userId);
      if (!member) return this.#proposeNext(); // joined and left again before its turn
      proposal = this.#sender.add(this.#channelId, this.#epoch, member.getSerializedKeyPackage());
    } else {
      const leaf = this.#leaves.indexOf(change.userId);
      if (leaf < 0) return this.#proposeNext(); // left before it was added
      proposal = this.#sender.remove(this.#channelId, this.#epoch, leaf);
    }
    this.#pending = { kind: 'commit', change };
    // The members in the group get the proposals too: a commit refers to them by reference.
    this.#proposeToMembers(proposalsVector([proposal]));
    return [proposalsMessage([proposal])];
  }

  /** Every member in the group (but `except`) processes the proposals; their own commits are dropped. */
  #proposeToMembers(proposals: Buffer, except?: string): void {
    for (const id of this.#inGroup) {
      if (id !== except) this.#members.get(id)?.processProposals(APPEND, proposals);
    }
  }

  #newMember(userId: string): Session {
    const member = new davey.DAVESession(DAVE_PROTOCOL_VERSION, userId, this.#channelId);
    member.setExternalSender(this.#sender.package());
    return member;
  }

  /**
   * Hears one media frame (already out of transport encryption) as every member in the group
   * would; returns the Opus payload one of them decrypted, or undefined when none could, and
   * counts it in `counters`.
   */
  hear(frame: Buffer, counters: DaveCounters): Buffer | undefined {
    counters.frames += 1;
    if (frame.length < 2 || frame.readUInt16BE(frame.length - 2) !== DAVE_MARKER) {
      if (this.#passthrough) {
        counters.downgraded += 1;
        return frame;
      }
      counters.plaintext += 1;
      return undefined;
    }
    counters.marked += 1;
    // The bot encrypts again after the upgrade: its sender switched, plaintext is refused again.
    if (this.#upgrading) {
      this.#upgrading = false;
      this.#passthrough = false;
    }
    const ids = new Set([...this.#inGroup, ...this.#previous.keys()]);
    const listeners = [...ids].map((id) => ({
      current: this.#inGroup.has(id) ? this.#members.get(id) : undefined,
      past: this.#previous.get(id),
    }));
    if (listeners.length === 0) {
      counters.unheard += 1;
      return undefined;
    }
    let opus: Buffer | undefined;
    let failures = 0;
    let pastKeys = 0;
    for (const { current, past } of listeners) {
      let heard = current && tryDecrypt(current, this.#botId, frame);
      if (!heard && past) {
        heard = tryDecrypt(past, this.#botId, frame);
        if (heard) pastKeys += 1;
      }
      if (heard) opus ??= heard;
      else failures += 1;
    }
    // The bot's sender is in the new group: the last group's keys are of no more use.
    if (failures === 0 && pastKeys === 0) this.#previous.clear();
    if (failures === 0) counters.decrypted += 1;
    else if (failures < listeners.length) counters.partial += 1;
    else counters.failed += 1;
    return opus;
  }
}

/** The Opus payload a member's session decrypts, or undefined when it cannot. */
function tryDecrypt(session: Session, botId: string, frame: Buffer): Buffer | undefined {
  try {
    return session.decrypt(botId, MEDIA_AUDIO, frame);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return undefined;
  }
}

function proposalsMessage(messages: readonly Buffer[]): DaveMessage {
  return {
    op: DaveOp.Proposals,
    payload: Buffer.concat([Buffer.from([APPEND]), proposalsVector(messages)]),
  };
}

/** An Add takes the leftmost blank leaf, or a new one at the right (RFC 9420 §12.1.1). */
function placeLeaf(leaves: (string | undefined)[], userId: string): void {
  const blank = leaves.indexOf(undefined);
  if (blank >= 0) leaves[blank] = userId;
  else leaves.push(userId);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
