export { type Check, type OpsProbes, type OpsServer, startOpsServer, timedCheck } from './http.ts';
export {
  aggregate,
  type BotMetrics,
  type Exposition,
  expose,
  GENERATION_OUTCOMES,
  type GenerationOutcome,
  type MetricGauges,
  noMetrics,
  PrometheusMetrics,
} from './metrics.ts';
export { Shutdown } from './shutdown.ts';
