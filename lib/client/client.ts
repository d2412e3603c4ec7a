// TesseraClient: the HTTP API as typed calls, one method per route, named as the library's Store
// names them. Built on fetch with no dependencies: Int and DateTime values come back as bigint
// (and bigint goes out as digits), each call takes an AbortSignal, a shed 503 is retried after
// its Retry-After, and a failure rejects with the library's StoreError.
import { type OperationId, type RouteMethod, type Routes, type RouteSpec, routeArgs, routeEntries } from '../contract/routes';
import { parseExact } from '../exact_json';
import { bodyBytes } from '../store/body';
import { cancelledError, StoreError } from '../store/errors';

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

/** The routes the client calls: every route of the table but the ones it writes itself or has no method for (MCP: use an MCP client). */
type ClientRoutes = { [K in OperationId]: Routes[K] extends { client: 'own' | false } ? never : K }[OperationId];

/** The client's method of each route of the table, named by its operation id. */
type RouteMethods = { [K in ClientRoutes]: RouteMethod<Routes[K], RequestOptions> };

/** Routes that answer for the whole process: a --namespaced server serves them without the tenant prefix. */
export const PROCESS_ROUTES: ReadonlySet<string> = new Set(routeEntries().flatMap(([, r]) => (r.access === 'probe' || r.global ? [r.path] : [])));

// The route table's methods, set on the prototype by the class's static block.
export interface TesseraClient extends RouteMethods {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: its static block defines every method the interface declares.
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
  private async send(method: RouteSpec['method'], path: string, body: object | Uint8Array | undefined, o: RequestOptions = {}): Promise<string> {
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

  // Each route of the table: its path filled in from the leading arguments, each encoded as one
  // segment; then its body and the options (routeArgs).
  static {
    for (const [id, spec] of routeEntries()) {
      if (spec.client !== undefined) continue;
      Object.defineProperty(TesseraClient.prototype, id, {
        writable: true,
        value(this: TesseraClient, ...args: unknown[]) {
          const { params, body, options } = routeArgs<RequestOptions>(spec, args);
          const path = spec.path.replace(/\{\w+\}/g, () => encodeURIComponent(String(params.shift())));
          return spec.text ? this.send(spec.method, path, body, options) : this.json(spec.method, path, body, options);
        },
      });
    }
  }

  /** A call answering JSON, Int and DateTime values as bigint. */
  private async json<T>(method: RouteSpec['method'], path: string, body?: object | Uint8Array, o?: RequestOptions): Promise<T> {
    return parseExact<T>(await this.send(method, path, body, o));
  }

  /** POST /query: SELECT statements (docs/sql.md); one statement answers its typed route's answer, a script an array of them. */
  query(sql: string, options: { compileOnly?: boolean } = {}, o?: RequestOptions): Promise<unknown> {
    return this.json('POST', '/query', { sql, compile_only: options.compileOnly === true }, o);
  }
}
