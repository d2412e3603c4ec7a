// A reranker over an HTTP API: batching, and the check that each answer scores every document once.
import { inBatches } from './batches';
import type { HttpClient } from './transport';
import type { Reranker } from './types';

/** One rerank API: its request, and the scores in its answer. */
export interface RerankApi {
  path: string;
  body(query: string, documents: string[]): unknown;
  /** One score per document in the documents' order, or undefined when the answer does not cover each once. */
  scores(answer: unknown, count: number): number[] | undefined;
  shape: string;
}

export class HttpReranker implements Reranker {
  readonly identity: string;

  constructor(
    private readonly client: HttpClient,
    private readonly api: RerankApi,
    private readonly batchSize: number,
  ) {
    this.identity = client.identity;
  }

  rerank(query: string, documents: string[], signal?: AbortSignal): Promise<number[]> {
    return inBatches(documents, this.batchSize, signal, async (batch, s) => {
      const answer = await this.client.post(this.api.path, this.api.body(query, batch), s);
      const scores = this.api.scores(answer, batch.length);
      if (!scores) throw this.client.malformed(`${this.api.shape} scoring each of the ${batch.length} documents once`, answer);
      return scores;
    });
  }
}
