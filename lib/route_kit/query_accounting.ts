// QueryAccounting: the query counter and the slow-query log every route that runs a query shares
// (the search routes, /query).
import { Counter, type Registry } from 'prom-client';
import { type Reply, jsonBytes } from '../http/reply';
import type { Request } from '../http/request';
import type { CallOptions } from '../store/cancellation';
import { cancellable, whenReady } from './store_route';

export interface SearchOptions {
  registry: Registry;
  /** `SVC_SLOW_QUERY_MS`: queries at least this slow are logged at warn; null turns it off. */
  slowQueryMs: number | null;
}

/** Counts the queries handed to the store and logs the slow ones (spec: SVC_SLOW_QUERY_MS). */
export class QueryAccounting {
  private readonly queries: Counter;
  private readonly slowQueryMs: number | null;

  constructor({ registry, slowQueryMs }: SearchOptions) {
    this.queries = new Counter({ name: 'svc_search_queries_total', help: 'Search queries handed to the store', registers: [registry] });
    this.slowQueryMs = slowQueryMs;
  }

  /** Runs one query for the request, cancelled with it, and answers its JSON bytes: at once when the store did. */
  run(req: Request, search: (options: CallOptions) => Buffer | Promise<Buffer>): Reply | Promise<Reply> {
    this.queries.inc();
    return cancellable(req, (options) => {
      const started = performance.now();
      return whenReady(search(options), (result) => {
        const ms = performance.now() - started;
        if (this.slowQueryMs !== null && ms >= this.slowQueryMs) {
          // The vector routes leave their short plan on the request's token.
          const plan = options.cancellation?.token.planSummary();
          req.log.warn({ route: req.route, ms, ...(plan ? { plan: JSON.parse(plan) } : {}) }, 'slow query');
        }
        return jsonBytes(result);
      });
    });
  }
}
