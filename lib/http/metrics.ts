// Prometheus: the registry /metrics serves and the per-route request count and duration hook.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Hook } from './hooks';

/** Prometheus text format 0.0.4, as the spec names it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4';

/** A registry with the process metrics; route families add their own metrics to it. */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Counts and times every request by route template, never by concrete path. */
export function httpMetrics(registry: Registry): Hook {
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests by route template and status class',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request duration by route template',
    labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  // Label children are looked up once per route: hashing labels on every request is measurable.
  const byRoute = new Map<string, { timing: ReturnType<typeof duration.labels>; counts: Map<string, ReturnType<typeof requests.labels>> }>();
  return {
    onResponse(req, status) {
      let route = byRoute.get(req.route);
      if (!route) {
        route = { timing: duration.labels({ route: req.route }), counts: new Map() };
        byRoute.set(req.route, route);
      }
      const statusClass = `${Math.floor(status / 100)}xx`;
      let count = route.counts.get(statusClass);
      if (!count) {
        count = requests.labels({ route: req.route, status: statusClass });
        route.counts.set(statusClass, count);
      }
      count.inc();
      route.timing.observe(req.elapsedSeconds());
    },
  };
}
