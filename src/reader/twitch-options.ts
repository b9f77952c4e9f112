/** `/config twitch read` and `reward` as pure changes to a server's Twitch settings. */
import { UserError } from '../refusal/index.ts';
import { TWITCH_BOUNDS, type TwitchReadMode, type TwitchSettings } from '../store/index.ts';

/** What `/config twitch read` was given (absent: unchanged). */
export interface TwitchReadInput {
  readonly mode?: TwitchReadMode | undefined;
  readonly minBits?: number | undefined;
  readonly prefix?: string | undefined;
}

/**
 * A command prefix: no spaces, starting with a symbol (never a letter or digit, so a plain
 * message is never a command, and a server out of voice can drop one unread).
 */
const PREFIX = new RegExp(`^[^\\p{L}\\p{N}\\s]\\S{0,${TWITCH_BOUNDS.prefix - 1}}$`, 'u');

/** The settings with `input` applied; a UserError for a prefix or min-bits out of bounds. */
export function applyTwitchRead(settings: TwitchSettings, input: TwitchReadInput): TwitchSettings {
  const next = { ...settings };
  if (input.mode !== undefined) next.read = input.mode;
  if (input.minBits !== undefined) {
    const { min, max } = TWITCH_BOUNDS.minBits;
    if (!Number.isInteger(input.minBits) || input.minBits < min || input.minBits > max)
      throw new UserError('twitch_min_bits', { min, max });
    next.minBits = input.minBits;
  }
  if (input.prefix !== undefined) {
    const prefix = input.prefix.trim();
    if (!PREFIX.test(prefix)) throw new UserError('twitch_prefix', { max: TWITCH_BOUNDS.prefix });
    next.prefix = prefix;
  }
  return next;
}

/** A reward id as typed (Twitch's are UUIDs); a UserError when it cannot be one. */
export function twitchRewardId(typed: string): string {
  const id = typed.trim();
  if (!/^[A-Za-z0-9-]{1,64}$/.test(id)) throw new UserError('twitch_reward_id', {});
  return id;
}

/** The settings with `rewardId` as the server's TTS reward (undefined: none). */
export function withReward(settings: TwitchSettings, rewardId: string | undefined): TwitchSettings {
  const { rewardId: _previous, ...rest } = settings;
  return rewardId === undefined ? rest : { ...rest, rewardId };
}
