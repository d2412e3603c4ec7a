// Relay: a request handed from the HTTP thread that received it to the thread that owns the state it
// addresses (an MCP session lives on the thread that opened it), over a message port between the
// two. The owner runs its handler on a stand-in of the request and sends the reply back, a streamed
// body piece by piece; the receiving thread answers the client, so its hooks count the request
// once. A client that leaves (or a deadline) cancels the owner's work too.
import type { MessagePort } from 'node:worker_threads';
import type { Logger } from 'pino';
import { type ErrorStatus, HttpError, answerFor } from './errors';
import type { PieceSource, Reply } from './reply';
import { Request, type RequestParts } from './request';

/** Serves one kind of relayed request on its owner thread. */
export type RelayedHandler = (req: Request) => Promise<Reply>;

type Head = { status: number; contentType?: string; headers?: Record<string, string> };
/** What the receiving thread sends the owner. */
type Ask = { t: 'ask'; id: number; kind: string; parts: RequestParts } | { t: 'cancel'; id: number };
/** What the owner sends back. */
type Answer =
  | { t: 'body'; id: number; head: Head; body: Uint8Array | string | null }
  | { t: 'stream'; id: number; head: Head }
  | { t: 'piece'; id: number; bytes: Uint8Array }
  | { t: 'end'; id: number }
  | { t: 'error'; id: number; status: number; body: Record<string, unknown>; headers: Record<string, string> };

/** The owning thread stopped before answering: a write may have been applied there, so only a read is retryable. */
const gone = (writes: boolean) =>
  writes
    ? new HttpError(
        503,
        'the HTTP thread running this request stopped (server shutting down) before answering; the write may have been applied: read before retrying',
        {
          retryable: false,
        },
      )
    : new HttpError(503, 'the HTTP thread holding this state has stopped (server shutting down)', { retryable: true }, { 'Retry-After': '1' });

/**
 * Pieces that arrive by message, handed out as the response asks for them. A stream the owner could
 * not finish fails (`fail`): the response is cut, never ended as if complete.
 */
class ArrivingPieces implements PieceSource {
  private readonly queue: (Uint8Array | null)[] = [];
  private waiting: { resolve: (piece: Uint8Array | null) => void; reject: (err: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor(private readonly onClose: () => void) {}

  push(piece: Uint8Array | null): void {
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve(piece);
    } else this.queue.push(piece);
  }

  fail(err: Error): void {
    this.failure = err;
    if (this.waiting) {
      const { reject } = this.waiting;
      this.waiting = null;
      reject(err);
    }
  }

  next(): Promise<Uint8Array | null> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift() as Uint8Array | null);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  close(): void {
    this.onClose();
  }
}

/** A relayed request waiting on its owner: its reply, then (for a stream) its pieces. */
interface Pending {
  owner: number;
  /** The relayed request writes: a lost owner's 503 is then not retryable. */
  writes: boolean;
  reply: (reply: Reply) => void;
  fail: (err: Error) => void;
  pieces: ArrivingPieces | null;
}

export class Relay {
  private readonly handlers = new Map<string, { handler: RelayedHandler; done?: (req: Request) => void }>();
  private readonly pending = new Map<number, Pending>();
  /** Relayed requests this thread runs for others, by peer and id. */
  private readonly running = new Map<string, Request>();
  private nextId = 1;
  /** Called once `running` empties (drain). */
  private onIdle: (() => void) | null = null;

  /**
   * `index` is this thread's number (0 the leader); `peers` a port to each other thread by number.
   */
  constructor(
    readonly index: number,
    private readonly peers: ReadonlyMap<number, MessagePort>,
    private readonly logger: Logger,
    private readonly statusOf: ErrorStatus,
  ) {
    for (const [peer, port] of peers) {
      port.on('message', (m: Ask | Answer) => (m.t === 'ask' || m.t === 'cancel' ? this.asked(peer, port, m) : this.answered(m)));
      port.on('close', () => this.lost(peer));
      port.unref();
    }
  }

  /** Runs `handler` for requests of `kind` other threads relay here; `done` once each is answered, its stream ended. */
  serve(kind: string, handler: RelayedHandler, done?: (req: Request) => void): void {
    this.handlers.set(kind, { handler, done });
  }

  /** Whether `owner` names another thread of this server. */
  elsewhere(owner: number): boolean {
    return owner !== this.index && this.peers.has(owner);
  }

