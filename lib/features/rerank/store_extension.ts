// Feature `rerank` on the library: a ranked read whose body asks for `rerank` is taken over here
// (the candidates ranked by the core, then re-scored by the store's rerank provider), every other
// body goes to the core unparsed.
import { StoreError } from '../../store/errors';
import { bodyBytes } from '../../store/body';
import { requestBody } from '../../store/request_body';
import { installExtension, type RawRead } from '../../store/store';
import { hasFeature } from '../built';
import { createReranker, fromSpecs, type Reranker, signalOf } from '../memory/providers';
import { mayRerank, reranked, rerankerOrRefuse } from './rerank';
import { rerankerOf, rerankers } from './rerankers';

/** What `rerank.query` falls back to when left out, given the rest of the body. */
type RerankQuery = (rest: Record<string, unknown>) => string | undefined;
const noQuery: RerankQuery = () => undefined;

/** The routes that take `rerank`, each with its query fallback: the single field + query spelling of /text-search reads that query. */
const RERANKED_ROUTES: Partial<Record<RawRead, RerankQuery>> = {
  search: noQuery,
  textSearch: (b) => (b.clauses === undefined && typeof b.query === 'string' ? b.query : undefined),
  hybridSearch: noQuery,
};

const reranker = (spec: string | undefined): Reranker | null => fromSpecs(() => (spec ? createReranker(spec) : null));

installExtension({
  name: 'rerank',
  feature: 'rerank',
  enabled: hasFeature('rerank'),
  options: ['rerankProvider'],
  check(options) {
    if (!hasFeature('rerank') && options.rerankProvider) throw new StoreError(400, 'rerankProvider needs a build with feature rerank');
    reranker(options.rerankProvider);
  },
  open(store, _internals, options) {
    rerankers.set(store, reranker(options.rerankProvider));
  },
  read(store, route, body, run, o) {
    const ownQuery = RERANKED_ROUTES[route];
    if (!ownQuery || !mayRerank(body)) return undefined;
    return (async () => {
      const parsed = requestBody(body);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !('rerank' in parsed)) return run(body);
      const { rerank, ...rest } = parsed as Record<string, unknown>;
      if (rerank === null) return run(bodyBytes(rest));
      return reranked(parsed as Record<string, unknown>, async (b) => run(bodyBytes(b)), rerankerOrRefuse(rerankerOf(store)), ownQuery(rest), signalOf(o));
    })();
  },
});
