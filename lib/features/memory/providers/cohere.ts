// The rerank API of Cohere, which Jina's follows: POST /v1/rerank.
import { field, scoresByIndex } from './answers';
import type { RerankApi } from './rerank';

/** Cohere's limit of documents per request. */
export const COHERE_BATCH = 1000;

export const cohereRerank = (model: string): RerankApi => ({
  path: '/v1/rerank',
  // top_n = every document: the store wants all the scores, not the provider's best few.
  body: (query, documents) => ({ model, query, documents, top_n: documents.length, return_documents: false }),
  scores: (answer, count) => scoresByIndex(field(answer, 'results'), count, 'relevance_score'),
  shape: '{results: [{index, relevance_score}]}',
});
