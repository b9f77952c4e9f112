/**
 * Priority chatters: a Discord server's priority role, and on Twitch the broadcaster, the
 * moderators and the VIPs. Their messages go to the front of the chat backlog. Pure.
 */

/** What a chat source knows of a chatter's standing. */
export interface ChatterStanding {
  /** Discord role ids. */
  readonly roleIds: readonly string[];
  /** Twitch badges (`broadcaster`, `moderator`, `vip`, `subscriber`, …); none on Discord. */
  readonly badges?: readonly string[];
}

/** The Twitch badges that give priority. */
export const PRIORITY_BADGES: readonly string[] = ['broadcaster', 'moderator', 'vip'];

/** Whether a chatter's messages go to the front: a priority role, or a priority badge. */
export function hasPriority(chatter: ChatterStanding, priorityRoleIds: readonly string[]): boolean {
  return (
    chatter.roleIds.some((id) => priorityRoleIds.includes(id)) ||
    (chatter.badges ?? []).some((badge) => PRIORITY_BADGES.includes(badge))
  );
}

/** The messages with priority ones first; arrival order kept within each part. */
export function priorityFirst<M>(messages: readonly M[], isPriority: (message: M) => boolean): M[] {
  const first: M[] = [];
  const rest: M[] = [];
  for (const message of messages) (isPriority(message) ? first : rest).push(message);
  return [...first, ...rest];
}
