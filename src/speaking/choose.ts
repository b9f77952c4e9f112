/** Pure choices of the speaking service: where speech goes and which voice speaks it. */
import { UserError } from '../refusal/index.ts';
import {
  codeSpan,
  type DetectLanguage,
  findVoice,
  lineLanguage,
  voicesSpeaking,
} from '../speech/index.ts';
import type { GuildDefaults, UserSettings } from '../store/index.ts';
import type { Model, SpeechControls, Voice } from '../tts/index.ts';
import type { Output } from './types.ts';

/**
 * Where a request's speech goes: the output asked for, else voice when the bot is in the
 * requester's voice channel, else a file. Voice while the bot is in no channel is refused.
 */
export function chooseOutput(
  requested: Output | undefined,
  botChannelId: string | undefined,
  requesterChannelId: string | undefined,
): Output {
  const output =
    requested ??
    (botChannelId !== undefined && botChannelId === requesterChannelId ? 'voice' : 'file');
  if (output === 'voice' && botChannelId === undefined) {
    throw new UserError('say_not_in_voice', {});
  }
  return output;
}

/**
 * The voice that speaks: the one asked for (by id, case-insensitively), else the first free one
 * of the model, else its first; with a `language`, those of the voices that speak it, where the
 * list tells any (a voice asked for is kept whatever it speaks). Refuses an unknown id or a
 * model without voices.
 */
export function pickVoice(
  voices: readonly Voice[],
  voiceId: string | undefined,
  model: Model,
  language?: string,
): Voice {
  if (voiceId === undefined) {
    const pool = voicesSpeaking(voices, language) ?? voices;
    const fallback = pool.find((voice) => voice.free) ?? pool[0];
    if (fallback === undefined) throw new UserError('no_voices', { model });
    return fallback;
  }
  const voice = findVoice(voices, voiceId);
  if (voice === undefined) {
    throw new UserError('voice_not_found', { voice: codeSpan(voiceId, 50), model });
  }
  return voice;
}

/** What a requester speaks with when they choose nothing (chat): their voice, else the server's defaults. */
export function defaultChoice(
  user: UserSettings,
  guild: GuildDefaults,
): {
  readonly voiceId: string | undefined;
  readonly model: Model;
  readonly speed: number | undefined;
} {
  return {
    voiceId: user.voiceId ?? guild.voiceId,
    model: guild.model ?? 'base',
    speed: guild.speed,
  };
}

/**
 * The language `text` is read in with `model` (see `lineLanguage`): the text's own, else the
 * member's, else the server's; undefined where the API takes no language (v2).
 */
export function speechLanguage(
  text: string,
  model: Model,
  controls: SpeechControls,
  detect: DetectLanguage | undefined,
  settings: { readonly user: UserSettings; readonly guild: GuildDefaults },
): string | undefined {
  return lineLanguage(text, detect, {
    speakable: controls.languages?.(model) ?? [],
    member: settings.user.language,
    server: settings.guild.language,
  });
}
