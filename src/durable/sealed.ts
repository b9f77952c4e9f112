/**
 * Pending speech as the store holds it: the reply's interaction token (anyone holding it can
 * edit the bot's reply for 15 minutes) never in clear, sealed with the bot's secret key and
 * bound to its entry. Pure: the conversions both ways and when a stored entry is rewritten.
 */
import { z } from 'zod';
import { onlyKey, openBound, openWithAny, type SecretKeys, sealBound } from '../store/index.ts';
import { type PendingSpeech, pendingSpeechSchema, tokenUsable } from './pending.ts';

/**
 * The reply as journalled: `sealedToken` since tokens are sealed; `token` (in clear) only in
 * entries an earlier version wrote, read once and then rewritten.
 */
const storedReplySchema = z.object({
  applicationId: z.string(),
  expiresAt: z.number(),
  sealedToken: z.string().optional(),
  token: z.string().optional(),
});

/** A journal entry as stored (see {@link sealEntry}). */
export const storedPendingSchema = pendingSpeechSchema.extend({
  reply: storedReplySchema.optional(),
});
export type StoredPending = z.infer<typeof storedPendingSchema>;

/**
 * What a sealed token is bound to (GCM additional data): its guild, entry and application,
 * so a sealed token copied into another entry does not open there. JSON keeps the parts
 * apart, and its leading `[` keeps it apart from an API key's `guild:<id>`.
 */
export function replyContext(
  entry: Pick<PendingSpeech, 'guildId' | 'id'>,
  applicationId: string,
): string {
  return JSON.stringify(['pending-reply', entry.guildId, entry.id, applicationId]);
}

/**
 * The entry as it is written at `now`: its token sealed under `secretKey`, or the reply left
 * out once the token can no longer be used (nothing is kept that could not serve).
 */
export function sealEntry(entry: PendingSpeech, secretKey: Buffer, now: number): StoredPending {
  const { reply, ...rest } = entry;
  if (reply === undefined || !tokenUsable(reply.expiresAt, now)) return rest;
  const { applicationId, token, expiresAt } = reply;
  const sealedToken = sealBound(token, secretKey, replyContext(entry, applicationId));
  return { ...rest, reply: { applicationId, expiresAt, sealedToken } };
}

/** A stored entry opened: the entry to resume, and whether the store should be rewritten. */
export interface OpenedEntry {
  readonly entry: PendingSpeech;
  /**
   * A token in clear (an earlier version's entry), one kept past its use, or one sealed with a
   * previous secret (`SECRET_KEY_PREVIOUS`): write it again.
   */
  readonly rewrite: boolean;
  /** A sealed token was there but did not open (another secret key, altered or moved). */
  readonly unreadable: boolean;
}

/**
 * The entry to resume from what the store holds, its token opened with the current secret or a
 * previous one (`keys`). A token that cannot be opened (no secret given opens it, altered, or
 * copied from another entry) or that expired leaves the entry without its reply, so the result
 * goes to the channel instead; it never fails.
 */
export function openEntry(
  stored: StoredPending,
  keys: SecretKeys | Buffer,
  now: number,
): OpenedEntry {
  const { reply, ...rest } = stored;
  const entry = rest as PendingSpeech;
  if (reply === undefined) return { entry, rewrite: false, unreadable: false };
  const { applicationId, expiresAt, sealedToken, token: clearToken } = reply;
  const usable = tokenUsable(expiresAt, now);
  const rewrite = clearToken !== undefined || !usable;
  if (!usable) return { entry, rewrite, unreadable: false };
  const opened =
    sealedToken === undefined
      ? { token: clearToken, stale: false }
      : tryOpen(
          sealedToken,
          Buffer.isBuffer(keys) ? onlyKey(keys) : keys,
          replyContext(stored, applicationId),
        );
  const { token, stale } = opened;
  if (token === undefined) return { entry, rewrite, unreadable: sealedToken !== undefined };
  return {
    entry: { ...entry, reply: { applicationId, token, expiresAt } },
    rewrite: rewrite || stale,
    unreadable: false,
  };
}

function tryOpen(
  sealed: string,
  keys: SecretKeys,
  context: string,
): { token: string | undefined; stale: boolean } {
  try {
    const { plaintext, stale } = openWithAny(keys, (key) => openBound(sealed, key, context));
    return { token: plaintext, stale };
  } catch {
    // No secret given opens it (or it was moved): the channel carries the result instead.
    return { token: undefined, stale: false };
  }
}
