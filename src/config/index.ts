export { parseConfigOrExit } from './or-exit.ts';
export { type Config, ConfigError, parseConfig, parseTtsConfig, type TtsConfig } from './parse.ts';
