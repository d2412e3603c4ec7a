// Search routes: vector (/search, /search/similar, /search/batch) and full text (/text-search,
// /hybrid-search, /suggest), with the query counter and the slow-query log they share with /query.
import { Counter, type Registry } from 'prom-client';
import type { RawRead } from '../store/store';
import type { CallOptions } from '../types';
import { type Reply, jsonBytes } from '../http/reply';
import type { Request } from '../http/request';
import { type Route, type RouteDoc, route } from '../http/route';
import { ref } from './components';
import type { StoreSlot } from './slot';
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

/** The request bytes go to the core as they are and its JSON comes back as bytes. */
export function searchRoutes(slot: StoreSlot, accounting: QueryAccounting): Route[] {
  const searchRoute = (path: string, doc: RouteDoc, read: RawRead): Route =>
    route({
      method: 'POST',
      path,
      access: 'read',
      body: 'raw',
      doc,
      handle: (req: Request) => accounting.run(req, (options) => slot.get(req).readJson(read, req.bytes, options)),
    });
  // A route taking `rerank` calls the rerank provider, whose failure is a 502.
  const ranked = (operationId: string, summary: string, request: string, { answer = 'RankedHits', rerank = true } = {}): RouteDoc => ({
    operationId,
    summary,
    request: ref(request),
    responses: { 200: { description: 'Hits by score descending, then collection, then id', schema: ref(answer) } },
    ...(rerank ? { errors: [502] } : {}),
  });
  return [
    searchRoute('/search', ranked('search', 'Nearest-neighbour search', 'SearchRequest'), 'search'),
    searchRoute(
      '/search/similar',
      ranked('searchSimilar', "Search with a stored record's vector (the record itself excluded)", 'SimilarRequest', { rerank: false }),
      'searchSimilar',
    ),
    searchRoute(
      '/search/batch',
      {
        operationId: 'searchBatch',
        summary: '1 to 16 searches validated together, optionally fused with RRF',
        request: ref('BatchRequest'),
        responses: { 200: { description: 'One ranking per query in order, or the fused ranking', schema: ref('BatchResponse') } },
      },
      'searchBatch',
    ),
    searchRoute('/text-search', ranked('textSearch', 'BM25 search of declared full-text fields', 'TextSearchRequest', { answer: 'Hits' }), 'textSearch'),
    searchRoute('/hybrid-search', ranked('hybridSearch', 'A vector and a BM25 query fused with RRF', 'HybridSearchRequest'), 'hybridSearch'),
    searchRoute(
      '/suggest',
      {
        operationId: 'suggest',
        summary: "Ranked completions from one field's full-text vocabulary",
        request: ref('SuggestRequest'),
        responses: { 200: { description: 'Completions by df descending, then term', schema: ref('SuggestResult') } },
      },
      'suggest',
    ),
  ];
}
