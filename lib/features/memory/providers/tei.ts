// Hugging Face text-embeddings-inference: /embed and /rerank. A TEI server serves one model, so a
// model in the SPEC only names it in the identity.
import { scoresByIndex } from './answers';
import type { EmbedApi } from './embed';
import type { RerankApi } from './rerank';

/** TEI's default --max-client-batch-size: larger requests are refused. */
export const TEI_BATCH = 32;

export const teiEmbed: EmbedApi = {
  path: '/embed',
  body: (texts) => ({ inputs: texts }),
  vectors: (answer) => (Array.isArray(answer) ? answer : undefined),
  shape: '[[...]]',
};

export const teiRerank: RerankApi = {
  path: '/rerank',
  body: (query, documents) => ({ query, texts: documents }),
  scores: (answer, count) => scoresByIndex(answer, count, 'score'),
  shape: '[{index, score}]',
};
