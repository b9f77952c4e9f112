import { createDecipheriv, randomBytes } from 'node:crypto';

/** The one transport encryption mode the fake offers (as Discord prefers it). */
export const ENCRYPTION_MODE = 'aead_aes256_gcm_rtpsize';

const RTP_HEADER_LENGTH = 12;
const AUTH_TAG_LENGTH = 16;
const NONCE_LENGTH = 4;
/** RTP payload type @discordjs/voice uses for Opus. */
export const RTP_OPUS_PAYLOAD_TYPE = 120;

/** The header fields of one RTP packet the fake needs. */
export interface RtpPacket {
  sequence: number;
  timestamp: number;
  ssrc: number;
  /** The 4-byte big-endian nonce counter trailing the packet. */
  nonce: number;
  /** The decrypted Opus frame (header extension, if any, removed). */
  opus: Buffer;
}

/** A fresh 32-byte secret key for a session description. */
export function newSecretKey(): Buffer {
  return randomBytes(32);
}

/** Whether a UDP datagram looks like an RTP voice packet (version 2, Opus payload type). */
export function isRtp(packet: Buffer): boolean {
  const first = packet[0] ?? 0;
  const second = packet[1] ?? 0;
  return (
    packet.length >= RTP_HEADER_LENGTH + AUTH_TAG_LENGTH + NONCE_LENGTH &&
    first >> 6 === 2 &&
    (second & 0x7f) === RTP_OPUS_PAYLOAD_TYPE
  );
}

/** Reads the SSRC of an RTP packet, to find the session that sent it. */
export function rtpSsrc(packet: Buffer): number {
  return packet.readUInt32BE(8);
}

/**
 * Decrypts an `aead_aes256_gcm_rtpsize` packet: header (AAD) | ciphertext | tag | nonce.
 * Mirrors @discordjs/voice's own receiver: with the extension bit set, the 4-byte extension
 * header belongs to the AAD and the extension body to the start of the plaintext. Throws when
 * authentication fails.
 */
export function decryptRtp(packet: Buffer, secretKey: Buffer): RtpPacket {
  const first = packet[0] ?? 0;
  const csrcCount = first & 0x0f;
  const hasExtension = (first & 0x10) !== 0;
  const headerLength = RTP_HEADER_LENGTH + 4 * csrcCount + (hasExtension ? 4 : 0);
  const nonceStart = packet.length - NONCE_LENGTH;
  const tagStart = nonceStart - AUTH_TAG_LENGTH;
  if (tagStart < headerLength) throw new Error(`RTP packet too short: ${packet.length} bytes`);

  const iv = Buffer.alloc(12);
  packet.copy(iv, 0, nonceStart);
  const decipher = createDecipheriv('aes-256-gcm', secretKey, iv);
  decipher.setAAD(packet.subarray(0, headerLength));
  decipher.setAuthTag(packet.subarray(tagStart, nonceStart));
  let opus = Buffer.concat([
    decipher.update(packet.subarray(headerLength, tagStart)),
    decipher.final(),
  ]);

  if ((first & 0x20) !== 0) {
    const padding = opus[opus.length - 1] ?? 0;
    if (padding < opus.length) opus = opus.subarray(0, opus.length - padding);
  }
  if (hasExtension) {
    const extensionWords = packet.readUInt16BE(headerLength - 2);
    opus = opus.subarray(4 * extensionWords);
  }
  return {
    sequence: packet.readUInt16BE(2),
    timestamp: packet.readUInt32BE(4),
    ssrc: rtpSsrc(packet),
    nonce: packet.readUInt32BE(nonceStart),
    opus,
  };
}
