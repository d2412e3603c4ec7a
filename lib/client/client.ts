// TesseraClient: the HTTP API as typed calls, one method per route, named as the library's Store
// names them. Built on fetch with no dependencies: Int and DateTime values come back as bigint
// (and bigint goes out as digits), each call takes an AbortSignal, a shed 503 is retried after
// its Retry-After, and a failure rejects with the library's StoreError.
import { parseExact } from '../exact_json';
import type { CodeSearchRequest, CodeSearchResponse } from '../features/code/requests';
import type { RecallRequest, RememberRequest, RememberResponse } from '../features/memory/requests';
import { bodyBytes } from '../store/body';
import { cancelledError, StoreError } from '../store/errors';
import type {
  AggregateRequest,
  AggregateResult,
  BatchRequest,
  BatchResponse,
  ClusterStatus,
  Filter,
  FilterIndexEntry,
  FtsFieldEntry,
  Hit,
  HybridSearchRequest,
  ListRequest,
  NamespaceEntry,
  PlannedHits,
  RecordInput,
  SearchRequest,
  SimilarRequest,
  Stats,
  StoredRecord,
  SuggestRequest,
  SuggestResult,
  TextSearchRequest,
  Versions,
} from '../types';

export interface ClientOptions {
  /** The server's base URL, e.g. `http://localhost:8080`; a tenant of a --namespaced server: `http://host:8080/ns/acme`. */
  url: string;
  /** The server's --token, sent as `Authorization: Bearer`. */
  token?: string;
  /** How many times one call retries a shed 503 (default 3). Nothing else is retried: a 504's work may still be running. */
  retries?: number;
  /** The fetch to send with (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

/** What every call takes, as the library's calls take CallOptions. */
export interface RequestOptions {
  /** Aborting rejects the call with a StoreError whose `cancelled` is true (status 499), as the library does. */
  signal?: AbortSignal;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The wait a shed answer asks for: Retry-After in seconds, or an HTTP date. */
function retryAfterMs(value: string): number {
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? 1000 : Math.max(0, at - Date.now());
}

/** Resolves after `ms`, or rejects as cancelled when the signal fires first. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The StoreError of a failed answer: the server's `error` message, else the body's text. */
function failure(status: number, text: string): StoreError {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body?.error === 'string') return new StoreError(status, body.error);
  } catch {
    // not JSON: the text says what happened
  }
  return new StoreError(status, text || `HTTP ${status}`);
}

/** The shed answer (spec, retry rule 1): 503 with Retry-After and `retryable: true`. */
function isShed(status: number, headers: Headers, text: string): boolean {
  if (status !== 503 || !headers.has('retry-after')) return false;
  try {
    return (JSON.parse(text) as { retryable?: unknown }).retryable === true;
  } catch {
    return false;
  }
}

const name = (s: string) => encodeURIComponent(s);

/** Routes that answer for the whole process: a --namespaced server serves them without the tenant prefix. */
export const PROCESS_ROUTES: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics', '/openapi.json', '/namespaces']);

export class TesseraClient {
  private readonly base: string;
  /** The base without a tenant's `/ns/{namespace}`, for PROCESS_ROUTES. */
  private readonly root: string;
  private readonly headers: Record<string, string>;
  private readonly retries: number;
  private readonly fetch: typeof globalThis.fetch;

  constructor(options: ClientOptions | string) {
    const { url, token, retries = 3, fetch = globalThis.fetch } = typeof options === 'string' ? { url: options } : options;
    this.base = url.replace(/\/+$/, '');
    this.root = this.base.replace(/\/ns\/[^/]+$/, '');
    this.headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
    this.retries = retries;
    this.fetch = fetch;
  }

  /** One call: the answer's text on a 2xx; a shed 503 retried after its Retry-After; any other failure a StoreError. */
  private async send(method: Method, path: string, body: object | Uint8Array | undefined, o: RequestOptions = {}): Promise<string> {
    const payload = body === undefined ? undefined : bodyBytes(body);
    const headers = payload === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' };
    for (let attempt = 0; ; attempt++) {
      let status: number;
      let answer: Headers;
      let text: string;
      try {
        const res = await this.fetch((PROCESS_ROUTES.has(path) ? this.root : this.base) + path, {
          method,
          headers,
          body: payload as Uint8Array<ArrayBuffer> | undefined,
          signal: o.signal,
        });
        status = res.status;
        answer = res.headers;
        text = await res.text();
      } catch (e) {
        throw o.signal?.aborted ? cancelledError() : e;
      }
      if (status < 300) return text;
      if (attempt >= this.retries || !isShed(status, answer, text)) throw failure(status, text);
      await pause(retryAfterMs(answer.get('retry-after') ?? '1'), o.signal);
    }
  }

