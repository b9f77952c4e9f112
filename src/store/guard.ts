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
 * Runs one store operation `name`: its failure, or no answer within `timeoutMs`, becomes a
 * {@link StoreUnavailableError}. A late answer is dropped.
 */
export async function withTimeout<R>(
  run: () => Promise<R>,
  name: string,
  timeoutMs: number,
): Promise<R> {
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
