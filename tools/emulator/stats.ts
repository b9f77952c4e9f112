/** Request counters and a timestamped request log, for assertions in tests. */
import type { EndpointName } from './faults.ts';

/** One handled request. `status` 0 means the connection was dropped without a response. */
export interface RequestLogEntry {
  /** Time the request arrived, from the emulator's clock (ms since epoch). */
  at: number;
  /** Time the response was finished or the socket dropped. */
  doneAt: number;
  endpoint: EndpointName;
  method: string;
  /** Path and query as sent; a key sent in the query (the v3 stream) is replaced by `<redacted>`. */
  path: string;
  /** HTTP status; 101 for a WebSocket that was accepted, 0 for a dropped connection. */
  status: number;
  /** How a WebSocket ended: the close code the client saw (1006 when dropped). */
  closeCode?: number;
  /** Owner of the API key, when the key was valid. */
  userId?: string;
  /** The `language_code` a v3 generation (`POST /v3/tts`, a stream's request) asked for, when it named one. */
  languageCode?: string;
}

/** Totals for one endpoint, with a breakdown by response status (0 = dropped). */
export interface EndpointCount {
  total: number;
  byStatus: Record<number, number>;
}

/** Collects counters and the bounded request log. */
export class Stats {
  readonly #maxEntries: number;
  readonly #onRecord: (entry: RequestLogEntry) => void;
  readonly #entries: RequestLogEntry[] = [];
  readonly #counts = new Map<EndpointName, EndpointCount>();

  constructor(maxEntries: number, onRecord: (entry: RequestLogEntry) => void) {
    this.#maxEntries = maxEntries;
    this.#onRecord = onRecord;
  }

  /** Records one finished request. */
  record(entry: RequestLogEntry): void {
    this.#entries.push(entry);
    if (this.#entries.length > this.#maxEntries) this.#entries.shift();
    let count = this.#counts.get(entry.endpoint);
    if (!count) {
      count = { total: 0, byStatus: {} };
      this.#counts.set(entry.endpoint, count);
    }
    count.total += 1;
    count.byStatus[entry.status] = (count.byStatus[entry.status] ?? 0) + 1;
    this.#onRecord({ ...entry });
  }

  /** A copy of the counters, keyed by endpoint name. */
  counts(): Partial<Record<EndpointName, EndpointCount>> {
    const out: Partial<Record<EndpointName, EndpointCount>> = {};
    for (const [name, c] of this.#counts)
      out[name] = { total: c.total, byStatus: { ...c.byStatus } };
    return out;
  }

  /** A copy of the request log, oldest first. */
  entries(): RequestLogEntry[] {
    return this.#entries.map((e) => ({ ...e }));
  }

  /** Clears counters and log. */
  reset(): void {
    this.#entries.length = 0;
    this.#counts.clear();
  }
}