  /** A call answering JSON, Int and DateTime values as bigint. */
  private async json<T>(method: Method, path: string, body?: object | Uint8Array, o?: RequestOptions): Promise<T> {
    return parseExact<T>(await this.send(method, path, body, o));
  }

  /** GET /health: `ok` while live; a poisoned store rejects with 503. */
  health(o?: RequestOptions): Promise<string> {
    return this.send('GET', '/health', undefined, o);
  }

  /** GET /ready: `ok` when the instance can serve; otherwise rejects with 503 saying why. */
  ready(o?: RequestOptions): Promise<string> {
    return this.send('GET', '/ready', undefined, o);
  }

  /** GET /metrics: the Prometheus text exposition. */
  metrics(o?: RequestOptions): Promise<string> {
    return this.send('GET', '/metrics', undefined, o);
  }

  /** GET /openapi.json: the OpenAPI 3.1 description of the server's routes. */
  openApi(o?: RequestOptions): Promise<Record<string, unknown>> {
    return this.json('GET', '/openapi.json', undefined, o);
  }

  /** GET /namespaces: a --namespaced root's tenants (any other server rejects with 404). */
  namespaces(o?: RequestOptions): Promise<NamespaceEntry[]> {
    return this.json('GET', '/namespaces', undefined, o);
  }

  stats(o?: RequestOptions): Promise<Stats> {
    return this.json('GET', '/stats', undefined, o);
  }

  cluster(o?: RequestOptions): Promise<ClusterStatus> {
    return this.json('GET', '/cluster', undefined, o);
  }

  versions(o?: RequestOptions): Promise<Versions> {
    return this.json('GET', '/versions', undefined, o);
  }

  collections(o?: RequestOptions): Promise<string[]> {
    return this.json('GET', '/collections', undefined, o);
  }

  createCollection(collection: string, o?: RequestOptions): Promise<{ created: string }> {
    return this.json('POST', `/collections/${name(collection)}`, undefined, o);
  }

  dropCollection(collection: string, o?: RequestOptions): Promise<{ dropped: string }> {
    return this.json('DELETE', `/collections/${name(collection)}`, undefined, o);
  }

  getMeta(collection: string, o?: RequestOptions): Promise<Record<string, string>> {
    return this.json('GET', `/collections/${name(collection)}/meta`, undefined, o);
  }

  /** Replaces the collection's metadata wholesale. */
  putMeta(collection: string, meta: Record<string, string>, o?: RequestOptions): Promise<{ ok: true }> {
    return this.json('PUT', `/collections/${name(collection)}/meta`, meta, o);
  }

  setVectorNames(collection: string, names: string[], o?: RequestOptions): Promise<{ ok: true }> {
    return this.json('POST', `/collections/${name(collection)}/vector-names`, { names }, o);
  }

  setFilterIndex(collection: string, fields: FilterIndexEntry[], o?: RequestOptions): Promise<{ ok: true }> {
    return this.json('POST', `/collections/${name(collection)}/filter-index`, { fields }, o);
  }

  setFtsSchema(collection: string, fields: FtsFieldEntry[], o?: RequestOptions): Promise<{ ok: true }> {
    return this.json('POST', `/collections/${name(collection)}/fts-schema`, { fields }, o);
  }

  aliases(o?: RequestOptions): Promise<Record<string, string>> {
    return this.json('GET', '/aliases', undefined, o);
  }

  putAlias(alias: string, target: string, o?: RequestOptions): Promise<{ alias: string; target: string }> {
    return this.json('PUT', `/aliases/${name(alias)}`, { target }, o);
  }

  dropAlias(alias: string, o?: RequestOptions): Promise<{ dropped: string }> {
    return this.json('DELETE', `/aliases/${name(alias)}`, undefined, o);
  }

  /** Inserts or overwrites records by id; the batch is all-or-nothing. */
  upsert(collection: string, body: { records: RecordInput[] } | Uint8Array, o?: RequestOptions): Promise<{ upserted: number }> {
    return this.json('POST', `/collections/${name(collection)}/upsert`, body, o);
  }

