export { parseConfigOrExit } from './or-exit.ts';
export {
  type Config,
  ConfigError,
  parseConfig,
  parseStoreConfig,
  parseTtsConfig,
  type StoreConfig,
  type TtsConfig,
} from './parse.ts';
