/**
 * Lines as Twitch chat writes them, built here independently of `src/twitch/irc.ts` so that
 * the client is tested against Twitch's formats, not against its own formatter.
 */

/** IRCv3 tag value escaping, per the message-tags spec (backslash first). */
export function escapeTag(value: string): string {
  return value
    .replaceAll('\\', '\\\\')
    .replaceAll(';', '\\:')
    .replaceAll(' ', '\\s')
    .replaceAll('\r', '\\r')
    .replaceAll('\n', '\\n');
}

/** `@a=1;b=x\sy` from pairs, in the given order; an empty value is written as `key=`. */
export function tagString(tags: ReadonlyArray<readonly [string, string]>): string {
  return `@${tags.map(([key, value]) => `${key}=${escapeTag(value)}`).join(';')}`;
}

/** A chat message as a test posts it. */
export interface PostedMessage {
  readonly id: string;
  readonly login: string;
  readonly userId: string;
  readonly text: string;
  readonly displayName?: string;
  /** `moderator/1,subscriber/12`. */
  readonly badges?: string;
  /** `25:0-4/1902:6-10`. */
  readonly emotes?: string;
  readonly firstMessage?: boolean;
  /** Sent with /me. */
  readonly action?: boolean;
  readonly sentAt?: number;
  /** A cheer: the `bits` tag (the text carries its cheermotes, `Cheer100`). */
  readonly bits?: number;
  /** A channel-points redemption with text: the `custom-reward-id` tag (a UUID on Twitch). */
  readonly rewardId?: string;
}

/** A PRIVMSG with the tags Twitch sends (2024 set), for `channel` whose room id is `roomId`. */
export function privmsgLine(channel: string, roomId: string, m: PostedMessage): string {
  const badges = m.badges ?? '';
  const tags = tagString([
    ['badge-info', ''],
    ['badges', badges],
    ...(m.bits === undefined ? [] : [['bits', String(m.bits)] as const]),
    ['client-nonce', `nonce-${m.id}`],
    ['color', '#1E90FF'],
    ...(m.rewardId === undefined ? [] : [['custom-reward-id', m.rewardId] as const]),
    ['display-name', m.displayName ?? m.login],
    ['emotes', m.emotes ?? ''],
    ['first-msg', m.firstMessage === true ? '1' : '0'],
    ['flags', ''],
    ['id', m.id],
    ['mod', badges.includes('moderator/') ? '1' : '0'],
    ['returning-chatter', '0'],
    ['room-id', roomId],
    ['subscriber', badges.includes('subscriber/') ? '1' : '0'],
    ['tmi-sent-ts', String(m.sentAt ?? Date.now())],
    ['turbo', '0'],
    ['user-id', m.userId],
    ['user-type', badges.includes('moderator/') ? 'mod' : ''],
  ]);
  const text = m.action === true ? `\u0001ACTION ${m.text}\u0001` : m.text;
  return `${tags} :${m.login}!${m.login}@${m.login}.tmi.twitch.tv PRIVMSG #${channel} :${text}`;
}

/** A moderator deleted one message. */
export function clearmsgLine(channel: string, targetMsgId: string, login: string): string {
  const tags = tagString([
    ['login', login],
    ['room-id', ''],
    ['target-msg-id', targetMsgId],
    ['tmi-sent-ts', String(Date.now())],
  ]);
  return `${tags} :tmi.twitch.tv CLEARMSG #${channel} :deleted text`;
}

/** A chatter timed out (their messages purged), or the whole chat cleared when `user` is absent. */
export function clearchatLine(
  channel: string,
  roomId: string,
  user?: { readonly login: string; readonly userId: string },
): string {
  const sent: [string, string] = ['tmi-sent-ts', String(Date.now())];
  if (user === undefined) {
    return `${tagString([['room-id', roomId], sent])} :tmi.twitch.tv CLEARCHAT #${channel}`;
  }
  const tags = tagString([
    ['ban-duration', '600'],
    ['room-id', roomId],
    ['target-user-id', user.userId],
    sent,
  ]);
  return `${tags} :tmi.twitch.tv CLEARCHAT #${channel} :${user.login}`;
}

/** What Twitch answers a login: the welcome numerics. */
export function welcomeLines(nick: string): readonly string[] {
  return [
    `:tmi.twitch.tv 001 ${nick} :Welcome, GLHF!`,
    `:tmi.twitch.tv 002 ${nick} :Your host is tmi.twitch.tv`,
    `:tmi.twitch.tv 003 ${nick} :This server is rather new`,
    `:tmi.twitch.tv 004 ${nick} :-`,
    `:tmi.twitch.tv 375 ${nick} :-`,
    `:tmi.twitch.tv 372 ${nick} :You are in a maze of twisty passages, all alike.`,
    `:tmi.twitch.tv 376 ${nick} :>`,
  ];
}

/** What Twitch answers a JOIN of one channel. */
export function joinLines(nick: string, channel: string, roomId: string): readonly string[] {
  return [
    `:${nick}!${nick}@${nick}.tmi.twitch.tv JOIN #${channel}`,
    `:${nick}.tmi.twitch.tv 353 ${nick} = #${channel} :${nick}`,
    `:${nick}.tmi.twitch.tv 366 ${nick} #${channel} :End of /NAMES list`,
    `@emote-only=0;followers-only=-1;r9k=0;room-id=${roomId};slow=0;subs-only=0 :tmi.twitch.tv ROOMSTATE #${channel}`,
  ];
}
