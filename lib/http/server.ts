// HttpServer: the uWebSockets.js server: dispatches each request through the hooks, deadline,
// body reader and route, and closes gracefully.
import uWS from 'uWebSockets.js';
import type { Logger } from 'pino';
import { Deadlines } from './deadlines';
import { type ErrorStatus, HttpError } from './errors';
import { Exchange } from './exchange';
import type { Hook } from './hooks';
import { Request } from './request';
import type { Reply } from './reply';
import { type Method, type Route, allowedMethods, paramNames, uwsPattern } from './route';
import { type DescribeMalformed, parseJson } from './schema';

export interface ServerOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  readTimeoutMs: number;
  writeTimeoutMs: number;
  /** Cross-cutting concerns, run in this order. */
  hooks: Hook[];
  logger: Logger;
  /** Status of the errors the routes' library raises (lib/api's `storeErrorStatus`). */
  errorStatus: ErrorStatus;
  /** The 400 message of a route body that is not JSON (default: JSON.parse's words). */
  describeMalformed?: DescribeMalformed;
}

const VERBS = { GET: 'get', POST: 'post', PUT: 'put', DELETE: 'del' } as const;

const shuttingDown = () => new HttpError(503, 'server is shutting down', { retryable: true }, { 'Retry-After': '1' });

export class HttpServer {
  private readonly app = uWS.App();
  private listenSocket: uWS.us_listen_socket | null = null;
  /**
   * The exchanges dispatched and not yet finished, each knowing its index (Exchange.slot): adding
   * and removing cost no hashing, where a Set's shrinking and regrowing as load comes and goes
   * showed at tens of thousands of requests a second.
   */
  private readonly inFlight: Exchange[] = [];
  private closing = false;
  private onIdle: (() => void) | null = null;
  private readonly readDeadlines: [Deadlines, () => HttpError];
  private readonly writeDeadlines: [Deadlines, () => HttpError];
  private readonly methodsOf: (path: string) => Method[];

  constructor(
    private readonly routes: Route[],
    private readonly options: ServerOptions,
  ) {
    const deadlines = (flag: string, ms: number, fate: string): [Deadlines, () => HttpError] => [
      new Deadlines(ms),
      () => new HttpError(504, `request exceeded ${flag} (${ms}ms); ${fate}`, { retryable: false }),
    ];
    this.readDeadlines = deadlines('--read-timeout', options.readTimeoutMs, 'the work was cancelled');
    // A write past its commit point finishes: the client cannot tell from the 504 which it was.
    this.writeDeadlines = deadlines('--write-timeout', options.writeTimeoutMs, 'the write was cancelled unless it had already committed: read before retrying');
    for (const route of routes) {
      const names = paramNames(route.path);
      this.app[VERBS[route.method]](uwsPattern(route.path), (res, req) => this.dispatch(res, req, route, names));
    }
    this.methodsOf = allowedMethods(routes);
    this.app.any('/*', (res, req) => this.dispatch(res, req, null, []));
  }

  /**
   * Resolves the bound port (useful with port 0). The port is taken exclusively: by default uWS sets
   * SO_REUSEPORT, so a second server on a busy port would "listen" beside the first and take a share
   * of its connections instead of failing to start. A server served by several HTTP threads
   * (`sharing`): the leader ('lead') first takes the port exclusively, so that a busy one still
   * fails, and at once takes it again shared; each other thread ('join') then shares it too, and
   * the kernel spreads connections over them.
   */
  async listen(sharing?: 'lead' | 'join'): Promise<number> {
    const exclusive = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;
    if (sharing === undefined) return this.bind(this.options.port, exclusive);
    if (sharing === 'join') return this.bind(this.options.port, 0);
    const port = await this.bind(this.options.port, exclusive);
    uWS.us_listen_socket_close(this.listenSocket as uWS.us_listen_socket);
    return this.bind(port, 0);
  }

