import type { FileHandle } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import { NotFound, ObjectStoreError, OutcomeUnknown, PreconditionFailed, Unreachable } from './errors';
import { elements, text } from './s3_xml';
import { amzDate, authorization, type Credentials, canonicalQuery, emptyPayloadHash, sha256Hex, uriEncode } from './sigv4';

// An S3 client over node:http(s) for one bucket, path-style, signed with SigV4: the handful of
// calls cluster mode needs, with conditional writes, typed errors, a per-request timeout and
// bounded retries where a retry cannot change the outcome.

export interface ObjectStoreOptions {
  /** `http(s)://host[:port]`; path-style addressing (`/bucket/key`), as radosgw and MinIO serve by default. */
  endpoint: string;
  bucket: string;
  credentials: Credentials;
  region: string;
  /** Bound on one attempt, connect to last body byte (default 10 s). */
  timeoutMs?: number;
  /** Further attempts after a 5xx or a lost connection, for calls that are safe to repeat (default 3). */
  retries?: number;
}

/** Credentials and region from the standard AWS environment variables. */
export function awsEnvironment(env: NodeJS.ProcessEnv = process.env): { credentials: Credentials; region: string } {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('object store credentials missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  const sessionToken = env.AWS_SESSION_TOKEN || undefined;
  return { credentials: { accessKeyId, secretAccessKey, sessionToken }, region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1' };
}

export interface PutOptions {
  /** `*`: create only; 412 (PreconditionFailed) when the key exists. */
  ifNoneMatch?: '*';
  /** Replace only the object with this ETag; PreconditionFailed otherwise. */
  ifMatch?: string;
  contentType?: string;
}

export interface ObjectInfo {
  key: string;
  /** Without quotes: on radosgw the MD5 of the content for a single-part upload. */
  etag: string;
  size: number;
}

/** What every read and delete may take. */
export interface CallOptions {
  /** Abandons the call, its request in flight included; it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface ListOptions extends CallOptions {
  /** Only keys after this one (ListObjectsV2 `start-after`). */
  startAfter?: string;
  /** Keys per page. */
  maxKeys?: number;
}

export interface ListPage {
  objects: ObjectInfo[];
  /** Present when more keys follow: pass it back as `continuationToken`. */
  nextContinuationToken?: string;
}

interface Call extends CallOptions {
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE';
  key?: string;
  query?: [string, string][];
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** Safe to send again when the outcome of an attempt is unknown. */
  idempotent: boolean;
  /** A successful answer's body goes here as it arrives (a retry writes it again from the start). */
  into?: { handle: FileHandle; position: number };
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Empty when the answer went into the call's file (Call.into). */
  body: Buffer;
  /** Bytes the answer carried. */
  length: number;
}

/** Socket errors raised before a request can have reached the server: the call did nothing. */
const notSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const statusCodes: Record<number, string> = { 403: 'AccessDenied', 404: 'NoSuchKey', 412: 'PreconditionFailed' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function unquote(etag: string | undefined): string {
  return (etag ?? '').replace(/^"|"$/g, '');
}

export class ObjectStore {
  readonly bucket: string;
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly timeoutMs: number;
  private readonly retries: number;

  constructor(private readonly options: ObjectStoreOptions) {
    this.url = new URL(options.endpoint);
    this.bucket = options.bucket;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retries = options.retries ?? 3;
    const Agent = this.url.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 64 });
  }

  /** Creates the bucket; one that this user already owns counts as created. */
  async createBucket(): Promise<void> {
    try {
      await this.call({ method: 'PUT', idempotent: true });
    } catch (e) {
      if (!(e instanceof ObjectStoreError && e.code === 'BucketAlreadyOwnedByYou')) throw e;
    }
  }

  /**
   * Stores `body` at `key`. A conditional put is sent once: when no definite answer comes back it
   * rejects with OutcomeUnknown, and the caller re-reads to learn whether it landed.
   */
  async put(key: string, body: Uint8Array | string, options: PutOptions = {}): Promise<{ etag: string }> {
    const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/octet-stream' };
    if (options.ifNoneMatch) headers['if-none-match'] = options.ifNoneMatch;
    // radosgw (16.x) compares If-Match with the bare ETag: a quoted value never matches.
    if (options.ifMatch !== undefined) headers['if-match'] = unquote(options.ifMatch);
    const conditional = options.ifNoneMatch !== undefined || options.ifMatch !== undefined;
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const reply = await this.call({ method: 'PUT', key, headers, body: bytes, idempotent: !conditional });
    return { etag: unquote(reply.headers.etag) };
  }

  /**
   * The object's bytes, or those of `range` (first and last byte, inclusive; no last: to the end),
   * and the whole object's size. A range of an empty object is unsatisfiable: 416 InvalidRange.
   */
  async get(key: string, range?: { start: number; end?: number }, options: CallOptions = {}): Promise<{ body: Buffer; etag: string; size: number }> {
    const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end ?? ''}` } : {};
    const c: Call = { method: 'GET', key, headers, idempotent: true, signal: options.signal };
    const reply = await this.call(c);
    return { body: reply.body, etag: unquote(reply.headers.etag), size: this.wholeSize(c, reply) };
  }

  /**
   * The whole object's size: a partial answer names it in Content-Range ("bytes 0-99/1234"), a whole
   * one is its body. A partial answer without it is refused, as its size would be a guess.
   */
  private wholeSize(c: Call, reply: Reply): number {
    if (reply.status !== 206) return reply.length;
    const total = /\/(\d+)$/.exec(String(reply.headers['content-range'] ?? ''));
    if (total === null)
      throw new ObjectStoreError(
        `object store at ${this.url.origin}: ${this.what(c)}: 206 with no total size in Content-Range (${reply.headers['content-range'] ?? 'absent'})`,
        206,
        'NoContentRange',
      );
    return Number(total[1]);
  }

  /**
   * As `get`, but the bytes are written into `handle` from `position` as they arrive, not gathered
   * in memory: a restore's ranges of 16 MiB each cost an allocation and a page fault every 4 KiB
   * otherwise. Resolves the whole object's size.
   */
  async getInto(
    key: string,
    range: { start: number; end: number },
    handle: FileHandle,
    position: number,
    options: CallOptions = {},
  ): Promise<{ etag: string; size: number }> {
    const c: Call = {
      method: 'GET',
      key,
      headers: { range: `bytes=${range.start}-${range.end}` },
      idempotent: true,
      into: { handle, position },
      signal: options.signal,
    };
    const reply = await this.call(c);
    return { etag: unquote(reply.headers.etag), size: this.wholeSize(c, reply) };
  }

  async head(key: string, options: CallOptions = {}): Promise<ObjectInfo> {
    const reply = await this.call({ method: 'HEAD', key, idempotent: true, signal: options.signal });
    return { key, etag: unquote(reply.headers.etag), size: Number(reply.headers['content-length'] ?? 0) };
  }

  /** Deletes `key`; deleting a missing key succeeds (S3 semantics). */
  async delete(key: string, options: CallOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', key, idempotent: true, signal: options.signal });
  }

  /** One page of ListObjectsV2 under `prefix`, in key order. */
  async list(prefix: string, options: ListOptions & { continuationToken?: string } = {}): Promise<ListPage> {
    const query: [string, string][] = [
      ['list-type', '2'],
      ['prefix', prefix],
    ];
    if (options.continuationToken) query.push(['continuation-token', options.continuationToken]);
    else if (options.startAfter !== undefined) query.push(['start-after', options.startAfter]);
    if (options.maxKeys !== undefined) query.push(['max-keys', String(options.maxKeys)]);
    const xml = (await this.call({ method: 'GET', query, idempotent: true, signal: options.signal })).body.toString('utf8');
    const objects = elements(xml, 'Contents').map((c) => ({ key: text(c, 'Key') ?? '', etag: unquote(text(c, 'ETag')), size: Number(text(c, 'Size') ?? 0) }));
    const truncated = text(xml, 'IsTruncated') === 'true';
    return { objects, nextContinuationToken: truncated ? text(xml, 'NextContinuationToken') : undefined };
  }

  /** Every object under `prefix` (after `startAfter`), in key order, following continuation tokens. */
  async *listAll(prefix: string, options: ListOptions = {}): AsyncGenerator<ObjectInfo> {
    let continuationToken: string | undefined;
    do {
      const page = await this.list(prefix, { ...options, continuationToken });
      yield* page.objects;
      continuationToken = page.nextContinuationToken;
    } while (continuationToken);
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  /** Sends `c`, retrying what is safe to retry, and maps an error answer onto the error classes. */
  private async call(c: Call): Promise<Reply> {
    for (let attempt = 0; ; attempt++) {
      c.signal?.throwIfAborted();
      let failure: ObjectStoreError;
      let sent = true;
      try {
        const reply = await this.send(c);
        if (reply.status < 300) return reply;
        failure = this.answerError(c, reply);
        if (reply.status < 500) throw failure;
      } catch (e) {
        if (!(e instanceof Unreachable)) throw e;
        failure = e;
        sent = !notSentCodes.has(e.code);
      }
      if (sent && !c.idempotent)
        throw new OutcomeUnknown(`${failure.message}; the conditional write may or may not have landed`, failure.status, failure.code, { cause: failure });
      if (attempt >= this.retries) throw failure;
      await sleep(Math.min(2000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2));
    }
  }

  private what(c: Call): string {
    return `${c.method} ${this.bucket}/${c.key ?? ''}`;
  }

  private answerError(c: Call, reply: Reply): ObjectStoreError {
    const xml = reply.body.toString('utf8');
    // A HEAD answer has no body, so its code comes from the status.
    const code = text(xml, 'Code') ?? statusCodes[reply.status] ?? `HTTP${reply.status}`;
    const detail = text(xml, 'Message');
    let message = `object store at ${this.url.origin}: ${this.what(c)}: ${reply.status} ${code}${detail ? `: ${detail}` : ''}`;
    if (reply.status === 403) message += ' (check the credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)';
    if (reply.status === 412 || (reply.status === 409 && code === 'ConditionalRequestConflict')) return new PreconditionFailed(message, reply.status, code);
    if (reply.status === 404) return new NotFound(message, reply.status, code);
    return new ObjectStoreError(message, reply.status, code);
  }

  /** One attempt: the whole answer, or Unreachable when none came within the timeout. */
  private send(c: Call): Promise<Reply> {
    const body = c.body ?? new Uint8Array();
    const path = `/${uriEncode(this.bucket)}${c.key === undefined ? '' : `/${uriEncode(c.key, true)}`}`;
    const query = canonicalQuery(c.query ?? []);
    const payloadHash = body.length ? sha256Hex(body) : emptyPayloadHash;
    const headers: Record<string, string> = { ...c.headers, host: this.url.host, 'x-amz-date': amzDate(new Date()), 'x-amz-content-sha256': payloadHash };
    const { credentials, region } = this.options;
    if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
    headers.authorization = authorization({ method: c.method, path, query: c.query ?? [], headers, payloadHash }, credentials, region, 's3');
    if (c.method === 'PUT') headers['content-length'] = String(body.length);
    const request = this.url.protocol === 'https:' ? https.request : http.request;
    const origin = this.url.origin;
    const what = this.what(c);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname,
          port: this.url.port,
          method: c.method,
          path: query ? `${path}?${query}` : path,
          headers,
          agent: this.agent,
          signal: c.signal,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const into = status < 300 ? c.into : undefined;
          const chunks: Buffer[] = [];
          let written = 0;
          let writing: Promise<unknown> = Promise.resolve();
          res.on('data', (d: Buffer) => {
            if (!into) return void chunks.push(d);
            // One write at a time, the answer paused meanwhile: the socket's pace follows the disk's.
            res.pause();
            writing = into.handle.write(d, 0, d.length, into.position + written).then(() => res.resume());
            writing.catch((e: Error) => {
              clearTimeout(timer);
              req.destroy();
              reject(e);
            });
            written += d.length;
          });
          res.on('end', () => {
            clearTimeout(timer);
            const body = into ? Buffer.alloc(0) : Buffer.concat(chunks);
            writing.then(
              () => resolve({ status, headers: res.headers, body, length: into ? written : body.length }),
              () => undefined,
            );
          });
          res.on('error', fail);
        },
      );
      function fail(e: NodeJS.ErrnoException): void {
        clearTimeout(timer);
        // Abandoned by its caller: not a failure of the store, and not to be retried.
        if (c.signal?.aborted) {
          reject(c.signal.reason);
          return;
        }
        const code = e.code ?? 'ECONNRESET';
        reject(new Unreachable(`object store at ${origin}: ${what}: unreachable: ${e.message}`, 0, code));
      }
      // A bound on the whole exchange, not on socket idleness: a trickling answer counts too.
      const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${this.timeoutMs} ms`), { code: 'ETIMEDOUT' })), this.timeoutMs);
      req.on('error', fail);
      req.end(body);
    });
  }
}
