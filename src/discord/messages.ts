import { randomBytes } from 'node:crypto';
import { codeSpan, quoteSafely } from '../speech/index.ts';
import { StoreUnavailableError, UnreadableKeyError } from '../store/index.ts';
import { formatWindow, TtsError } from '../tts/index.ts';
import { UserError } from './user-error.ts';

/** What to tell the user about a failure, and whether it was expected. */
export interface FailureMessage {
  readonly text: string;
  /** Unexpected failures carry an incident id, logged with the error. */
  readonly incidentId?: string;
}

const when = (epochMs: number | undefined): string =>
  epochMs === undefined ? 'soon' : `<t:${Math.ceil(epochMs / 1000)}:R>`;

/**
 * Refusals that carry context, keyed by their UserError id: the text says what happened and
 * when it frees up (a Discord relative timestamp, shown in each reader's own time).
 */
export const userMessages = {
  member_queue_full: (context: { readonly max: number; readonly freesAt: number }) =>
    `You already have ${context.max} ${context.max === 1 ? 'item' : 'items'} waiting in the voice queue, the most one member may have. A place frees up when your next one starts, about ${when(context.freesAt)}.`,
  member_daily_limit: (context: { readonly share: number; readonly freesAt: number }) =>
    `You have used your share of this server’s generations for today (${context.share} per member per day). It frees up ${when(context.freesAt)}; an admin can change the share with \`/config limits\`.`,
} as const;

/** A refusal from {@link userMessages}, as the UserError shown to the member. */
export function userRefusal<Id extends keyof typeof userMessages>(
  id: Id,
  context: Parameters<(typeof userMessages)[Id]>[0],
): UserError {
  const text = (userMessages[id] as (context: unknown) => string)(context);
  return new UserError(id, text);
}

/**
 * The one place where failures become user-facing text: plain words and
 * the next step. Never includes an API key or token.
 */
export function describeFailure(error: unknown): FailureMessage {
  if (error instanceof UserError) return { text: error.message };
  if (error instanceof TtsError) return { text: ttsMessage(error) };
  if (error instanceof UnreadableKeyError) {
    return {
      text: 'This server’s stored API key can no longer be read (the bot’s SECRET_KEY changed). An admin needs to set it again with `/config api-key`.',
    };
  }
  if (error instanceof StoreUnavailableError) {
    return {
      text: 'I cannot reach my storage right now, so nothing was done. Please try again in a minute.',
    };
  }
  return {
    text: 'Sorry, something went wrong on our side.',
    incidentId: randomBytes(4).toString('hex'),
  };
}

function ttsMessage(error: TtsError): string {
  const id =
    error.generationId === undefined ? '' : ` (generation ${codeSpan(error.generationId, 80)})`;
  switch (error.kind) {
    case 'invalid_key':
      return 'The TTS service rejected this server’s API key. An admin can set a new one with `/config api-key`.';
    case 'access_denied':
      return `The TTS service denied access${id}. An admin can check the server’s key with \`/config show\`.`;
    case 'plan_required':
      return 'That voice is only available on paid plans. Pick a free voice (see `/voices`) or ask an admin to upgrade the account.';
    case 'invalid_voice':
      return 'The TTS service does not know that voice. Pick one from `/voices` or the autocomplete list.';
    case 'not_found':
      return `The TTS service could not find that${id}. Please try again.`;
    case 'bad_request':
      return `The TTS service refused the request: ${quoteSafely(error.message, 300)}`;
    case 'insufficient_balance':
      return 'The TTS account has run out of credits. An admin needs to top it up on the provider’s dashboard.';
    case 'rate_limited':
      return `The TTS service is busy for this server right now; try again ${when(error.retryAt ?? Date.now() + 60_000)}.`;
    case 'quota_exhausted':
      return `This server has used its TTS quota${error.limit === undefined ? '' : ` (${error.limit.count} per ${formatWindow(error.limit.windowMs)})`}. It frees up ${when(error.retryAt)}.`;
    case 'server_error':
      return 'The TTS service had an internal error. Please try again in a minute.';
    case 'timeout':
    case 'network':
      return 'The TTS service could not be reached. Please try again in a minute.';
    case 'malformed_response':
    case 'media_refused':
      return 'The TTS service sent something unexpected, so nothing was played. Please try again; if it keeps happening, tell the bot’s operators.';
    case 'generation_failed':
      return `The TTS service could not generate this speech${id}: ${quoteSafely(error.message.replace(/^generation \S+ failed: /, ''), 300)}`;
    case 'generation_timeout':
      return `The speech is taking too long to generate${id}; giving up. Please try again later.`;
  }
}
