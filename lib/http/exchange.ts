// Exchange: one request/response pair over uWebSockets.js: body reading within the limit, the
// deadline, the reply (whole or streamed with backpressure) and error answers.
import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from 'uWebSockets.js';
import type { Deadline, Deadlines, Expiring } from './deadlines';
import { type ErrorStatus, HttpError, answerFor } from './errors';
import type { Reply } from './reply';
import type { Request } from './request';

type StreamedReply = Extract<Reply, { pieces: unknown }>;

/** Recorded when the client left before the response was complete (nginx's convention). */
export const CLIENT_GONE = 499;

const PIECE_BYTES = 64 * 1024;

const statusLines = new Map<number, string>();
const statusLine = (status: number): string => {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
};

/**
 * One request/response pair over a uWebSockets.js response, which must never be touched after the
 * client aborted or after it was ended; every write goes through here to keep that promise.
 */
export class Exchange implements Expiring {
  private state: 'pending' | 'streaming' | 'done' = 'pending';
  /** Its index among the server's exchanges in flight. */
  slot = -1;
  /** Set when body bytes are left unread on the wire: the connection cannot be reused. */
  private closeAfterReply = false;
  private wakeWriter: (() => void) | null = null;
  private stopReading: ((reason: Error) => void) | null = null;
  private deadline: Deadline | undefined;
  private timeoutError: (() => HttpError) | null = null;

  constructor(
    private readonly res: HttpResponse,
    readonly req: Request,
    private readonly finished: (status: number) => void,
    private readonly errorStatus: ErrorStatus,
  ) {
    res.onAborted(() => {
      if (this.state === 'done') return;
      this.settle();
      this.cancel(new Error('client went away'));
      finished(CLIENT_GONE);
    });
  }

  /** Stops the request's work: the body still arriving, and the core's call through the request's signal. */
  private cancel(reason: Error): void {
    this.stopReading?.(reason);
    this.req.abort(reason);
  }

  /** Abandons the request with `err` once its deadline passes. It covers the time to the status line: a stream is paced by its reader. */
  expireAfter(deadlines: Deadlines, err: () => HttpError): void {
    this.deadline?.cancel(); // a request its body made a write moves to the write timeout
    this.timeoutError = err;
    this.deadline = deadlines.add(this);
  }

  /** The deadline passed (Expiring). */
  expire(): void {
    if (this.timeoutError) this.abandon(this.timeoutError());
  }

  /** Refuses a declared Content-Length above the limit before a byte of the body is read. */
  checkDeclaredLength(limit: number): void {
    const declared = this.req.contentLength;
    if (declared !== null && declared > limit) throw this.tooLarge(limit);
  }

  /**
   * Reads the whole body into `done`, or calls `failed` with the 413 as soon as it is known to exceed
   * `limit` (or with the reason the request was stopped meanwhile); exactly one of them runs, from
   * uWebSockets.js's data callback, so a handler that answers at once answers there. With a declared
   * length the chunks are copied straight into one buffer of that size: no concatenation at the
   * end, whose copy of a large body (a page fault every 4 KiB on a VM) held the event loop for
   * hundreds of milliseconds at once.
   */
  readBody(limit: number, done: (body: Buffer) => void, failed: (err: unknown) => void): void {
    const declared = this.req.contentLength;
    const whole = declared !== null && declared > 0 ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    let received = 0;
    let over = false;
    const fail = (err: unknown) => {
      if (over) return;
      over = true;
      failed(err);
    };
    this.stopReading = fail;
    this.res.onData((chunk, isLast) => {
      if (over || this.state !== 'pending') return;
      const bytes = new Uint8Array(chunk);
      if (received + bytes.byteLength > limit) return fail(this.tooLarge(limit));
      // uWebSockets.js neuters the chunk when this callback returns: copy it.
      if (whole) {
        // uWebSockets.js frames a body by its Content-Length: more cannot arrive.
        if (received + bytes.byteLength > whole.byteLength) return fail(new HttpError(400, 'the body is longer than its Content-Length'));
        whole.set(bytes, received);
      } else {
        chunks.push(Buffer.from(bytes));
      }
      received += bytes.byteLength;
      if (!isLast) return;
      over = true;
      this.stopReading = null;
      if (whole) done(received === whole.byteLength ? whole : whole.subarray(0, received));
      else done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    });
  }

  private tooLarge(limit: number): HttpError {
    this.closeAfterReply = true;
    return new HttpError(413, `request body exceeds --max-body-bytes (${limit} bytes)`);
  }

  /** Answers with `reply`; a whole body is handed to the socket before this returns, a stream is a promise. */
  send(reply: Reply): Promise<void> | undefined {
    if ('pieces' in reply) return this.stream(reply);
    if ('body' in reply) this.end(reply.status, reply.contentType, reply.body, reply.headers ?? {});
    else this.endWithoutBody(reply.status, reply.headers);
  }

