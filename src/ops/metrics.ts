import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  Registry,
} from 'prom-client';
import type { GenerationCost, Model, TtsEndpoint, TtsMetrics } from '../tts/index.ts';

/** How a generation ended for the member who asked for it. */
export type GenerationOutcome = 'delivered' | 'failed' | 'cancelled' | 'cached';

/** Every outcome, so each counter shows (at 0) before its first event. */
export const GENERATION_OUTCOMES: readonly GenerationOutcome[] = [
  'delivered',
  'failed',
  'cancelled',
  'cached',
];

/** What the bot records, as narrow as its callers need; {@link noMetrics} records nothing. */
export interface BotMetrics extends TtsMetrics {
  generation(outcome: GenerationOutcome): void;
}

/** Values read when metrics are scraped. */
export interface MetricGauges {
  queueItems(): number;
  voiceConnections(): number;
}

/** Records nothing: for processes without a metrics endpoint. */
export const noMetrics: BotMetrics = {
  apiRequest: () => undefined,
  noticeLag: () => undefined,
  generation: () => undefined,
  cacheHit: () => undefined,
};

/**
 * The bot's Prometheus metrics in a registry of their own (no global
 * registry), with prom-client's default process metrics.
 */
export class PrometheusMetrics implements BotMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'endpoint' | 'status'>;
  readonly #generations: Counter<'outcome'>;
  readonly #lag: Histogram;
  readonly #cacheHits: Counter;
  readonly #twitch: Counter<'outcome'>;
  readonly #tokens: Counter<'model'>;
  readonly #dollars: Counter<'model'>;
  #gauges: MetricGauges | undefined;
  #ready: (() => Promise<readonly { readonly ok: boolean }[]>) | undefined;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.#requests = new Counter({
      name: 'tts_api_requests_total',
      help: 'Requests to the TTS API and its media, by endpoint and HTTP status (0: no answer)',
      labelNames: ['endpoint', 'status'],
      registers,
    });
    this.#generations = new Counter({
      name: 'tts_generations_total',
      help: 'Speech requests by how they ended',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of GENERATION_OUTCOMES) this.#generations.inc({ outcome }, 0);
    this.#lag = new Histogram({
      name: 'tts_notice_lag_seconds',
      help: 'From a generation completing to our first Completed poll (estimated from the poll schedule)',
      buckets: [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10],
      registers,
    });
    this.#cacheHits = new Counter({
      name: 'tts_cache_hits_total',
      help: 'Speech served from the audio cache',
      registers,
    });
    // What v3 billed, by model only: never a server id (unbounded, and whose money it is stays in the ledger).
    this.#tokens = new Counter({
      name: 'tts_billed_tokens_total',
      help: 'Tokens v3 billed for generations, by model (streams at the price last seen)',
      labelNames: ['model'],
      registers,
    });
    this.#dollars = new Counter({
      name: 'tts_billed_dollars_total',
      help: 'US dollars v3 billed for generations, by model (the usage ledger keeps exact micro-dollars)',
      labelNames: ['model'],
      registers,
    });
    this.#twitch = new Counter({
      name: 'tts_twitch_messages_total',
      help: 'Twitch chat messages: received (once each), then read or dropped (filtered, withdrawn by moderation) per server reading them',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['received', 'read', 'dropped']) this.#twitch.inc({ outcome }, 0);
    const gauges = () => this.#gauges;
    new Gauge({
      name: 'tts_queue_items',
      help: 'Items in the voice queues of every server',
      registers,
      collect() {
        this.set(gauges()?.queueItems() ?? 0);
      },
    });
    new Gauge({
      name: 'tts_voice_connections',
      help: 'Voice channels the bot is connected to',
      registers,
      collect() {
        this.set(gauges()?.voiceConnections() ?? 0);
      },
    });
  }

  /** Where the queue and connection gauges are read from at each scrape. */
  watch(gauges: MetricGauges): void {
    this.#gauges = gauges;
  }

  /**
   * Exports `tts_ready` (1 when every `/readyz` check passes, else 0), run at each scrape, so an
   * alert can see what `up` cannot: the process answers but Discord or the store is away.
   * Absent until watched; across shards the lowest value wins, so one shard not ready shows 0.
   */
  watchReadiness(ready: () => Promise<readonly { readonly ok: boolean }[]>): void {
    if (this.#ready === undefined) {
      const readiness = () => this.#ready;
      new Gauge({
        name: 'tts_ready',
        help: 'Whether every readiness check of /readyz passes (1) or not (0)',
        aggregator: 'min',
        registers: [this.registry],
        async collect() {
          // A probe that throws is a failed check, as `/readyz` would then answer 500.
          const ok = await readiness()?.().then(
            (checks) => checks.every((check) => check.ok),
            () => false,
          );
          this.set(ok === true ? 1 : 0);
        },
      });
    }
    this.#ready = ready;
  }

  apiRequest(endpoint: TtsEndpoint, status: number): void {
    this.#requests.inc({ endpoint, status: String(status) });
  }

  noticeLag(seconds: number): void {
    this.#lag.observe(Math.max(0, seconds));
  }

  /** One Twitch chat message received, or read or dropped by a server. */
  twitchMessage(outcome: 'received' | 'read' | 'dropped'): void {
    this.#twitch.inc({ outcome });
  }

  generation(outcome: GenerationOutcome): void {
    this.#generations.inc({ outcome });
  }

  cacheHit(): void {
    this.#cacheHits.inc();
  }

  billed(model: Model, cost: GenerationCost): void {
    this.#tokens.inc({ model }, cost.tokens);
    this.#dollars.inc({ model }, cost.micros / 1_000_000);
  }

  /** The metrics as prom-client JSON, for aggregation in the shard manager. */
  json(): Promise<object[]> {
    return this.registry.getMetricsAsJSON();
  }
}

/** A scrape answer: body and its content type. */
export interface Exposition {
  readonly contentType: string;
  readonly body: string;
}

/** The Prometheus text of one registry. */
export async function expose(registry: Registry): Promise<Exposition> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/**
 * Adds up the metrics of several processes (prom-client JSON, one array per
 * process), each metric by its own aggregator (sum unless it says otherwise).
 */
export async function aggregate(parts: readonly object[][]): Promise<Exposition> {
  return expose(AggregatorRegistry.aggregate([...parts]));
}
