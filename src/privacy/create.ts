import type { Logger } from '../log/index.ts';
import { PreviewCache } from '../preview/index.ts';
import { type BotStore, keysUnder } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import { type ForgetDependencies, ForgetService } from './forget.ts';
import { RemovalRecords } from './removals.ts';
import { RemovalScheduler, type RemovalSchedulerOptions } from './scheduler.ts';

/** Where a server's settings (and sealed key) are stored: `guild:<id>`. */
const GUILD_PREFIX = 'guild:';
/** Where its members' own settings are: `member:<guild id>:<user id>`. */
const MEMBER_PREFIX = 'member:';

/** The forget service, and the removal scheduler over it. */
export interface Forgetting {
  readonly service: ForgetService;
  readonly scheduler: RemovalScheduler;
}

/**
 * Forgetting a server as the bot runs it: `/config forget` (the service), and a removal once
 * `DATA_RETENTION` is over (the scheduler, over the service and the bot's store).
 */
export function createForgetting(deps: {
  readonly config: { readonly dataRetentionMs: number };
  readonly store: Pick<
    BotStore,
    'keyv' | 'settings' | 'members' | 'apiKeys' | 'usage' | 'speechCache'
  >;
  readonly tts: ForgetDependencies['tts'];
  readonly voice: ForgetDependencies['voice'];
  /** The bot's one journal of pending speech. */
  readonly durable: { readonly journal: ForgetDependencies['journal'] };
  /** Whether this process serves a server (its shard's), and whether the bot is in it now. */
  readonly discord: Pick<RemovalSchedulerOptions, 'owns' | 'present'>;
  readonly clock: Clock;
  readonly logger: Logger;
}): Forgetting {
  const { store, discord, logger } = deps;
  const service = new ForgetService({
    keyv: store.keyv,
    settings: store.settings,
    apiKeys: store.apiKeys,
    journal: deps.durable.journal,
    usage: store.usage,
    // Samples are records in the store: this one deletes them (in-flight ones are the speaking service's).
    previews: new PreviewCache(store.keyv),
    speechCache: store.speechCache,
    members: store.members,
    tts: deps.tts,
    voice: deps.voice,
    logger,
  });
  const scheduler = new RemovalScheduler({
    forget: service,
    records: new RemovalRecords(store.keyv),
    clock: deps.clock,
    retentionMs: deps.config.dataRetentionMs,
    owns: discord.owns,
    present: discord.present,
    stored: () => storedGuilds(store.keyv),
    logger: logger.child({ subsystem: 'privacy' }),
  });
  return { service, scheduler };
}

/**
 * Every server the store holds anything for: its settings, or only its members' own settings
 * (a member opted out where no admin ever changed a setting).
 */
async function storedGuilds(keyv: BotStore['keyv']): Promise<Set<string>> {
  const guilds = new Set(
    (await keysUnder(keyv, GUILD_PREFIX)).map((key) => key.slice(GUILD_PREFIX.length)),
  );
  for (const key of await keysUnder(keyv, MEMBER_PREFIX)) {
    const [guildId] = key.slice(MEMBER_PREFIX.length).split(':');
    if (guildId !== undefined && guildId !== '') guilds.add(guildId);
  }
  return guilds;
}
