import { Counter, type Registry } from 'prom-client';
import { jsonBytes } from '../http/reply';
import { type Route, route } from '../http/route';
import { type StoreSlot, callOptions } from './store';

export interface SearchOptions {
  registry: Registry;
  /** `SVC_SLOW_QUERY_MS`: queries at least this slow are logged at warn; null turns it off. */
  slowQueryMs: number | null;
}

/** The request bytes go to the core as they are and its hit array comes back as JSON bytes. */
export function searchRoutes(slot: StoreSlot, { registry, slowQueryMs }: SearchOptions): Route[] {
  const queries = new Counter({ name: 'svc_search_queries_total', help: 'Search queries handed to the store', registers: [registry] });
  return [
    route({
      method: 'POST',
      path: '/search',
      access: 'read',
      body: 'raw',
      handle: async (req) => {
        const store = slot.get();
        queries.inc();
        const started = performance.now();
        const hits = await store.searchJson(req.bytes, callOptions(req));
        const ms = performance.now() - started;
        if (slowQueryMs !== null && ms >= slowQueryMs) req.log.warn({ route: req.route, ms }, 'slow query');
        return jsonBytes(hits);
      },
    }),
  ];
}
