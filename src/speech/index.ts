export {
  BLOCKLIST_LIMITS,
  type BlockedSpan,
  type BlocklistMatcher,
  compileBlocklist,
  STEP_BUDGET,
  type StepMeter,
} from './blocklist.ts';
export { BlocklistCache, type Screened, screenAfter, screenText } from './blocklists.ts';
export { languageDetectorFor, loadLanguageDetector } from './detector.ts';
export { audioDurationMs } from './duration.ts';
export {
  type DetectLanguage,
  type LanguageFallbacks,
  lineLanguage,
  MIN_DETECT_LETTERS,
  scriptVerdict,
} from './language.ts';
export { languageChoices, languageName, speakableLanguages } from './language-names.ts';
export {
  type SayOptions,
  type TextBounds,
  type ValidatedSay,
  validateSay,
  withinControls,
} from './options.ts';
export { fileProgress, formatSeconds, voiceProgress } from './render.ts';
export { codeSpan, type MentionNames, quoteSafely, speakableText } from './text.ts';
export {
  filterVoices,
  findVoice,
  traitChoices,
  voiceChoices,
  voiceLabel,
  voiceLanguages,
  voicesSpeaking,
} from './voices.ts';
