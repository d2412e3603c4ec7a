// Prometheus: the registry /metrics serves and the per-route request count and duration hook.
import { AggregatorRegistry, Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { Hook } from './hooks';
import type { MetricJson } from './threads';

/**
 * prom-client's sums of its labelled `nodejs_active_{handles,requests,resources}` gauges: gauges
 * named like counters, which `promtool check metrics` rejects. `sum(nodejs_active_handles)` gives
 * the same number, so dropping them loses nothing.
 */
const COUNTER_NAMED_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** A counter whose value is read at scrape time from a count kept elsewhere. */
export function countedElsewhere(registry: Registry, name: string, help: string, read: () => number): Counter {
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/**
 * A registry with the process metrics; route families add their own metrics to it. A server's
 * other HTTP threads keep only what each counts itself (requests, queries): `perThread`, with none.
 */
export function createRegistry(perThread = false): Registry {
  const registry = new Registry();
  if (perThread) return registry;
  collectDefaultMetrics({ register: registry });
  for (const name of COUNTER_NAMED_GAUGES) registry.removeSingleMetric(name);
  return registry;
}

/**
 * The whole server's exposition: the leading thread's registry, with the other HTTP threads' own
 * counts (`others`, their per-thread registries) added in, series by series. A metric only the
 * leader has (the process, the store) is its value alone.
 */
export async function mergedMetrics(own: Registry, others: MetricJson[][]): Promise<string> {
  const counted = new Set(others.flat().map((m) => m.name));
  const mark = (metrics: MetricJson[]) => metrics.map((m) => ({ ...m, aggregator: counted.has(m.name) ? 'sum' : 'first' }));
  return AggregatorRegistry.aggregate([mark((await own.getMetricsAsJSON()) as MetricJson[]), ...others.map(mark)]).metrics();
}

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One route template's counts: by status class, and durations per bucket (not cumulative). */
class RouteCounts {
  readonly byStatus = new Map<string, number>();
  readonly buckets = new Float64Array(BUCKETS.length + 1); // the last one is +Inf
  sum = 0;
  count = 0;

  record(status: number, seconds: number): void {
    const statusClass = `${Math.floor(status / 100)}xx`;
    this.byStatus.set(statusClass, (this.byStatus.get(statusClass) ?? 0) + 1);
    let b = 0;
    while (b < BUCKETS.length && seconds > BUCKETS[b]) b++;
    this.buckets[b]++;
    this.sum += seconds;
    this.count++;
  }
}

interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** A metric the registry reads at scrape time (prom-client takes any object with this shape). */
const scraped = (name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]) => ({
  name,
  help,
  type,
  aggregator: 'sum' as const,
  get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
});

/**
 * Counts and times every request by route template, never by concrete path. The counts are plain
 * numbers per route, turned into Prometheus series only when scraped: a labelled prom-client
 * observation hashes its labels on every request, which shows at tens of thousands a second.
 */
export function httpMetrics(registry: Registry): Hook {
  const routes = new Map<string, RouteCounts>();
  const requests = scraped('svc_http_requests_total', 'HTTP requests by route template and status class', 'counter', () =>
    [...routes].flatMap(([route, c]) => [...c.byStatus].map(([status, value]) => ({ value, labels: { route, status } }))),
  );
  const durations = scraped('svc_http_request_duration_seconds', 'HTTP request duration by route template', 'histogram', () =>
    [...routes].flatMap(([route, c]) => {
      let cumulative = 0;
      const buckets = [...BUCKETS, '+Inf'].map((le, i) => {
        cumulative += c.buckets[i];
        return { value: cumulative, labels: { le, route }, metricName: 'svc_http_request_duration_seconds_bucket' };
      });
      return [
        ...buckets,
        { value: c.sum, labels: { route }, metricName: 'svc_http_request_duration_seconds_sum' },
        { value: c.count, labels: { route }, metricName: 'svc_http_request_duration_seconds_count' },
      ];
    }),
  );
  registry.registerMetric(requests as unknown as Parameters<Registry['registerMetric']>[0]);
  registry.registerMetric(durations as unknown as Parameters<Registry['registerMetric']>[0]);
  return {
    onResponse(req, status) {
      let counts = routes.get(req.route);
      if (!counts) {
        counts = new RouteCounts();
        routes.set(req.route, counts);
      }
      counts.record(status, req.elapsedSeconds());
    },
  };
}
