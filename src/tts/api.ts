import { z } from 'zod';
import { parseAnswer, serviceText } from './errors.ts';
import { callApi, type HttpContext } from './http.ts';
import type { GenerationRecord, Model, SpeechRequest, Voice } from './types.ts';

const submitted = z.union([
  z.object({ generation_id: z.string().min(1) }).transform((body) => body.generation_id),
  z.object({ id: z.string().min(1) }).transform((body) => body.id),
]);

const record = z
  .object({
    generation_id: z.string().min(1),
    status: z.string().min(1),
    audio_url: z.string().nullish(),
    url: z.string().nullish(),
    model: z.string().optional(),
    error: z.unknown().optional(),
    detail: z.unknown().optional(),
  })
  .transform(
    (body): GenerationRecord => ({
      generationId: body.generation_id,
      status: body.status,
      audioUrl: body.url ?? body.audio_url ?? null,
      model: body.model ?? '',
      error: failureText(body.error ?? body.detail),
    }),
  );

const voiceList = z.object({
  voices: z.array(
    z
      .object({
        voice_id: z.string().min(1),
        name: z.string().default(''),
        gender: z.string().default(''),
        accent: z.string().default(''),
        free: z.boolean().default(false),
        description: z.string().default(''),
      })
      .transform(
        (voice): Voice => ({
          voiceId: voice.voice_id,
          name: voice.name || voice.voice_id,
          gender: voice.gender,
          accent: voice.accent,
          free: voice.free,
          description: voice.description,
        }),
      ),
  ),
});

function failureText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The TTS API's endpoints for one key, one call each, with typed results. */
export class TtsApi {
  readonly #http: HttpContext;

  constructor(http: HttpContext) {
    this.#http = http;
  }

  /** POST /tts: submits a generation and returns its id. */
  async submit(request: SpeechRequest, signal?: AbortSignal): Promise<string> {
    const body: Record<string, unknown> = {
      text: request.text,
      voice: request.voiceId,
      model: request.model,
    };
    if (request.speed !== undefined) body.speed = request.speed;
    if (request.model === 'advance') {
      if (request.emotion !== undefined) body.emotion = request.emotion;
      if (request.temperature !== undefined) body.temperature = request.temperature;
      if (request.topP !== undefined) body.top_p = request.topP;
    }
    const answer = await callApi(this.#http, {
      op: 'generate',
      method: 'POST',
      path: '/tts',
      body,
      signal,
    });
    return parseAnswer(submitted, answer, 'POST /tts');
  }

  /** GET /status: the current record of a generation. */
  async status(generationId: string, signal?: AbortSignal): Promise<GenerationRecord> {
    const answer = await callApi(this.#http, {
      op: 'status',
      method: 'GET',
      path: '/status',
      query: { generation_id: generationId },
      signal,
    });
    const found = parseAnswer(record, answer, 'GET /status');
    const apiKey = this.#http.apiKey;
    return {
      ...found,
      status: serviceText(found.status, apiKey),
      error: found.error === null ? null : serviceText(found.error, apiKey),
    };
  }

  /** GET /voices: every voice the account may use with `model`. */
  async voices(model: Model, signal?: AbortSignal): Promise<Voice[]> {
    const answer = await callApi(this.#http, {
      op: 'voices',
      method: 'GET',
      path: '/voices',
      query: { model },
      signal,
    });
    return parseAnswer(voiceList, answer, 'GET /voices').voices;
  }

  /** Health check (GET /v2/): true when the service answers. */
  async health(signal?: AbortSignal): Promise<boolean> {
    // `{base_url}/` is `/v2/`, one of the spec's health paths.
    await callApi(this.#http, { op: 'health', method: 'GET', path: '/', signal });
    return true;
  }
}