  /** Deletes by ids, or by filter (which wins when both are sent). */
  delete(collection: string, body: { ids?: string[]; filter?: Filter } | Uint8Array, o?: RequestOptions): Promise<{ deleted: number }> {
    return this.json('POST', `/collections/${name(collection)}/delete`, body, o);
  }

  /** Every live record of the collection. */
  records(collection: string, o?: RequestOptions): Promise<StoredRecord[]> {
    return this.json('GET', `/collections/${name(collection)}/records`, undefined, o);
  }

  search(body: SearchRequest & { plan: true }, o?: RequestOptions): Promise<PlannedHits>;
  search(body: SearchRequest | Uint8Array, o?: RequestOptions): Promise<Hit[]>;
  search(body: SearchRequest | Uint8Array, o?: RequestOptions): Promise<Hit[] | PlannedHits> {
    return this.json('POST', '/search', body, o);
  }

  searchSimilar(body: SimilarRequest & { plan: true }, o?: RequestOptions): Promise<PlannedHits>;
  searchSimilar(body: SimilarRequest | Uint8Array, o?: RequestOptions): Promise<Hit[]>;
  searchSimilar(body: SimilarRequest | Uint8Array, o?: RequestOptions): Promise<Hit[] | PlannedHits> {
    return this.json('POST', '/search/similar', body, o);
  }

  searchBatch(body: BatchRequest | Uint8Array, o?: RequestOptions): Promise<BatchResponse> {
    return this.json('POST', '/search/batch', body, o);
  }

  textSearch(body: TextSearchRequest | Uint8Array, o?: RequestOptions): Promise<Hit[]> {
    return this.json('POST', '/text-search', body, o);
  }

  hybridSearch(body: HybridSearchRequest & { plan: true }, o?: RequestOptions): Promise<PlannedHits>;
  hybridSearch(body: HybridSearchRequest | Uint8Array, o?: RequestOptions): Promise<Hit[]>;
  hybridSearch(body: HybridSearchRequest | Uint8Array, o?: RequestOptions): Promise<Hit[] | PlannedHits> {
    return this.json('POST', '/hybrid-search', body, o);
  }

  suggest(body: SuggestRequest | Uint8Array, o?: RequestOptions): Promise<SuggestResult> {
    return this.json('POST', '/suggest', body, o);
  }

  /** POST /code-search (feature code). */
  codeSearch(body: CodeSearchRequest | Uint8Array, o?: RequestOptions): Promise<CodeSearchResponse> {
    return this.json('POST', '/code-search', body, o);
  }

  list(body: ListRequest | Uint8Array = {}, o?: RequestOptions): Promise<Hit[]> {
    return this.json('POST', '/list', body, o);
  }

  aggregate(body: AggregateRequest | Uint8Array = {}, o?: RequestOptions): Promise<AggregateResult> {
    return this.json('POST', '/aggregate', body, o);
  }

  /** POST /query: SELECT statements (docs/sql.md); one statement answers its typed route's answer, a script an array of them. */
  query(sql: string, options: { compileOnly?: boolean } = {}, o?: RequestOptions): Promise<unknown> {
    return this.json('POST', '/query', { sql, compile_only: options.compileOnly === true }, o);
  }

  flush(o?: RequestOptions): Promise<{ ok: true }> {
    return this.json('POST', '/flush', undefined, o);
  }

  /** With `expired`, first deletes every entry whose svc.expires_at has passed; then compacts. */
  compact(body: { expired?: boolean } | Uint8Array = {}, o?: RequestOptions): Promise<{ ok: true }> {
    return this.json('POST', '/compact', body, o);
  }

  refresh(o?: RequestOptions): Promise<{ adopted: boolean }> {
    return this.json('POST', '/refresh', undefined, o);
  }

  /** POST /collections/{name}/remember (feature memory). */
  remember(collection: string, body: RememberRequest | Uint8Array, o?: RequestOptions): Promise<RememberResponse> {
    return this.json('POST', `/collections/${name(collection)}/remember`, body, o);
  }

  /** POST /collections/{name}/recall (feature memory). */
  recall(collection: string, body: RecallRequest | Uint8Array, o?: RequestOptions): Promise<Hit[]> {
    return this.json('POST', `/collections/${name(collection)}/recall`, body, o);
  }
}
