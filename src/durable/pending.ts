/** Pending speech as the store keeps it, and the pure decisions about resuming it after a restart. */
import { z } from 'zod';
import { EMOTIONS, MODELS, type SpeechRequest } from '../tts/index.ts';

/** An interaction token lets the bot edit its reply for 15 minutes. */
export const INTERACTION_TOKEN_LIFETIME_MS = 15 * 60_000;

/** A generation id is valid for 24 hours; after that the audio cannot be fetched. */
export const GENERATION_LIFETIME_MS = 24 * 3_600_000;

/** An edit this close to the token's expiry may land after it: use a channel message instead. */
export const REPLY_EDIT_MARGIN_MS = 30_000;

const requestSchema = z.object({
  text: z.string().min(1),
  voiceId: z.string().min(1),
  model: z.enum(MODELS),
  speed: z.number().optional(),
  emotion: z.enum(EMOTIONS).optional(),
  temperature: z.number().optional(),
  topP: z.number().optional(),
  language: z.string().min(2).max(3).optional(),
});

/** One request whose speech has not been delivered yet, as journalled. */
export const pendingSpeechSchema = z.object({
  /** Unique per request (the speaking service's ticket id). */
  id: z.string().min(1),
  guildId: z.string().min(1),
  /** The text channel of the command: where results go once the reply cannot be edited. */
  channelId: z.string().optional(),
  requesterId: z.string().min(1),
  requesterName: z.string(),
  output: z.enum(['voice', 'file']),
  /** For voice: the channel the bot was speaking in. */
  voiceChannelId: z.string().optional(),
  request: requestSchema,
  /**
   * The reply that shows the result, editable until `expiresAt` (epoch ms). In clear only in
   * memory: the journal seals the token at rest (`sealed.ts`).
   */
  reply: z
    .object({ applicationId: z.string(), token: z.string(), expiresAt: z.number() })
    .optional(),
  /** Set once the API accepted the request; absent while it waits for its turn. */
  generationId: z.string().optional(),
  submittedAt: z.number().optional(),
  recordedAt: z.number(),
});
export type PendingSpeech = z.infer<typeof pendingSpeechSchema> & { request: SpeechRequest };

/** What to do with a pending request found at start-up. */
export type ResumePlan =
  /** Submitted: poll its generation (never submit it again). */
  | { readonly kind: 'poll'; readonly generationId: string; readonly submittedAt: number }
  /** Never submitted (it was waiting for its turn): submit it now. */
  | { readonly kind: 'submit' }
  /** Its generation id has expired: tell the requester it was lost. */
  | { readonly kind: 'expired' };

/** How a pending request resumes, given the time now. */
export function resumePlan(entry: PendingSpeech, now: number): ResumePlan {
  if (entry.generationId === undefined) return { kind: 'submit' };
  const submittedAt = entry.submittedAt ?? entry.recordedAt;
  if (now - submittedAt >= GENERATION_LIFETIME_MS) return { kind: 'expired' };
  return { kind: 'poll', generationId: entry.generationId, submittedAt };
}

/** Where a result reaches the requester: their reply while its token works, else the channel. */
export type DeliveryRoute =
  | {
      readonly kind: 'reply';
      readonly applicationId: string;
      readonly token: string;
    }
  | { readonly kind: 'channel'; readonly channelId: string }
  | { readonly kind: 'nowhere' };

/** Whether a reply token expiring at `expiresAt` may still be used to edit at `now`. */
export function tokenUsable(expiresAt: number, now: number): boolean {
  return now < expiresAt - REPLY_EDIT_MARGIN_MS;
}

/** The route for a result delivered at `now`. */
export function deliveryRoute(entry: PendingSpeech, now: number): DeliveryRoute {
  const { reply, channelId } = entry;
  if (reply !== undefined && tokenUsable(reply.expiresAt, now)) {
    return { kind: 'reply', applicationId: reply.applicationId, token: reply.token };
  }
  if (channelId !== undefined) return { kind: 'channel', channelId };
  return { kind: 'nowhere' };
}
