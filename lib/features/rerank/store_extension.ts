// Feature `rerank` on the library: a ranked read whose body may ask for `rerank` is read in two
// phases (the core ranks the window, the store's rerank provider scores it, the core writes the
// page: ./rerank.ts); every other body goes to the core's plain read, unparsed.
import type { RerankedRead } from '../../contract/routes';
import { StoreError } from '../../store/errors';
import { ExtensionState, type StoreInternals } from '../../store/extension';
import { installExtension, type RawRead } from '../../store/store';
import { hasFeature } from '../built';
import { createReranker, fromSpecs, type Reranker } from '../memory/providers';
import { mayRerank, reranked } from './rerank';
import { rerankerOf, rerankers } from './rerankers';

/** The routes that take `rerank`. */
const RERANKED: readonly RawRead[] = ['search', 'textSearch', 'hybridSearch'] satisfies RerankedRead[];

const reranker = (spec: string | undefined): Reranker | null => fromSpecs(() => (spec ? createReranker(spec) : null));

/** Whether a read is the extension's: a ranked route whose body may ask for rerank. */
const takes = (route: RawRead, body: Uint8Array): boolean => RERANKED.includes(route) && mayRerank(body);

/** Each store's internals: where its reranked reads open their windows. */
const internalsOf = new ExtensionState<StoreInternals>('rerank');

installExtension({
  name: 'rerank',
  feature: 'rerank',
  enabled: hasFeature('rerank'),
  options: ['rerankProvider'],
  check(options) {
    if (!hasFeature('rerank') && options.rerankProvider) throw new StoreError(400, 'rerankProvider needs a build with feature rerank');
    reranker(options.rerankProvider);
  },
  open(store, internals, options) {
    rerankers.set(store, reranker(options.rerankProvider));
    internalsOf.set(store, internals);
  },
  takes,
  read(store, route, body, o) {
    if (!takes(route, body)) return undefined;
    return (async () => {
      const window = await internalsOf.of(store, 'rerank').rerankWindow(route as RerankedRead, body, o);
      return reranked(window, () => rerankerOf(store), o);
    })();
  },
});
