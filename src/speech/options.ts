import { UserError, type UserErrorContext, type UserErrorId } from '../refusal/index.ts';
import type { GuildDefaults, UserSettings } from '../store/index.ts';
import { EMOTIONS, type Emotion, MODELS, type Model, type SpeechControls } from '../tts/index.ts';

/** `/say` options as typed by the member (null when not given). */
export interface SayOptions {
  readonly text: string;
  readonly voice: string | null;
  readonly model: string | null;
  readonly speed: number | null;
  readonly emotion: string | null;
}

/** A `/say` request after validation; the voice may still need choosing from the list. */
export interface ValidatedSay {
  readonly text: string;
  readonly voiceId: string | undefined;
  readonly model: Model;
  readonly speed: number | undefined;
  readonly emotion: Emotion | undefined;
  /** The language it is read in (ISO 639-1), once decided; undefined: the model's default. */
  readonly language?: string | undefined;
}

/** Text length accepted by the API. */
export interface TextBounds {
  readonly min: number;
  readonly max: number;
}

/**
 * Validates `/say` before any API call and applies the defaults: the
 * member's voice, then the server's. Throws a UserError saying what to fix.
 */
export function validateSay(
  options: SayOptions,
  spoken: string,
  defaults: { user: UserSettings; guild: GuildDefaults },
  bounds: TextBounds,
  controls?: SpeechControls,
): ValidatedSay {
  const fail = <Id extends UserErrorId>(id: Id, context: UserErrorContext<Id>): never => {
    throw new UserError(id, context);
  };
  if (spoken.length === 0) fail('text_empty', {});
  if (spoken.length < bounds.min)
    fail('text_too_short', { min: bounds.min, length: spoken.length });
  if (spoken.length > bounds.max) fail('text_too_long', { max: bounds.max, length: spoken.length });
  const model = options.model ?? defaults.guild.model ?? 'base';
  if (!(MODELS as readonly string[]).includes(model))
    fail('unknown_model', { model, models: MODELS.join(' / ') });
  const speed = options.speed ?? defaults.guild.speed;
  if (speed !== undefined && !(speed >= 0.5 && speed <= 2)) fail('bad_speed', { speed });
  let emotion: Emotion | undefined;
  if (options.emotion !== null) {
    // An API with no emotions at all says so first, rather than send the member to `advance`.
    if (controls !== undefined && !MODELS.some((m) => controls.emotion(m)))
      fail('emotion_not_offered', {});
    if (model !== 'advance') fail('emotion_needs_advance', {});
    if (!(EMOTIONS as readonly string[]).includes(options.emotion))
      fail('unknown_emotion', { emotion: options.emotion, emotions: EMOTIONS.join(', ') });
    emotion = options.emotion as Emotion;
  }
  const voiceId = options.voice?.trim() || defaults.user.voiceId || defaults.guild.voiceId;
  return { text: spoken, voiceId, model: model as Model, speed, emotion };
}

/**
 * The request as the API can apply it: what the member asked for and the API cannot apply is
 * refused (v3: no emotions, speed on Base only); a server default it cannot apply is left out.
 * Never accepted and then silently not heard. `asked.speed`: the member chose the speed.
 */
export function withinControls(
  controls: SpeechControls,
  checked: ValidatedSay,
  asked: { readonly speed: boolean },
): ValidatedSay {
  if (checked.emotion !== undefined && !controls.emotion(checked.model))
    throw new UserError('emotion_not_offered', {});
  if (checked.speed === undefined || controls.speed(checked.model)) return checked;
  if (asked.speed) throw new UserError('speed_needs_base', {});
  return { ...checked, speed: undefined };
}
