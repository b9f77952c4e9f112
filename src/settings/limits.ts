/** A server's daily shares and budget (`/config limits`), as saved: each option given changes, the others stay. */
import type { GuildLimits, SettingsStore } from '../store/index.ts';

/** The shares `/config limits` was given; absent ones stay as they are. */
export interface LimitsInput {
  readonly memberDaily?: number | undefined;
  readonly chatDaily?: number | undefined;
  /** The daily budget in micro-dollars; 0 turns it off. */
  readonly dailyBudgetMicros?: number | undefined;
}

/** Saves the shares given under the server's settings lock; resolves with the limits in force. */
export async function saveLimits(
  settings: Pick<SettingsStore, 'updateGuild'>,
  guildId: string,
  input: LimitsInput,
): Promise<GuildLimits> {
  const saved = await settings.updateGuild(guildId, (current) => ({
    ...current,
    limits: {
      ...current.limits,
      ...(input.memberDaily === undefined ? {} : { memberDaily: input.memberDaily }),
      ...(input.chatDaily === undefined ? {} : { chatDaily: input.chatDaily }),
      ...(input.dailyBudgetMicros === undefined
        ? {}
        : { dailyBudgetMicros: input.dailyBudgetMicros }),
    },
  }));
  return saved.limits;
}
