/**
 * Provider clients for the memory routes: embedders, summarizers and rerankers named by a SPEC, as
 * given to `--embed-provider`, `--summarize-provider` and `--rerank-provider` (Store.open options
 * embedProvider, summarizeProvider, rerankProvider).
 *
 * SPEC is `KIND:MODEL@URL` for a provider reached over HTTP, where URL is http(s), may carry a path
 * prefix and gets the API path appended:
 *
 * | role      | KIND   | API                                                         | example                                                      |
 * |-----------|--------|-------------------------------------------------------------|--------------------------------------------------------------|
 * | embed     | openai | POST /v1/embeddings (OpenAI and compatible servers)         | openai:text-embedding-3-small@https://api.openai.com         |
 * | embed     | ollama | POST /api/embed                                             | ollama:nomic-embed-text@http://localhost:11434               |
 * | embed     | tei    | POST /embed (text-embeddings-inference; MODEL optional)     | tei@http://localhost:8080                                    |
 * | embed     | hash   | offline, `hash:DIM` (DIM defaults to the store's dimension) | hash:384                                                     |
 * | summarize | openai | POST /v1/chat/completions                                   | openai:gpt-4o-mini@https://api.openai.com                    |
 * | summarize | ollama | POST /api/chat                                              | ollama:llama3.2@http://localhost:11434                       |
 * | summarize | extractive | offline, `extractive:N` sentences (default 3)         | extractive                                                   |
 * | rerank    | cohere | POST /v1/rerank                                             | cohere:rerank-v3.5@https://api.cohere.com                    |
 * | rerank    | jina   | POST /v1/rerank                                             | jina:jina-reranker-v2-base-multilingual@https://api.jina.ai  |
 * | rerank    | tei    | POST /rerank (text-embeddings-inference; MODEL optional)    | tei@http://localhost:8080                                    |
 *
 * API keys come only from TESSERA_EMBED_API_KEY, TESSERA_SUMMARIZE_API_KEY and TESSERA_RERANK_API_KEY
 * (sent as `Authorization: Bearer`), never from the SPEC; an identity (`kind:model@url`) holds no key.
 * hash is lexical, not semantic; extractive picks sentences, it does not write new ones.
 *
 * Every HTTP kind shares one transport (transport.ts): embedding texts and rerank documents go in
 * batches, at most `concurrency` requests per client are in flight, each request has `timeoutMs`
 * for all its attempts, and a 429, a 5xx or a reset connection is retried with backoff (or after
 * the Retry-After the server gives) up to `maxRetries` times. A failure rejects the whole call
 * with a ProviderError; the caller's AbortSignal rejects it with the signal's reason.
 */
export { createEmbedder, createReranker, createSummarizer } from './create';
export { fromSpecs, provided, signalOf } from './call';
export { ProviderError, ProviderSpecError } from './errors';
export type { Embedder, ProviderOptions, Reranker, Summarizer } from './types';
