// Search routes: vector (/search, /search/similar, /search/batch) and full text (/text-search,
// /hybrid-search, /suggest), with the query counter and the slow-query log.
import { Counter, type Registry } from 'prom-client';
import type { Store } from '../store/store';
import type { CallOptions } from '../types';
import { jsonBytes } from '../http/reply';
import type { Request } from '../http/request';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './slot';
import { cancellable } from './store_route';

export interface SearchOptions {
  registry: Registry;
  /** `SVC_SLOW_QUERY_MS`: queries at least this slow are logged at warn; null turns it off. */
  slowQueryMs: number | null;
}

type RawSearch = (store: Store, bytes: Uint8Array, options: CallOptions) => Promise<Buffer>;

/** The request bytes go to the core as they are and its JSON comes back as bytes. */
export function searchRoutes(slot: StoreSlot, { registry, slowQueryMs }: SearchOptions): Route[] {
  const queries = new Counter({ name: 'svc_search_queries_total', help: 'Search queries handed to the store', registers: [registry] });
  const searchRoute = (path: string, search: RawSearch): Route =>
    route({
      method: 'POST',
      path,
      access: 'read',
      body: 'raw',
      handle: async (req: Request) => {
        const store = slot.get();
        queries.inc();
        return jsonBytes(
          await cancellable(req, async (options) => {
            const started = performance.now();
            const result = await search(store, req.bytes, options);
            const ms = performance.now() - started;
            if (slowQueryMs !== null && ms >= slowQueryMs) {
              // The vector routes leave their short plan on the request's token (spec: SVC_SLOW_QUERY_MS).
              const plan = options.cancellation?.token.planSummary();
              req.log.warn({ route: req.route, ms, ...(plan ? { plan: JSON.parse(plan) } : {}) }, 'slow query');
            }
            return result;
          }),
        );
      },
    });
  return [
    searchRoute('/search', (store, bytes, o) => store.searchJson(bytes, o)),
    searchRoute('/search/similar', (store, bytes, o) => store.searchSimilarJson(bytes, o)),
    searchRoute('/search/batch', (store, bytes, o) => store.searchBatchJson(bytes, o)),
    searchRoute('/text-search', (store, bytes, o) => store.textSearchJson(bytes, o)),
    searchRoute('/hybrid-search', (store, bytes, o) => store.hybridSearchJson(bytes, o)),
    searchRoute('/suggest', (store, bytes, o) => store.suggestJson(bytes, o)),
  ];
}
