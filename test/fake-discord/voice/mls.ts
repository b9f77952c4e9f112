import { createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';

/**
 * The MLS (RFC 9420) wire format a DAVE voice server needs, written with `node:crypto` only:
 * the external sender Discord plays (op 25), its signed Add/Remove proposals (op 27), and the
 * split of a client's op 28 into its commit and Welcome. No MLS group state lives here: the
 * group is kept by the clients (`@snazzah/davey` sessions), as on Discord.
 */

const MLS_VERSION = 1;
const WIRE_PUBLIC_MESSAGE = 1;
const SENDER_MEMBER = 1;
const SENDER_EXTERNAL = 2;
const CONTENT_PROPOSAL = 2;
const CONTENT_COMMIT = 3;
const PROPOSAL_ADD = 1;
const PROPOSAL_REMOVE = 3;
const CREDENTIAL_BASIC = 1;
const WIRE_KEY_PACKAGE = 5;

/** Encodes an MLS variable-length integer (RFC 9420 §2.1.2). */
export function varint(n: number): Buffer {
  if (n < 0x40) return Buffer.from([n]);
  if (n < 0x4000) {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(0x4000 | n);
    return b;
  }
  const b = Buffer.alloc(4);
  b.writeUInt32BE((0x80000000 | n) >>> 0);
  return b;
}

/** An MLS `opaque<V>`: a variable-length-integer length, then the bytes. */
export function vec(data: Buffer): Buffer {
  return Buffer.concat([varint(data.length), data]);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
}

/** The MLS group id DAVE uses: the channel id as a big-endian u64. */
export function groupIdOf(channelId: string): Buffer {
  return u64(BigInt(channelId));
}

/** A cursor over MLS bytes, for the few structures the fake must walk. */
class Reader {
  offset = 0;
  readonly data: Buffer;
  constructor(data: Buffer) {
    this.data = data;
  }
  u8(): number {
    const v = this.data.readUInt8(this.offset);
    this.offset += 1;
    return v;
  }
  u16(): number {
    const v = this.data.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  skip(n: number): void {
    if (this.offset + n > this.data.length) throw new Error('MLS message too short');
    this.offset += n;
  }
  varint(): number {
    const first = this.data.readUInt8(this.offset);
    const prefix = first >> 6;
    if (prefix === 0) {
      this.offset += 1;
      return first;
    }
    if (prefix === 1) {
      const v = this.data.readUInt16BE(this.offset) & 0x3fff;
      this.offset += 2;
      return v;
    }
    const v = this.data.readUInt32BE(this.offset) & 0x3fffffff;
    this.offset += 4;
    return v;
  }
  opaque(): Buffer {
    const n = this.varint();
    const start = this.offset;
    this.skip(n);
    return this.data.subarray(start, start + n);
  }
}

/** Discord's side of a DAVE group: the key that signs membership proposals. */
export class ExternalSender {
  readonly #privateKey: KeyObject;
  readonly #publicKey: Buffer;

  constructor() {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#privateKey = privateKey;
    this.#publicKey = createPublicKey(privateKey)
      .export({ type: 'spki', format: 'der' })
      .subarray(-65);
  }

  /** The op 25 payload: `ExternalSender { signature_key<V>, Credential(basic, identity<V>) }`. */
  package(): Buffer {
    return Buffer.concat([
      vec(this.#publicKey),
      u16(CREDENTIAL_BASIC),
      vec(Buffer.from('fake-discord')),
    ]);
  }

  /** An MLSMessage proposing to add the holder of `keyPackage` (raw or wrapped in an MLSMessage). */
  add(channelId: string, epoch: bigint, keyPackage: Buffer): Buffer {
    return this.#proposal(
      channelId,
      epoch,
      Buffer.concat([u16(PROPOSAL_ADD), unwrapKeyPackage(keyPackage)]),
    );
  }

  /** An MLSMessage proposing to remove the member at `leafIndex`. */
  remove(channelId: string, epoch: bigint, leafIndex: number): Buffer {
    return this.#proposal(channelId, epoch, Buffer.concat([u16(PROPOSAL_REMOVE), u32(leafIndex)]));
  }

  #proposal(channelId: string, epoch: bigint, proposal: Buffer): Buffer {
    const content = Buffer.concat([
      vec(groupIdOf(channelId)),
      u64(epoch),
      Buffer.from([SENDER_EXTERNAL]),
      u32(0),
      vec(Buffer.alloc(0)),
      Buffer.from([CONTENT_PROPOSAL]),
      proposal,
    ]);
    const header = Buffer.concat([u16(MLS_VERSION), u16(WIRE_PUBLIC_MESSAGE)]);
    // SignWithLabel(FramedContentTBS): no group context for an external sender.
    const signContent = Buffer.concat([
      vec(Buffer.from('MLS 1.0 FramedContentTBS')),
      vec(Buffer.concat([header, content])),
    ]);
    const signature = sign('sha256', signContent, this.#privateKey);
    return Buffer.concat([header, content, vec(signature)]);
  }
}

/** The op 27 payload body after the operation byte: a vector of MLSMessages. */
export function proposalsVector(messages: readonly Buffer[]): Buffer {
  return vec(Buffer.concat(messages));
}

function unwrapKeyPackage(keyPackage: Buffer): Buffer {
  const wrapped = keyPackage.length > 4 && keyPackage.readUInt16BE(2) === WIRE_KEY_PACKAGE;
  return wrapped ? keyPackage.subarray(4) : keyPackage;
}

/**
 * Splits a client's op 28 payload into its commit (an MLSMessage PublicMessage) and the Welcome
 * that may follow it, by walking the commit's structure.
 */
export function splitCommitWelcome(payload: Buffer): {
  commit: Buffer;
  welcome: Buffer | undefined;
} {
  const r = new Reader(payload);
  r.skip(4); // version, wire format
  r.opaque(); // group id
  r.skip(8); // epoch
  const senderType = r.u8();
  if (senderType === SENDER_MEMBER || senderType === SENDER_EXTERNAL) r.skip(4);
  r.opaque(); // authenticated data
  const contentType = r.u8();
  if (contentType !== CONTENT_COMMIT)
    throw new Error(`op 28 without a commit (content type ${contentType})`);
  r.opaque(); // proposals
  if (r.u8() === 1) {
    skipLeafNode(r);
    r.opaque(); // UpdatePathNode nodes
  }
  r.opaque(); // signature
  r.opaque(); // confirmation tag
  if (senderType === SENDER_MEMBER) r.opaque(); // membership tag
  const commit = payload.subarray(0, r.offset);
  const rest = payload.subarray(r.offset);
  return { commit, welcome: rest.length > 0 ? rest : undefined };
}

function skipLeafNode(r: Reader): void {
  r.opaque(); // encryption key
  r.opaque(); // signature key
  if (r.u16() !== CREDENTIAL_BASIC) throw new Error('only basic credentials are supported');
  r.opaque(); // identity
  for (let i = 0; i < 5; i += 1) r.opaque(); // capabilities
  const source = r.u8();
  if (source === 1) r.skip(16);
  else if (source === 3) r.opaque();
  r.opaque(); // extensions
  r.opaque(); // signature
}
