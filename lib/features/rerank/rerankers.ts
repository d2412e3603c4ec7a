// Each open store's rerank provider (null: none configured), set by rerank's store extension and
// read by every ranked read that asks for rerank, recall's included.
import { ExtensionState } from '../../store/extension';
import type { Store } from '../../store/store';
import type { Reranker } from '../memory/providers';

export const rerankers = new ExtensionState<Reranker | null>('rerank');

/** The store's rerank provider, or null when none is configured (or the feature is not built). */
export const rerankerOf = (store: Store): Reranker | null => rerankers.find(store) ?? null;
