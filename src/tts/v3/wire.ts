/**
 * v3's wire shapes and the bot's words for them (docs/design/API-V3.md): model names, request
 * bodies, records, statuses and voice pages. Pure.
 */
import { z } from 'zod';
import { parseBill } from '../cost.ts';
import { parseAnswer } from '../errors.ts';
import type { SpeechControls } from '../protocol.ts';
import type { GenerationRecord, Model, SpeechRequest, Voice } from '../types.ts';

/** v3's model names: `advance` became `advanced`. */
export type V3Model = 'base' | 'advanced';

/** The v3 name of one of the bot's models. */
export function v3Model(model: Model): V3Model {
  return model === 'advance' ? 'advanced' : 'base';
}

/**
 * v3's controls (`docs/design/API-V3.md`): speed is a Base control, and v2's emotions have no
 * counterpart (Advanced's `exaggeration` is another control).
 */
export const V3_CONTROLS: SpeechControls = {
  speed: (model) => model === 'base',
  emotion: () => false,
  languages: (model) => (model === 'advance' ? ADVANCED_LANGUAGES : BASE_LANGUAGE_NAMES),
};

/**
 * Base's one-letter `language_code`s (docs/design/API-V3.md) for the languages they name, as the
 * Kokoro model the letters come from defines them: `a` American English (`b` is British),
 * `e` Spanish, `f` French, `h` Hindi, `i` Italian, `j` Japanese, `p` Brazilian Portuguese,
 * `z` Mandarin Chinese.
 */
export const BASE_LANGUAGE_CODES: Readonly<Record<string, string>> = {
  en: 'a',
  es: 'e',
  fr: 'f',
  hi: 'h',
  it: 'i',
  ja: 'j',
  pt: 'p',
  zh: 'z',
};

const BASE_LANGUAGE_NAMES: readonly string[] = Object.keys(BASE_LANGUAGE_CODES);

/** Advanced's 23 `language_code`s (ISO 639-1, docs/design/API-V3.md). */
export const ADVANCED_LANGUAGES: readonly string[] =
  'en ar da de el es fi fr he hi it ja ko ms nl no pl pt ru sv sw tr zh'.split(' ');

/**
 * A British English voice of Base, by its id: Kokoro's ids start with the language letter and
 * the gender (`bf_`, `bm_`), and the voice list gives these the accent `British`.
 */
const BRITISH_VOICE = /^b[fm]_/;

/**
 * The `language_code` v3 takes for `language` with `model` (and the voice that reads it);
 * undefined when it takes none for it. English on Base is `a` (American) but `b` for a British
 * voice: `a` would read a British voice with an American pronunciation.
 */
export function v3LanguageCode(
  model: Model,
  language: string | undefined,
  voiceId?: string,
): string | undefined {
  if (language === undefined) return undefined;
  if (model === 'advance') return ADVANCED_LANGUAGES.includes(language) ? language : undefined;
  if (language === 'en' && voiceId !== undefined && BRITISH_VOICE.test(voiceId)) return 'b';
  return BASE_LANGUAGE_CODES[language];
}

/** The file a generation is asked for: WAV, which every player and the sniffing take. */
export const V3_AUDIO_FORMAT = 'wav';

/**
 * The JSON body of `POST /v3/tts` and of the stream's first frame, with the language as the
 * model's `language_code`. Speed is a Base control in v3; v2's emotion, temperature and top_p have no v3 counterpart (`cfg_weight` and
 * `exaggeration` are other controls), so they are left out and the API's defaults apply.
 */
export function v3Body(request: SpeechRequest): Record<string, unknown> {
  const model = v3Model(request.model);
  const body: Record<string, unknown> = {
    text: request.text,
    voice_id: request.voiceId,
    model,
    audio_format: V3_AUDIO_FORMAT,
  };
  if (model === 'base' && request.speed !== undefined) body.speed = request.speed;
  const language = v3LanguageCode(request.model, request.language, request.voiceId);
  if (language !== undefined) body.language_code = language;
  return body;
}

/** v3 statuses as the poller knows them; anything else stays as text (and is a failure). */
const STATUSES: Readonly<Record<string, GenerationRecord['status']>> = {
  IN_QUEUE: 'Generating',
  GENERATING: 'Generating',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
};

/** The poller's word for a v3 status: queued and generating are both still running. */
export function statusOf(v3Status: string): GenerationRecord['status'] {
  return STATUSES[v3Status] ?? v3Status;
}

const record = z
  .object({
    generation_id: z.string().min(1),
    status: z.string().min(1),
    audio_url: z.string().nullish(),
    model: z.string().nullish(),
    error_message: z.string().nullish(),
    // The bill (`guides/pricing.mdx`); a record without one is still a record.
    // Numbers, or decimals in strings; read by `parseBill`.
    tokens: z.unknown().optional(),
    dollar_cost: z.unknown().optional(),
  })
  .transform((body): GenerationRecord => {
    const cost = parseBill(body.tokens, body.dollar_cost);
    return {
      generationId: body.generation_id,
      status: statusOf(body.status),
      audioUrl: body.audio_url ?? null,
      model: body.model ?? '',
      error: body.error_message ?? null,
      ...(cost === undefined ? {} : { cost }),
    };
  });

const voicePage = z.object({
  voices: z.array(
    z
      .object({
        voice_id: z.string().min(1),
        name: z.string().nullish(),
        gender: z.string().nullish(),
        accent: z.string().nullish(),
        description: z.string().nullish(),
        free: z.boolean().nullish(),
        is_custom: z.boolean().nullish(),
      })
      .transform(
        (voice): Voice => ({
          voiceId: voice.voice_id,
          name: voice.name || voice.voice_id,
          gender: voice.gender ?? '',
          // Clones read as accent `Custom`, as v2 listed them, so `/voices` filters alike.
          accent: voice.is_custom === true ? 'Custom' : (voice.accent ?? ''),
          free: voice.free ?? false,
          description: voice.description ?? '',
        }),
      ),
  ),
});

/** A generation record (`POST /v3/tts` and `GET /v3/tts` answer the same shape). */
export function parseRecord(body: unknown, where: string): GenerationRecord {
  return parseAnswer(record, body, where);
}

/** One page of `GET /v3/voices`. */
export function parseVoicePage(body: unknown): Voice[] {
  return parseAnswer(voicePage, body, 'GET /v3/voices').voices;
}

/** The largest page `GET /v3/voices` gives: fewest requests for a whole list. */
export const VOICE_PAGE_SIZE = 500;
