/** v3 voices: each belongs to one model; one paged list of system and the account's own voices. */
import type { EmulatorUser } from '../options.ts';
import { PRESET_VOICES, type VoiceRecord } from '../voices.ts';

/** v3 model names (v2 says `advance`). */
export type V3Model = 'base' | 'advanced';

/** One element of the `GET /v3/voices` list. */
export interface V3Voice {
  voice_id: string;
  name: string;
  model: V3Model;
  gender: string;
  accent?: string;
  description?: string;
  free: boolean;
  is_custom: boolean;
}

/** Whether a value names a v3 model. */
export function isV3Model(value: unknown): value is V3Model {
  return value === 'base' || value === 'advanced';
}

/** The v2 model whose timing and speech a v3 model borrows. */
export function v2ModelOf(model: V3Model): 'base' | 'advance' {
  return model === 'advanced' ? 'advance' : 'base';
}

function system(voice: VoiceRecord, model: V3Model): V3Voice {
  const { voice_id, name, gender, accent, description, free } = voice;
  return { voice_id, name, model, gender, accent, description, free, is_custom: false };
}

const BASE_IDS = new Set(PRESET_VOICES.base.map((v) => v.voice_id));

/** System voices: the v2 base presets on `base`, the presets only v2 `advance` had on `advanced`. */
export const V3_SYSTEM_VOICES: readonly V3Voice[] = [
  ...PRESET_VOICES.base.map((v) => system(v, 'base')),
  ...PRESET_VOICES.advance
    .filter((v) => !BASE_IDS.has(v.voice_id))
    .map((v) => system(v, 'advanced')),
];

/** Every voice a user may list: system voices, then their own clones (Advanced, no accent). */
export function voicesOf(user: EmulatorUser): V3Voice[] {
  const own = (user.customVoices ?? []).map(
    (v): V3Voice => ({
      voice_id: v.voice_id,
      name: v.name,
      model: 'advanced',
      gender: v.gender,
      free: false,
      is_custom: true,
    }),
  );
  return [...V3_SYSTEM_VOICES, ...own];
}

/** A voice by id (case-insensitive, as v2), whatever its model. */
export function findV3Voice(user: EmulatorUser, voiceId: string): V3Voice | undefined {
  const wanted = voiceId.toLowerCase();
  return voicesOf(user).find((v) => v.voice_id.toLowerCase() === wanted);
}

/** A page of a list as the vendor pages: no total, `length` is this page's size. */
export interface Page<T> {
  limit: number;
  offset: number;
  length: number;
  items: T[];
}

/** One page of a list, in the vendor's `{limit, offset, length}` shape. */
export function page<T>(items: readonly T[], limit: number, offset: number): Page<T> {
  const slice = items.slice(offset, offset + limit);
  return { limit, offset, length: slice.length, items: slice };
}
