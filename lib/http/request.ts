// Request: what a hook or handler may know about one HTTP request, copied out of uWebSockets.js,
// and the cancel handles of the work it started.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { HttpRequest } from 'uWebSockets.js';
import { HttpError } from './errors';

const EMPTY = Buffer.alloc(0);

// Request ids: this process's random prefix and a counter, unique across restarts without the
// cost of a random UUID per request.
const ID_PREFIX = randomBytes(6).toString('hex');
let idCounter = 0;
const nextId = (): string => `${ID_PREFIX}-${(++idCounter).toString(36)}`;

/** A request as another HTTP thread receives it (Relay): plain data, its body read. */
export interface RequestParts {
  id: string;
  method: string;
  path: string;
  route: string;
  authorization: string;
  headers: Record<string, string>;
  params: Record<string, string>;
  bytes: Uint8Array;
  writes: boolean;
}

/** What this layer needs of a library call's cancellation: the library's own handle satisfies it. */
export interface CancelHandle {
  cancel(): void;
}

/**
 * Everything a hook or handler may know about a request. uWebSockets.js frees its request object
 * when the handler returns, so the parts we need are copied here up front.
 */
export class Request<B = unknown> {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  /** The route template (metrics label), or `unmatched`. */
  readonly route: string;
  private readonly params: Record<string, string> = {};
  readonly authorization: string;
  /** Declared Content-Length, or null for a chunked or bodiless request. */
  readonly contentLength: number | null;
  /** The headers the route asked for (RouteHead.headers) that the request sent, by lowercase name. */
  readonly headers: Readonly<Record<string, string>> = {};
  /** performance.now() when the request arrived. */
  readonly startedAt = performance.now();
  bytes: Buffer = EMPTY;
  /**
   * Counted against --max-concurrent-requests until it finishes (the shed hook): a flag here, where
   * a Set of them cost hashing, and rehashing as it grew and shrank, on every request.
   */
  admitted = false;
  /** A write: its route's access is `write`, or its body made it one (RouteHead.writeWhen). */
  writes = false;
  body!: B;
  private logger: Logger | null = null;
  private handles: CancelHandle[] | null = null;
  private abortReason: Error | null = null;

  constructor(
    raw: HttpRequest,
    route: string | null,
    paramNames: string[],
    private readonly rootLogger: Logger,
    headerNames: readonly string[] = [],
  ) {
    this.id = raw.getHeader('x-request-id') || nextId();
    this.method = raw.getCaseSensitiveMethod();
    this.path = raw.getUrl();
    this.route = route ?? 'unmatched';
    this.authorization = raw.getHeader('authorization');
    const length = raw.getHeader('content-length');
    this.contentLength = length === '' ? null : Number(length);
    for (const name of headerNames) {
      const value = raw.getHeader(name);
      if (value !== '') (this.headers as Record<string, string>)[name] = value;
    }
    paramNames.forEach((name, i) => {
      this.params[name] = raw.getParameter(i);
    });
  }

  /** This request as plain data, for the thread a Relay hands it to. */
  parts(): RequestParts {
    const { id, method, path, route, authorization, headers, params, writes } = this;
    // A copy of the body alone: a small body is a view into a shared pool, which a message would copy whole.
    return { id, method, path, route, authorization, headers, params, bytes: new Uint8Array(this.bytes), writes };
  }

  /** The stand-in, on the thread that owns what it addresses, of a request another thread received (Relay). */
  static relayed(parts: RequestParts, logger: Logger): Request {
    const own: Record<string, string> = { 'x-request-id': parts.id, authorization: parts.authorization, ...parts.headers };
    const values = Object.values(parts.params);
    const raw = {
      getHeader: (name: string) => own[name] ?? '',
      getCaseSensitiveMethod: () => parts.method,
      getUrl: () => parts.path,
      getParameter: (i: number) => values[i],
    };
    const req = new Request(raw as unknown as HttpRequest, parts.route, Object.keys(parts.params), logger, Object.keys(parts.headers));
    req.bytes = Buffer.from(parts.bytes.buffer, parts.bytes.byteOffset, parts.bytes.byteLength);
    req.writes = parts.writes;
    return req;
  }

  /** A path parameter, percent-decoded. */
  param(name: string): string {
    try {
      return decodeURIComponent(this.params[name]);
    } catch {
      throw new HttpError(400, `path parameter {${name}} is not valid percent-encoding`);
    }
  }

  /**
   * Ties `handle` to this request: it is cancelled when the client goes away or the deadline
   * passes (at once if that happened already), so the core stops the work. A plain handle, not
   * an AbortSignal, which costs more than a whole probe.
   */
  cancelWith<H extends CancelHandle>(handle: H): H {
    if (this.abortReason) {
      handle.cancel();
    } else {
      this.handles ??= [];
      this.handles.push(handle);
    }
    return handle;
  }

  /** Unties a handle whose work has finished (it may be reused for another request). */
  forget(handle: CancelHandle): void {
    const handles = this.handles ?? [];
    const i = handles.indexOf(handle);
    if (i >= 0) handles.splice(i, 1);
  }

  abort(reason: Error): void {
    if (this.abortReason) return;
    this.abortReason = reason;
    for (const handle of this.handles ?? []) handle.cancel();
  }

  /** Logger whose lines carry the request id. */
  get log(): Logger {
    this.logger ??= this.rootLogger.child({ reqId: this.id });
    return this.logger;
  }

  elapsedSeconds(): number {
    return (performance.now() - this.startedAt) / 1e3;
  }
}
