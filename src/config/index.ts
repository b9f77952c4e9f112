export { type Config, ConfigError, parseConfig } from './parse.ts';
