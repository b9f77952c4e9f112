import { createClient } from '@redis/client';

/**
 * What the bot uses of a Redis connection (from {@link openRedis}): scripts and one range read
 * (budgets), set commands (the pending-speech index), ping.
 */
export interface RedisConnection {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  zRangeByScoreWithScores(
    key: string,
    min: string,
    max: string,
  ): Promise<Array<{ value: unknown; score: number }>>;
  sAdd(key: string, members: string[]): Promise<unknown>;
  sRem(key: string, members: string[]): Promise<unknown>;
  sMembers(key: string): Promise<unknown>;
  ping(): Promise<unknown>;
  /** Waits for pending replies, then disconnects. */
  close(): Promise<unknown>;
}

/**
 * Connects to the Redis at `url` for the shared budgets and readiness checks.
 * Connection errors after the first go to `onError` (the client reconnects by
 * itself); an unreachable Redis at start rejects.
 */
export async function openRedis(
  url: string,
  onError: (error: unknown) => void,
): Promise<RedisConnection> {
  let connected = false;
  const redis = createClient({
    url,
    // As the store: fail budget calls at once while disconnected instead of queueing them.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 5000,
      // Before the first connection a few quick tries, then give up: a start must fail plainly.
      reconnectStrategy: (retries, cause) =>
        connected ? Math.min(retries * 200, 5000) : retries < 3 ? 200 : cause,
    },
  });
  redis.on('error', (error: unknown) => {
    if (connected) onError(error);
  });
  try {
    await redis.connect();
  } catch (error) {
    if (redis.isOpen) redis.destroy();
    throw new Error(`Redis at ${redactUrl(url)} is unreachable`, { cause: error });
  }
  connected = true;
  return redis;
}

/** A Redis address without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured address';
  }
}
