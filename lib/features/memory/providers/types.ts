// What a provider client offers the memory routes, and the knobs they may turn.

export interface Embedder {
  /** "kind:model@url" identity with no secret, stored as collection metadata svc.embedder */
  readonly identity: string;
  /**
   * Embeds texts in order; one Float32Array per text. Rejects with ProviderError when the provider
   * fails (never with part of the answer), or with the signal's reason when `signal` aborts.
   */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface Summarizer {
  readonly identity: string;
  /** A short summary of text. Rejects like Embedder.embed. */
  summarize(text: string, signal?: AbortSignal): Promise<string>;
}

export interface Reranker {
  readonly identity: string;
  /** Relevance score of each document for query, in the documents' order (provider's own scale). */
  rerank(query: string, documents: string[], signal?: AbortSignal): Promise<number[]>;
}

export interface ProviderOptions {
  /** The store's vector dimension: an embedder answering vectors of another length is refused. */
  dimension?: number;
  /** Budget of one HTTP request, its retries included (default 30000). */
  timeoutMs?: number;
  /** Retries of a 429, a 5xx or a reset connection (default 3). */
  maxRetries?: number;
  /** Requests one client has in flight at most (default 4). */
  concurrency?: number;
  /** Texts per embedding request and documents per rerank request (default 64; tei 32, its server's limit; cohere and jina 1000). */
  batchSize?: number;
  /** Where the API key variables are read (default process.env). */
  env?: NodeJS.ProcessEnv;
}
