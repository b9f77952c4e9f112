import type { KeyvStoreAdapter } from 'keyv';

/** The store (Redis, the SQLite file) could not be reached or did not answer in time. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** The adapter operations that reach the backing store. */
const OPERATIONS = ['get', 'getMany', 'set', 'setMany', 'delete', 'deleteMany', 'has', 'clear'];

/**
 * Makes every operation of `adapter` fail with a {@link StoreUnavailableError}
 * when it fails or takes longer than `timeoutMs`, instead of hanging while the
 * store is away. Callers can then answer the member at once, and the next call
 * after the store is back succeeds. Changes `adapter` in place.
 */
export function guardStore<T extends KeyvStoreAdapter>(adapter: T, timeoutMs: number): T {
  const methods = adapter as unknown as Record<string, unknown>;
  for (const name of OPERATIONS) {
    const original = methods[name];
    if (typeof original !== 'function') continue;
    methods[name] = (...args: unknown[]) =>
      withTimeout(() => original.apply(adapter, args) as Promise<unknown>, name, timeoutMs);
  }
  return adapter;
}

/**
 * Runs one store operation that does not pass through keyv (a Redis command of our own) under
 * the same rule as {@link guardStore}: a failure or a late answer is a {@link StoreUnavailableError}.
 */
export async function guardCall<R>(
  run: () => Promise<R>,
  name: string,
  timeoutMs: number,
): Promise<R> {
  return withTimeout(run, name, timeoutMs);
}

async function withTimeout<R>(run: () => Promise<R>, name: string, timeoutMs: number): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new StoreUnavailableError(`the store did not answer ${name} within ${timeoutMs} ms`),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([run(), late]);
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreUnavailableError(`the store failed ${name}: ${reason}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
