/** Checks of v3 requests and query parameters, with the vendor's error shapes. Pure. */
import type { EmulatorUser } from '../options.ts';
import { findV3Voice, isV3Model, type V3Model, type V3Voice } from './catalog.ts';

/** A checked generation request, for `POST /v3/tts` and the stream alike. */
export interface V3Request {
  text: string;
  /** Characters (code points), as billed. */
  chars: number;
  voice: V3Voice;
  model: V3Model;
  speed: number;
  cfgWeight: number;
  exaggeration: number;
  format: 'wav' | 'mp3';
  languageCode?: string;
}

/** A refused request: HTTP status, `detail`, and field errors for validation failures. */
export interface V3Refusal {
  status: number;
  detail: string;
  errors?: { field: string; message: string }[];
}

/** The largest text the API schema allows (plans may allow less). */
export const V3_MAX_TEXT = 50_000;

/** Language codes per model (`api-reference/tts.mdx`). */
export const LANGUAGE_CODES: Readonly<Record<V3Model, readonly string[]>> = {
  base: ['a', 'b', 'j', 'z', 'e', 'f', 'h', 'i', 'p'],
  advanced: 'en ar da de el es fi fr he hi it ja ko ms nl no pl pt ru sv sw tr zh'.split(' '),
};

/** The `language_code` a request body names, whatever else it holds (for the request log). */
export function languageCodeIn(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('language_code' in body)) return undefined;
  const code = body.language_code;
  return typeof code === 'string' ? code : undefined;
}

/** Text of the 403 for a voice the plan may not use (`guides/error-codes.mdx`). */
export const PLAN_REFUSAL = 'The active plan cannot access the requested model or voice';

type Errors = { field: string; message: string }[];

function checkRange(
  errors: Errors,
  input: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
): void {
  const value = input[field];
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    errors.push({ field, message: `${field} must be a number from ${min} to ${max}` });
  }
}

/** A validation refusal, or undefined when there is nothing to refuse. */
export function validationError(status: number, errors: Errors): V3Refusal | undefined {
  return errors.length === 0 ? undefined : { status, detail: 'Validation error', errors };
}

/** Checks a parsed JSON body for `user`; limits and billing are left to the caller. */
export function validateV3(body: unknown, user: EmulatorUser): V3Request | V3Refusal {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      status: 400,
      detail: 'Validation error',
      errors: [{ field: 'body', message: 'Body must be a JSON object' }],
    };
  }
  const input = body as Record<string, unknown>;
  const errors: Errors = [];
  const text = input.text;
  if (typeof text !== 'string' || text.trim().length === 0) {
    errors.push({ field: 'text', message: 'Text is required' });
  } else if ([...text].length > V3_MAX_TEXT) {
    errors.push({ field: 'text', message: `Text must be at most ${V3_MAX_TEXT} characters` });
  }
  if (typeof input.voice_id !== 'string' || input.voice_id.length === 0) {
    errors.push({ field: 'voice_id', message: 'voice_id is required' });
  }
  if (input.model !== undefined && !isV3Model(input.model)) {
    errors.push({ field: 'model', message: "Model must be 'base' or 'advanced'" });
  }
  if (
    input.audio_format !== undefined &&
    input.audio_format !== 'wav' &&
    input.audio_format !== 'mp3'
  ) {
    errors.push({ field: 'audio_format', message: "audio_format must be 'wav' or 'mp3'" });
  }
  checkRange(errors, input, 'speed', 0.5, 2.0);
  checkRange(errors, input, 'cfg_weight', 1.0, 5.0);
  checkRange(errors, input, 'exaggeration', 0.0, 1.0);
  const model: V3Model = isV3Model(input.model) ? input.model : 'base';
  const language = input.language_code;
  if (
    language !== undefined &&
    (typeof language !== 'string' || !LANGUAGE_CODES[model].includes(language))
  ) {
    errors.push({
      field: 'language_code',
      message: `language_code is not one of the ${model} model's codes`,
    });
  }
  const refused = validationError(400, errors);
  if (refused || typeof text !== 'string' || typeof input.voice_id !== 'string') {
    return refused ?? { status: 400, detail: 'Validation error' };
  }

  const voice = findV3Voice(user, input.voice_id);
  if (!voice) return { status: 400, detail: 'Voice not found' };
  if (voice.model !== model) {
    return {
      status: 400,
      detail: `Voice '${voice.voice_id}' is not compatible with model '${model}'`,
    };
  }
  if (user.plan === 'free' && !voice.free && !voice.is_custom)
    return { status: 403, detail: PLAN_REFUSAL };
  return {
    text,
    chars: [...text].length,
    voice,
    model,
    speed: typeof input.speed === 'number' ? input.speed : 1.0,
    cfgWeight: typeof input.cfg_weight === 'number' ? input.cfg_weight : 2.5,
    exaggeration: typeof input.exaggeration === 'number' ? input.exaggeration : 0.5,
    format: input.audio_format === 'mp3' ? 'mp3' : 'wav',
    ...(typeof language === 'string' ? { languageCode: language } : {}),
  };
}

/** Reads an integer query parameter within bounds, or records why it cannot. */
export function intParam(
  url: URL,
  name: string,
  fallback: number,
  min: number,
  max: number,
  errors: Errors,
): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    errors.push({ field: name, message: `${name} must be an integer from ${min} to ${max}` });
    return fallback;
  }
  return value;
}

/** Reads an optional query parameter that must be one of `allowed`. */
export function choiceParam<T extends string>(
  url: URL,
  name: string,
  allowed: readonly T[],
  errors: Errors,
): T | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return undefined;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  errors.push({ field: name, message: `${name} must be one of ${allowed.join(', ')}` });
  return undefined;
}
