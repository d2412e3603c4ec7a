// Search routes: vector (/search, /search/similar, /search/batch) and full text (/text-search,
// /hybrid-search, /suggest), counted and timed by the QueryAccounting they share with /query.
import type { RawRead } from '../store/store';
import type { Request } from '../http/request';
import { type Route, type RouteDoc, route } from '../http/route';
import { ref } from '../route_kit/components';
import type { StoreSlot } from '../route_kit/slot';
import type { QueryAccounting } from '../route_kit/query_accounting';

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
