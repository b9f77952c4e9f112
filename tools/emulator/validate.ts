/** Validation of a POST /tts body, with the vendor's error shapes. Pure. */
import type { EmulatorUser } from './options.ts';
import { isModel, type Model, PRESET_VOICES, type VoiceRecord } from './voices.ts';

/** A checked generation request. */
export interface TtsRequest {
  text: string;
  voice: VoiceRecord;
  model: Model;
  speed: number;
  emotion?: string;
  /** Length in characters (code points), as billed. */
  chars: number;
}

/** An error answer: HTTP status and the JSON body. */
export interface ErrorAnswer {
  status: number;
  body: { detail: unknown };
}

/** Emotions the advance model accepts. */
export const EMOTIONS = ['neutral', 'happy', 'sad', 'angry', 'surprised'] as const;
/** Text length bounds, in characters (code points). */
export const MIN_TEXT = 30;
export const MAX_TEXT = 5000;

interface FieldError {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

/** A 400 whose `detail` is a list of field errors, like a FastAPI validation error. */
export function fieldErrors(errors: FieldError[]): ErrorAnswer {
  return { status: 400, body: { detail: errors } };
}

/** One field error at `loc`. */
export function fieldError(
  loc: (string | number)[],
  type: string,
  msg: string,
  input: unknown,
): FieldError {
  return { type, loc, msg, input };
}

const detail = (status: number, text: unknown): ErrorAnswer => ({ status, body: { detail: text } });

function checkNumber(
  errors: FieldError[],
  body: Record<string, unknown>,
  key: string,
  min?: number,
  max?: number,
): void {
  const value = body[key];
  if (value === undefined) return;
  const loc = ['body', key];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    errors.push(fieldError(loc, 'float_parsing', 'Input should be a valid number', value));
  } else if (min !== undefined && value < min) {
    errors.push(
      fieldError(
        loc,
        'greater_than_equal',
        `Input should be greater than or equal to ${min}`,
        value,
      ),
    );
  } else if (max !== undefined && value > max) {
    errors.push(
      fieldError(loc, 'less_than_equal', `Input should be less than or equal to ${max}`, value),
    );
  }
}

/** Finds a voice the user may name for a model: presets, plus own clones on `advance`. */
export function findVoice(
  user: EmulatorUser,
  model: Model,
  voiceId: string,
): VoiceRecord | undefined {
  const wanted = voiceId.toLowerCase();
  const own = model === 'advance' ? (user.customVoices ?? []) : [];
  return [...PRESET_VOICES[model], ...own].find((v) => v.voice_id.toLowerCase() === wanted);
}

/** Checks a parsed JSON body for `user`; billing is left to the caller. */
export function validateTts(body: unknown, user: EmulatorUser): TtsRequest | ErrorAnswer {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fieldErrors([
      fieldError(['body'], 'model_attributes_type', 'Input should be a valid dictionary', body),
    ]);
  }
  const input = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const key of ['text', 'voice'] as const) {
    if (input[key] === undefined)
      errors.push(fieldError(['body', key], 'missing', 'Field required', null));
    else if (typeof input[key] !== 'string') {
      errors.push(
        fieldError(['body', key], 'string_type', 'Input should be a valid string', input[key]),
      );
    }
  }
  if (input.model !== undefined && !isModel(input.model)) {
    errors.push(
      fieldError(
        ['body', 'model'],
        'literal_error',
        "Input should be 'base' or 'advance'",
        input.model,
      ),
    );
  }
  checkNumber(errors, input, 'speed', 0.5, 2.0);
  checkNumber(errors, input, 'temperature');
  checkNumber(errors, input, 'top_p');
  if (input.do_sample !== undefined && typeof input.do_sample !== 'boolean') {
    errors.push(
      fieldError(
        ['body', 'do_sample'],
        'bool_type',
        'Input should be a valid boolean',
        input.do_sample,
      ),
    );
  }
  if (input.emotion !== undefined && typeof input.emotion !== 'string') {
    errors.push(
      fieldError(
        ['body', 'emotion'],
        'string_type',
        'Input should be a valid string',
        input.emotion,
      ),
    );
  }
  if (errors.length > 0) return fieldErrors(errors);

  const text = input.text as string;
  const chars = [...text].length;
  if (chars < MIN_TEXT)
    return detail(400, { error: `Text must be at least ${MIN_TEXT} characters long.` });
  if (chars > MAX_TEXT)
    return detail(400, { error: `Text must be at most ${MAX_TEXT} characters long.` });

  const model: Model = isModel(input.model) ? input.model : 'base';
  const emotion = input.emotion as string | undefined;
  if (model === 'advance') {
    if (emotion !== undefined && !(EMOTIONS as readonly string[]).includes(emotion)) {
      return detail(
        400,
        `Invalid Emotion | Expected: [${EMOTIONS.map((e) => `'${e}'`).join(', ')}]`,
      );
    }
    const temperature = input.temperature as number | undefined;
    if (temperature !== undefined && (temperature < 0.7 || temperature > 1.0)) {
      return detail(400, 'Invalid Temperature | Expected Range: 0.7 - 1.0');
    }
    const topP = input.top_p as number | undefined;
    if (topP !== undefined && (topP < 0.7 || topP > 0.98)) {
      return detail(400, 'Invalid Top P | Expected Range: 0.7 - 0.98');
    }
  }

  const voice = findVoice(user, model, input.voice as string);
  if (!voice) return detail(400, 'Invalid voice ID');
  const ownClone = voice.accent === 'Custom';
  if (user.plan === 'free' && !voice.free && !ownClone) {
    return detail(403, 'This voice is only available for paid plans. Upgrade your plan to use it.');
  }
  const speed = (input.speed as number | undefined) ?? 1.0;
  return {
    text,
    voice,
    model,
    speed,
    chars,
    ...(model === 'advance' && emotion !== undefined ? { emotion } : {}),
  };
}

/** Credits a request costs: 1 per character on base, 4 on advance. */
export function costOf(request: Pick<TtsRequest, 'model' | 'chars'>): number {
  return request.chars * (request.model === 'advance' ? 4 : 1);
}
