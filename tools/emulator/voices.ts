/** Preset voices per model, shaped like the vendor's GET /voices records. */

export type Model = 'base' | 'advance';

export const MODELS: readonly Model[] = ['base', 'advance'];

/** One element of the GET /voices `voices` list. */
export interface VoiceRecord {
  voice_id: string;
  name: string;
  gender: string;
  accent: string;
  free: boolean;
  description: string;
}

type Row = readonly [id: string, name: string, gender: string, accent: string, free: boolean];

const SHARED: readonly Row[] = [
  ['am_2riuownnf', 'Ethan', 'Male', 'American', true],
  ['af_3kbq21leo', 'Lily', 'Female', 'American', true],
  ['bf_jp71qvnzd', 'Alice', 'Female', 'British', true],
  ['bm_5tyh0q2xw', 'George', 'Male', 'British', true],
  ['am_9wq4n1kzd', 'Michael', 'Male', 'American', false],
  ['af_7hc2m0vlx', 'Sarah', 'Female', 'American', false],
];

const BASE_ONLY: readonly Row[] = [
  ['af_k2p8s1oqe', 'Emma', 'Female', 'American', true],
  ['am_r4x0b7ncu', 'Adam', 'Male', 'American', true],
  ['bf_c8vd3ye5m', 'Isabella', 'Female', 'British', false],
  ['bm_q1z6w9hfa', 'Lewis', 'Male', 'British', false],
  ['af_m5t7r2gjp', 'Nicole', 'Female', 'American', false],
  ['am_u0e3k6sdy', 'Liam', 'Male', 'American', false],
];

const ADVANCE_ONLY: readonly Row[] = [
  ['af_adv_w3n8q1', 'Aria', 'Female', 'American', true],
  ['am_adv_p6c2z9', 'Noah', 'Male', 'American', false],
  ['bf_adv_j4r7t0', 'Olivia', 'Female', 'British', false],
  ['bm_adv_x9k1m5', 'Daniel', 'Male', 'British', false],
  ['af_adv_h2s6v3', 'Grace', 'Female', 'American', false],
  ['am_adv_d8l0y4', 'Mason', 'Male', 'American', true],
];

function toRecord([voice_id, name, gender, accent, free]: Row): VoiceRecord {
  return { voice_id, name, gender, accent, free, description: `VoiceID: ${voice_id}` };
}

/** Public preset voices for each model (about a dozen each). */
export const PRESET_VOICES: Readonly<Record<Model, readonly VoiceRecord[]>> = {
  base: [...SHARED, ...BASE_ONLY].map(toRecord),
  advance: [...SHARED, ...ADVANCE_ONLY].map(toRecord),
};

/** Builds a custom (cloned) voice record: accent `Custom`, never free. */
export function customVoice(voiceId: string, name: string, gender = 'Male'): VoiceRecord {
  return {
    voice_id: voiceId,
    name,
    gender,
    accent: 'Custom',
    free: false,
    description: 'User cloned voice',
  };
}

/** Whether a value is one of the two model names. */
export function isModel(value: unknown): value is Model {
  return value === 'base' || value === 'advance';
}