  /**
   * Answers with the error's mapped status. A cancellation the core reports after a timeout or a
   * client abort finds the exchange settled already, and is dropped here.
   */
  fail(err: unknown): void {
    if (this.state !== 'pending') return;
    const answer = answerFor(err, this.req.id, this.errorStatus);
    if (answer.unexpected) this.req.log.error({ err }, 'request failed');
    else if (answer.status >= 500) this.req.log.warn({ status: answer.status, error: answer.body.error }, 'request refused');
    this.end(answer.status, 'application/json', JSON.stringify(answer.body), answer.headers);
  }

  /** Gives up on the request: the core's work is cancelled and `err` answers it, or cuts a stream short. */
  abandon(err: HttpError): void {
    if (this.state === 'done') return;
    // Cancelling a body still being read answers err at once (readBody's failed): judge by the state before.
    const pending = this.state === 'pending';
    this.cancel(err);
    if (pending) this.fail(err);
    else this.cut(err.status);
  }

  /** Leaves the pending state: nothing may answer the request any more. */
  private settle(next: 'streaming' | 'done' = 'done'): void {
    this.deadline?.cancel();
    this.state = next;
    // A stream waiting for the socket to drain must see that it was cut short.
    if (next === 'done') this.wakeWriter?.();
  }

  /** Closes the connection mid-stream, the only way left to tell the client the body is incomplete. */
  private cut(status: number): void {
    this.settle();
    this.res.close();
    this.finished(status);
  }

  /**
   * Sends a whole answer. What the socket does not take at once is not copied into uWS's buffer:
   * it goes out from `bytes` as the socket drains, and the request counts as finished (its slot
   * held) until then. A client that pipelines requests and never reads its answers therefore
   * holds one answer, not all of them: uWebSockets.js closes the connection when the next
   * pipelined request arrives while this answer is still pending.
   */
  private end(status: number, contentType: string, body: string | Uint8Array, headers: Record<string, string>): void {
    if (this.state !== 'pending') return;
    this.settle('streaming');
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    let start = 0;
    let done = false;
    this.res.cork(() => {
      this.head(status, contentType, headers);
      if (this.closeAfterReply) {
        this.res.end(bytes, true);
        done = true;
        return;
      }
      start = this.res.getWriteOffset();
      done = this.res.tryEnd(bytes, bytes.byteLength)[1];
    });
    if (done) {
      this.sent(status);
      return;
    }
    this.res.onWritable((offset) => {
      const [ok, ended] = this.res.tryEnd(bytes.subarray(offset - start), bytes.byteLength);
      if (ended) this.sent(status);
      return ok;
    });
  }

  /**
   * A status line and headers only (a 304). Called without arguments, uWebSockets.js writes no
   * Content-Length (an explicit `undefined` is read as a garbage length). closeAfterReply is set
   * only on a 413, so it never applies here.
   */
  private endWithoutBody(status: number, headers: Record<string, string>): void {
    if (this.state !== 'pending') return;
    this.settle('streaming');
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      this.res.writeHeader('X-Request-Id', this.req.id);
      for (const k in headers) this.res.writeHeader(k, headers[k]);
      this.res.endWithoutBody();
    });
    this.sent(status);
  }

  /** The last byte of the answer was handed to the socket. */
  private sent(status: number): void {
    this.settle();
    this.finished(status);
  }

  private head(status: number, contentType: string, headers: Record<string, string>): void {
    this.res.writeStatus(statusLine(status));
    this.res.writeHeader('X-Request-Id', this.req.id);
    this.res.writeHeader('Content-Type', contentType);
    for (const k in headers) this.res.writeHeader(k, headers[k]);
  }

  /**
   * Streams pieces with backpressure: the next piece is fetched only once the socket drained.
   * The first piece is fetched before the status line so an early error still gets a clean answer.
   */
  private async stream({ status, contentType, pieces, headers = {} }: StreamedReply): Promise<void> {
    // Whether this stream wrote the status line. Before it does, 'streaming' is another answer's
    // (a 504 given meanwhile, waiting for the socket), which a failed piece must leave alone.
    let begun = false;
    try {
      let piece = await pieces.next(PIECE_BYTES);
      if (this.state !== 'pending') return;
      this.settle('streaming');
      begun = true;
      this.res.cork(() => this.head(status, contentType, headers));
      while (piece !== null) {
        const drained = this.write(piece);
        if (!drained) await this.untilWritable();
        if (!this.streaming()) return;
        piece = await pieces.next(PIECE_BYTES);
        if (!this.streaming()) return;
      }
      this.settle();
      this.res.cork(() => this.res.end());
      this.finished(status);
    } catch (err) {
      if (this.state === 'pending') throw err;
      if (begun && this.streaming()) {
        this.req.log.error({ err }, 'response stream failed');
        this.cut(500);
      }
    } finally {
      pieces.close();
    }
  }

  /** A method, not a property test: TypeScript must not carry narrowing of `state` across awaits. */
  private streaming(): boolean {
    return this.state === 'streaming';
  }

  private write(piece: Uint8Array): boolean {
    let ok = false;
    this.res.cork(() => (ok = this.res.write(piece)));
    return ok;
  }

  private untilWritable(): Promise<void> {
    return new Promise((resolve) => {
      this.wakeWriter = resolve;
      this.res.onWritable(() => {
        this.wakeWriter = null;
        resolve();
        return true;
      });
    });
  }
}
