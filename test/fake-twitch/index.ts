/** A fake Twitch chat server for end-to-end tests of `src/twitch` (see `server.ts`). */
export { escapeTag, type PostedMessage } from './lines.ts';
export { FakeTwitch } from './server.ts';
