/**
 * The set-up and look-ups the chat reader's end-to-end files share: the server's admin running
 * `/config`, members moved into voice and the bot joined, a server reading its `chat` channel,
 * what the emulator was asked and what was heard, and Twitch chatters' stable user ids.
 */
import { expect } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import type { FakeTwitch, PostedMessage } from '../fake-twitch/index.ts';
import { eventually } from '../voice/support.ts';
import { type ApiUnderTest, api as defaultApi } from './api-under-test.ts';
import type { TestBot } from './bot-harness.ts';

/** An option of a slash command as the fake Discord takes it. */
type Options = Record<string, string | number | boolean>;

/** `/config <subcommand>` as the server's admin. */
export function configAs(t: TestBot, subcommand: string, options: Options = {}) {
  return t.discord.slash({ user: 'admin', name: 'config', subcommand, options });
}

/** Moves `users` into the server's voice channel, then has the admin `/join` it. */
export async function joinWith(t: TestBot, users: readonly string[]): Promise<void> {
  for (const user of users)
    t.discord.moveMember({ userId: user, channelId: t.discord.guild.voiceChannelId });
  const join = await t.discord.slash({ user: 'admin', name: 'join' }).waitForReply(15_000);
  expect(join.content).toContain('Joined');
}

/**
 * The usual reading set-up: the test key, the `chat` channel read, `reader` settings (each a
 * `/config reader` of its own, in order), then `users` in voice and the bot joined.
 */
export async function readChatInVoice(
  t: TestBot,
  setup: { readonly users: readonly string[]; readonly reader?: readonly Options[] },
): Promise<void> {
  await t.configureKey(USER_ONE.apiKey);
  await configAs(t, 'read-channel add', { channel: 'chat' }).waitForReply();
  for (const options of setup.reader ?? []) await configAs(t, 'reader', options).waitForReply();
  await joinWith(t, setup.users);
}

/** Generations whose audio was played, in order. */
export function heardGenerations(t: TestBot, api: ApiUnderTest = defaultApi) {
  return api.heard(t.emulator).flatMap((id) => api.generation(t.emulator, id) ?? []);
}

/** Texts of the generations played, in order. */
export function heardTexts(t: TestBot, api: ApiUnderTest = defaultApi): string[] {
  return api.heard(t.emulator).map((id) => api.textOf(t.emulator, id) ?? '');
}

/** Texts of every generation asked of the API so far, in order. */
export function submittedTexts(t: TestBot, api: ApiUnderTest = defaultApi): string[] {
  return api.generated(t.emulator).map((id) => api.textOf(t.emulator, id) ?? '');
}

/** Waits until a text matching `pattern` was heard; that text. */
export async function heardMatching(
  t: TestBot,
  pattern: RegExp,
  timeoutMs = 20_000,
  api: ApiUnderTest = defaultApi,
): Promise<string> {
  const matching = () => heardTexts(t, api).find((text) => pattern.test(text));
  await eventually(`heard ${pattern}`, () => matching() !== undefined, timeoutMs);
  return matching() ?? '';
}

/** A Twitch chatter's user id by login, the same for every message of theirs: `first`, `first + 1`… */
export function twitchUserIds(first: number): (login: string) => string {
  const ids = new Map<string, string>();
  return (login) => {
    const id = ids.get(login) ?? String(first + ids.size);
    ids.set(login, id);
    return id;
  };
}

/**
 * The look-ups above bound to the test's bot (`bot()` is read at each call, so it may be set in
 * `beforeAll`), under the short names the end-to-end files use.
 */
export function chatLookups(bot: () => TestBot, api: ApiUnderTest = defaultApi) {
  return {
    config: (subcommand: string, options: Options = {}) => configAs(bot(), subcommand, options),
    heardGenerations: () => heardGenerations(bot(), api),
    heard: () => heardTexts(bot(), api),
    submitted: () => submittedTexts(bot(), api),
    heardMatching: (pattern: RegExp, timeoutMs = 20_000) =>
      heardMatching(bot(), pattern, timeoutMs, api),
  };
}

/** What a test adds to a posted Twitch message: everything but its id, login, user id and text. */
export type TwitchExtras = Omit<PostedMessage, 'id' | 'login' | 'userId' | 'text'>;

/**
 * Posts to `channel` of the fake Twitch as a chatter (`twitch()` read at each call), ids
 * `<idPrefix>-1`, `-2`…, user ids from `firstUserId` (see {@link twitchUserIds}).
 */
export function twitchPoster(
  twitch: () => FakeTwitch,
  channel: string,
  idPrefix: string,
  firstUserId: number,
) {
  let seq = 0;
  const userIdOf = twitchUserIds(firstUserId);
  return {
    userIdOf,
    /** Posts `text` as `login`, returning the message's id. */
    post(login: string, text: string, extra: TwitchExtras = {}): string {
      seq += 1;
      const id = `${idPrefix}-${seq}`;
      twitch().post(channel, { id, login, userId: userIdOf(login), text, ...extra });
      return id;
    },
  };
}
