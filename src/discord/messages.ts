import { randomBytes } from 'node:crypto';
import { limitText, relativeTime, type Translator } from '../i18n/index.ts';
import { errorText, UserError } from '../refusal/index.ts';
import { codeSpan, quoteSafely } from '../speech/index.ts';
import { StoreUnavailableError, UnreadableKeyError } from '../store/index.ts';
import { TtsError } from '../tts/index.ts';

/** What to tell the user about a failure, and whether it was expected. */
export interface FailureMessage {
  readonly text: string;
  /** Unexpected failures carry an incident id, logged with the error (and quoted in `text`). */
  readonly incidentId?: string;
}

/**
 * The one place where failures become user-facing text, in the member's language: plain
 * words and the next step. Each UserError id with its context is a message key of the
 * translation files. Never includes an API key or token.
 */
export function describeFailure(error: unknown, translator: Translator): FailureMessage {
  if (error instanceof UserError) return { text: errorText(translator.t, error.id, error.context) };
  if (error instanceof TtsError) return { text: ttsMessage(error, translator) };
  if (error instanceof UnreadableKeyError) return { text: translator.t('errors.key_unreadable') };
  if (error instanceof StoreUnavailableError)
    return { text: translator.t('errors.store_unavailable') };
  const incidentId = randomBytes(4).toString('hex');
  return { text: translator.t('errors.unexpected', { incident: incidentId }), incidentId };
}

function ttsMessage(error: TtsError, translator: Translator): string {
  const { t } = translator;
  const generation =
    error.generationId === undefined
      ? ''
      : t('tts.generation', { id: codeSpan(error.generationId, 80) });
  switch (error.kind) {
    case 'invalid_key':
    case 'plan_required':
    case 'invalid_voice':
    case 'insufficient_balance':
    case 'server_error':
      return t(`tts.${error.kind}`);
    case 'access_denied':
    case 'not_found':
    case 'generation_timeout':
      return t(`tts.${error.kind}`, { generation });
    case 'bad_request':
      return t('tts.bad_request', { detail: quoteSafely(error.message, 300) });
    case 'rate_limited':
      return t('tts.rate_limited', {
        when: relativeTime(translator, error.retryAt ?? Date.now() + 60_000),
      });
    case 'quota_exhausted': {
      const when = relativeTime(translator, error.retryAt);
      return error.limit === undefined
        ? t('tts.quota_exhausted', { when })
        : t('tts.quota_exhausted_limit', { limit: limitText(translator, error.limit), when });
    }
    case 'timeout':
    case 'network':
      return t('tts.unreachable');
    case 'malformed_response':
    case 'media_refused':
      return t('tts.unexpected_response');
    case 'generation_failed':
      return t('tts.generation_failed', {
        generation,
        detail: quoteSafely(error.message.replace(/^generation \S+ failed: /, ''), 300),
      });
  }
}