  /** Hands `req` (its body read) to thread `owner`'s handler of `kind`; its reply, answered here. */
  forward(owner: number, kind: string, req: Request): Promise<Reply> {
    const port = this.peers.get(owner);
    if (!port) return Promise.reject(gone(req.writes));
    const id = this.nextId++;
    return new Promise<Reply>((reply, fail) => {
      this.pending.set(id, { owner, writes: req.writes, reply, fail, pieces: null });
      // The ask goes first: a port keeps order, so a cancel (at once, for a request already
      // abandoned) always finds it running on the owner.
      port.postMessage({ t: 'ask', id, kind, parts: req.parts() } satisfies Ask);
      req.cancelWith({
        cancel: () => {
          port.postMessage({ t: 'cancel', id } satisfies Ask);
          this.failPending(id, new HttpError(499, 'the request was cancelled'));
        },
      });
    });
  }

  private answered(m: Answer): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.t === 'error') {
      const { error, ...fields } = m.body;
      this.failPending(m.id, new HttpError(m.status, String(error), fields, m.headers));
    } else if (m.t === 'body') {
      this.pending.delete(m.id);
      p.reply({ status: m.head.status, contentType: m.head.contentType ?? 'application/json', headers: m.head.headers, body: m.body ?? '' } as Reply);
    } else if (m.t === 'stream') {
      p.pieces = new ArrivingPieces(() => this.pending.delete(m.id));
      p.reply({ status: m.head.status, contentType: m.head.contentType ?? 'application/octet-stream', headers: m.head.headers, pieces: p.pieces });
    } else {
      p.pieces?.push(m.t === 'piece' ? m.bytes : null);
      if (m.t === 'end') this.pending.delete(m.id);
    }
  }

  private asked(peer: number, port: MessagePort, m: Ask): void {
    const key = `${peer}/${m.id}`;
    if (m.t === 'cancel') {
      this.running.get(key)?.abort(new Error('the client went away'));
      return;
    }
    const req = Request.relayed(m.parts, this.logger);
    this.running.set(key, req);
    const send = (answer: Answer) => port.postMessage(answer);
    const served = this.handlers.get(m.kind);
    (served ? served.handler(req) : Promise.reject(new HttpError(404, `no relayed handler for ${m.kind}`)))
      .then(async (reply) => {
        if (!('pieces' in reply)) {
          const { status, headers } = reply;
          send({
            t: 'body',
            id: m.id,
            head: { status, headers, contentType: 'contentType' in reply ? reply.contentType : undefined },
            body: 'body' in reply ? reply.body : null,
          });
          return;
        }
        send({ t: 'stream', id: m.id, head: { status: reply.status, contentType: reply.contentType, headers: reply.headers } });
        try {
          for (let piece = await reply.pieces.next(64 * 1024); piece !== null; piece = await reply.pieces.next(64 * 1024))
            send({ t: 'piece', id: m.id, bytes: piece });
        } finally {
          reply.pieces.close();
        }
        send({ t: 'end', id: m.id });
      })
      .catch((err) => {
        const answer = answerFor(err, req.id, this.statusOf);
        if (answer.unexpected) req.log.error({ err }, 'relayed request failed');
        send({ t: 'error', id: m.id, status: answer.status, body: answer.body, headers: answer.headers });
      })
      .finally(() => {
        this.running.delete(key);
        served?.done?.(req);
        if (this.running.size === 0) this.onIdle?.();
      });
  }

  /**
   * Resolves once no request another thread relayed here is running, or after graceMs, when the
   * rest are cancelled: a thread that stops (shutdown) first finishes what it runs for others.
   */
  async drain(graceMs: number): Promise<void> {
    if (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise<void>((resolve) => (this.onIdle = resolve)), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    for (const req of this.running.values()) req.abort(new Error('the server is shutting down'));
  }

  /** A peer stopped: whatever waits on it answers 503, a stream under way is cut. */
  private lost(peer: number): void {
    for (const [id, p] of this.pending) if (p.owner === peer) this.failPending(id, gone(p.writes));
  }

  /** Ends a relayed request with `err`: a stream under way is cut, one not yet answered answers it. */
  private failPending(id: number, err: Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (p.pieces) p.pieces.fail(err);
    else p.fail(err);
  }
}