  private bind(port: number, options: number): Promise<number> {
    // uWS takes (host, port, options, cb) and exports the option at its top level; its typings
    // declare neither.
    const app = this.app as unknown as { listen(host: string, port: number, options: number, cb: (socket: uWS.us_listen_socket | false) => void): void };
    return new Promise((resolve, reject) => {
      app.listen(this.options.host, port, options, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${this.options.host}:${port} (is the port in use?)`));
        this.listenSocket = socket;
        resolve(uWS.us_socket_local_port(socket));
      });
    });
  }

  /** Requests dispatched and not yet answered. */
  get inFlightRequests(): number {
    return this.inFlight.length;
  }

  /**
   * Stops accepting, lets in-flight requests finish for up to `graceMs`, then cancels the rest, and
   * closes every connection. Requests still arriving on open keep-alive connections meanwhile are
   * refused with 503.
   */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    if (this.listenSocket) uWS.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
    for (const route of this.routes) route.close?.();
    const idle = new Promise<void>((resolve) => (this.onIdle = resolve));
    if (this.inFlight.length > 0) {
      const timer = setTimeout(() => {
        for (const ex of [...this.inFlight]) ex.abandon(shuttingDown());
      }, graceMs);
      await idle;
      clearTimeout(timer);
    }
    this.closeConnections();
  }

  /**
   * Closes the listening socket and every connection now, answering nothing more. A worker thread
   * must, before it ends: one ending with a socket open aborts the whole process (Node's check of
   * its event loop at teardown). uWebSockets.js has App.close since v20.27; its typings lack it.
   */
  closeConnections(): void {
    this.listenSocket = null;
    (this.app as unknown as { close(): void }).close();
  }

  private dispatch(res: uWS.HttpResponse, raw: uWS.HttpRequest, route: Route | null, names: string[]): void {
    const req = new Request(raw, route?.path ?? null, names, this.options.logger, route?.headers);
    const ex = new Exchange(res, req, (status) => this.finished(ex, status), this.options.errorStatus);
    ex.slot = this.inFlight.push(ex) - 1;
    try {
      if (this.closing) throw shuttingDown();
      for (const hook of this.options.hooks) hook.onRequest?.(req, route);
      if (route === null) throw this.noRoute(req);
      ex.checkDeclaredLength(this.options.maxBodyBytes);
      req.writes = route.access === 'write';
      if (route.access !== 'probe') ex.expireAfter(...this.deadline(route));
      this.run(ex, route);
    } catch (err) {
      ex.fail(err);
    }
  }

  /**
   * Body, then handler. The body reader is set up before this returns (uWebSockets.js needs onData
   * set inside its callback), and the handler runs where the last chunk arrives: a reply the route
   * gives at once (a read the core ran inline) is written there, with no promise per request.
   */
  private run(ex: Exchange, route: Route): void {
    if (!route.body) {
      this.handle(ex, route);
      return;
    }
    ex.readBody(
      this.options.maxBodyBytes,
      (bytes) => {
        ex.req.bytes = bytes;
        this.handle(ex, route);
      },
      (err) => ex.fail(err),
    );
  }

  private handle(ex: Exchange, route: Route): void {
    const { req } = ex;
    try {
      if (route.body && route.body !== 'raw') req.body = parseJson(req.bytes, route.body, this.options.describeMalformed);
      if (route.writeWhen?.(req)) {
        req.writes = true;
        for (const hook of this.options.hooks) hook.onWrite?.(req);
        ex.expireAfter(...this.writeDeadlines);
      } else if (route.writeTimeoutWhen?.(req)) {
        ex.expireAfter(...this.writeDeadlines);
      }
      const reply = route.handle(req);
      if (reply instanceof Promise)
        reply.then(
          (r) => this.send(ex, r),
          (err) => ex.fail(err),
        );
      else this.send(ex, reply);
    } catch (err) {
      ex.fail(err);
    }
  }

  private send(ex: Exchange, reply: Reply): void {
    try {
      ex.send(reply)?.catch((err) => ex.fail(err));
    } catch (err) {
      ex.fail(err);
    }
  }

  /** 405 naming the methods a known path answers, else 404. */
  private noRoute(req: Request): HttpError {
    const allowed = this.methodsOf(req.path);
    if (allowed.length === 0 || allowed.includes(req.method as Method)) return new HttpError(404, `no route for ${req.method} ${req.path}`);
    const allow = allowed.join(', ');
    return new HttpError(405, `${req.method} is not allowed on ${req.path}; it answers ${allow}`, {}, { Allow: allow });
  }

  private deadline(route: Route): [Deadlines, () => HttpError] {
    return route.access === 'write' ? this.writeDeadlines : this.readDeadlines;
  }

  private finished(ex: Exchange, status: number): void {
    if (ex.slot < 0) return; // once per exchange: a second call would take another's place in inFlight
    const last = this.inFlight.pop() as Exchange;
    if (last !== ex) {
      this.inFlight[ex.slot] = last;
      last.slot = ex.slot;
    }
    ex.slot = -1;
    for (const hook of this.options.hooks) hook.onResponse?.(ex.req, status);
    if (this.inFlight.length === 0) this.onIdle?.();
  }
}
