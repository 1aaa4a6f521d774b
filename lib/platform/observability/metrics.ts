import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { onConfigure } from '../config.js';
import { UnavailableError, type AppError } from '../errors.js';
import { METRICS, METRICS_NAMESPACE, type MetricName } from './metric-names.js';

/**
 * Powertools Metrics (CloudWatch EMF). Names come from metric-names.ts only. Metrics without a
 * dimension are buffered and flushed once per invocation (`flushMetrics`, called by every function's
 * chain: middleware.ts); a metric with a dimension is written at once, with that dimension.
 */
let instance: Metrics | undefined;
/** Made on first use, and again after `configure` (Powertools reads POWERTOOLS_METRICS_DISABLED when it is made). */
const metrics = () =>
  (instance ??= new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE,
    serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'expohub',
  }));
onConfigure(() => (instance = undefined));

type DimensionValue<N extends MetricName> = (typeof METRICS)[N] extends { values: readonly (infer V)[] } ? V : never;

/** Counts one occurrence of `name`; metrics with a dimension (METRICS) take its value. */
export function countMetric<N extends MetricName>(name: N, ...value: DimensionValue<N> extends never ? [] : [DimensionValue<N>]): void {
  const spec: { dimension?: string } = METRICS[name];
  if (spec.dimension === undefined || value[0] === undefined) {
    metrics().addMetric(name, MetricUnit.Count, 1);
    return;
  }
  const single = metrics().singleMetric();
  single.addDimension(spec.dimension, String(value[0]));
  single.addMetric(name, MetricUnit.Count, 1);
}

/** Publishes one value of a gauge `name` in seconds (flushed with the invocation's other metrics). */
export function gaugeSeconds(name: MetricName, seconds: number): void {
  metrics().addMetric(name, MetricUnit.Seconds, seconds);
}

/**
 * One synthetic check's verdict (SyntheticSuccess, 1 or 0) and, when it got an answer, its latency
 * (SyntheticLatency), with the `check` dimension: written at once.
 */
export function publishSyntheticCheck(check: DimensionValue<'SyntheticSuccess'>, ok: boolean, latencyMs?: number): void {
  const single = metrics().singleMetric();
  single.addDimension(METRICS.SyntheticSuccess.dimension, check);
  single.addMetric('SyntheticSuccess', MetricUnit.Count, ok ? 1 : 0);
  if (latencyMs === undefined || check === 'all') return;
  const latency = metrics().singleMetric();
  latency.addDimension(METRICS.SyntheticLatency.dimension, check);
  latency.addMetric('SyntheticLatency', MetricUnit.Milliseconds, latencyMs);
}

/** Counts a 503 by the dependency that failed (`other` when the error does not say: a conflict that outlasted its retries, a bug's 503). */
export function countUnavailable(error: AppError | undefined): void {
  countMetric('Unavailable', (error instanceof UnavailableError ? error.dependency : undefined) ?? 'other');
}

/** Writes the buffered metrics of this invocation, if it counted any (no "no metrics" warning otherwise). */
export function flushMetrics(): void {
  if (instance?.hasStoredMetrics()) instance.publishStoredMetrics();
}
