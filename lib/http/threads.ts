// HTTP threads: one server's uWebSockets.js apps on several JS threads, all accepting on one port
// (the kernel's SO_REUSEPORT balancing spreads connections over them). The thread that started the
// process leads: it spawns the others (worker_threads), hands them what they serve, answers what
// they ask of it (the whole server's metrics, a tenant store), and drains them at shutdown. What
// every thread must count together (--max-concurrent-requests) lives in shared memory.
import type { Logger } from 'pino';
import { MessageChannel, type MessagePort, Worker, parentPort } from 'node:worker_threads';

/** A metric as prom-client's getMetricsAsJSON() gives it (enough of it to merge). */
export interface MetricJson {
  name: string;
  aggregator?: string;
  values: unknown[];
}

/** What the leader sends a worker thread. */
type ToWorker =
  | { type: 'serve'; what: unknown }
  | { type: 'close'; graceMs: number }
  | { type: 'metrics'; id: number }
  | { type: 'abort' }
  | { type: 'answer'; id: number; answer: Answer };
/** What a worker thread sends the leader. */
type ToLeader =
  | { type: 'listening' }
  | { type: 'closed' }
  | { type: 'aborted' }
  | { type: 'died'; error: string }
  | { type: 'metrics'; id: number; metrics: MetricJson[] }
  | { type: 'ask'; id: number; kind: string; payload: unknown };

/** The leader's answer to an ask: its value, or the error it failed with (message and, if it has one, status). */
type Answer = { value: unknown } | { error: { message: string; status?: number } };

/** What the leader answers the other threads' asks (HttpThread.ask), by kind: the whole server's /metrics, a tenant store. */
export class Answers {
  private readonly handlers = new Map<string, (payload: unknown) => unknown>();

  on(kind: string, handler: (payload: unknown) => unknown): void {
    this.handlers.set(kind, handler);
  }

  async run(kind: string, payload: unknown): Promise<Answer> {
    try {
      const handler = this.handlers.get(kind);
      if (!handler) throw new Error(`no answer to ${kind} on the leading thread`);
      return { value: await handler(payload) };
    } catch (err) {
      const { message, status } = err as { message?: string; status?: number };
      return { error: { message: String(message ?? err), ...(typeof status === 'number' && { status }) } };
    }
  }
}

/** Counters every thread of a server shares: index 0 the requests admitted now (the shed hook). */
export const sharedCounters = (): Int32Array => new Int32Array(new SharedArrayBuffer(4 * 1));

/**
 * A port between every two of `count` threads: for each thread (0 the leader), its ports to the
 * others by their number (what a Relay sends over).
 */
export function portMesh(count: number): Map<number, MessagePort>[] {
  const mesh = Array.from({ length: count }, () => new Map<number, MessagePort>());
  for (let a = 0; a < count; a++)
    for (let b = a + 1; b < count; b++) {
      const { port1, port2 } = new MessageChannel();
      mesh[a].set(b, port1);
      mesh[b].set(a, port2);
    }
  return mesh;
}

/** One request/answer exchange at a time per id over a port. */
class Asks<T> {
  private next = 1;
  private readonly waiting = new Map<number, (answer: T) => void>();

  ask(send: (id: number) => void): Promise<T> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      send(id);
    });
  }

  answer(id: number, value: T): void {
    const resolve = this.waiting.get(id);
    this.waiting.delete(id);
    resolve?.(value);
  }
}

/** The leader's side: the worker threads it started. */
export class HttpThreads {
  private readonly workers: Worker[] = [];
  private readonly metricAsks = new Asks<MetricJson[]>();
  private closing = false;
  private listening = 0;
  /** Per worker, resolves once it has exited: whatever waits on it ends with it. */
  private readonly ended = new Map<Worker, Promise<void>>();

  /**
   * Starts `count` worker threads, numbered from 1, running `entry` with `workerData(index)` (ports
   * in it go in `transfer`). A thread that dies, or exits before close(), takes the process down
   * (exit 1, logged): never a half-serving server. `answers` answers the workers' asks.
   */
  constructor(
    entry: string,
    count: number,
    workerData: (index: number) => { data: unknown; transfer: MessagePort[] },
    private readonly logger: Logger,
    private readonly answers: Answers,
    private readonly onListening: () => void,
  ) {
    for (let i = 1; i <= count; i++) {
      const { data, transfer } = workerData(i);
      const worker = new Worker(entry, { workerData: data, transferList: transfer });
      worker.on('message', (m: ToLeader) => this.received(worker, m));
      this.ended.set(worker, new Promise((resolve) => worker.once('exit', () => resolve())));
      worker.on('error', (err) => void this.fatal(i, err));
      worker.on('exit', (code) => {
        if (!this.closing) void this.fatal(i, new Error(`exited with code ${code}`));
      });
      this.workers.push(worker);
    }
  }

  /** Hands every worker thread what it serves (a shared store); one still starting reads it once it listens for messages. */
  serve(what: unknown): void {
    for (const worker of this.workers) send(worker, { type: 'serve', what });
  }

  /** Every worker thread's metrics, as JSON. */
  gather(): Promise<MetricJson[][]> {
    // A thread that has ended (shutdown), or ends before it answers, counts nothing more.
    const asked = this.workers.map((worker) =>
      Promise.race([this.metricAsks.ask((id) => send(worker, { type: 'metrics', id })), this.endOf(worker).then(() => [])]),
    );
    return Promise.all(asked);
  }

  /** Stops every worker thread's server (in-flight requests get `graceMs`), then the threads. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            void this.endOf(worker).then(resolve);
            worker.on('message', (m: ToLeader) => {
              if (m.type === 'closed') void worker.terminate();
            });
            send(worker, { type: 'close', graceMs });
          }),
      ),
    );
  }

  private endOf(worker: Worker): Promise<void> {
    return this.ended.get(worker) as Promise<void>;
  }

  private received(worker: Worker, m: ToLeader): void {
    if (m.type === 'listening') {
      if (++this.listening === this.workers.length) this.onListening();
    } else if (m.type === 'died') void this.fatal(this.workers.indexOf(worker) + 1, new Error(m.error));
    else if (m.type === 'metrics') this.metricAsks.answer(m.id, m.metrics);
    else if (m.type === 'ask') void this.answers.run(m.kind, m.payload).then((answer) => send(worker, { type: 'answer', id: m.id, answer }));
  }

  /**
   * A thread failed (`index`; 0 the leader itself): logged, every worker thread closes its
   * connections (a thread ending with one open aborts the process), then exit 1. A worker that does
   * not answer within a second is left to that.
   */
  async fatal(index: number, err: Error): Promise<never> {
    this.closing = true;
    this.logger.fatal({ err, thread: index }, 'an HTTP thread died; exiting');
    const closed = this.workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          worker.on('message', (m: ToLeader) => m.type === 'aborted' && resolve());
          void this.endOf(worker).then(resolve);
          send(worker, { type: 'abort' });
        }),
    );
    await Promise.race([Promise.all(closed), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    process.exit(1);
  }
}

const send = (port: Worker | MessagePort, message: ToWorker | ToLeader) => port.postMessage(message);

/** What a worker thread's server does when its leader asks. */
export interface WorkerSide {
  /** Serve this (what the leader's HttpThreads.serve handed over). */
  serve(what: unknown): void;
  /** This thread's metrics. */
  metrics(): Promise<MetricJson[]>;
  /** Stop accepting and finish in-flight requests within graceMs. */
  close(graceMs: number): Promise<void>;
  /** Close every connection now: the process is exiting. */
  abort(): void;
}

/** A worker thread's side: answers its leader, and asks it (`ask`) for what only the leader holds. */
export class HttpThread {
  private readonly port: MessagePort;
  private readonly asks = new Asks<Answer>();

  /**
   * An error nothing caught ends this thread's serving at once (its connections closed) and the
   * leader takes the process down, logging it.
   */
  constructor(private readonly side: WorkerSide) {
    if (!parentPort) throw new Error('HttpThread runs on a worker thread');
    this.port = parentPort;
    this.port.on('message', (m: ToWorker | ToLeader) => this.received(m));
    const died = (err: unknown) => {
      side.abort();
      send(this.port, { type: 'died', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    };
    process.on('uncaughtException', died);
    process.on('unhandledRejection', died);
  }

  /** Tells the leader this thread accepts connections. */
  listening(): void {
    send(this.port, { type: 'listening' });
  }

  /**
   * Asks the leader (its Answers' handler of `kind`); rejects with an Error carrying the status
   * the leader's failure had, if any.
   */
  async ask(kind: string, payload?: unknown): Promise<unknown> {
    const answer = await this.asks.ask((id) => send(this.port, { type: 'ask', id, kind, payload }));
    if ('value' in answer) return answer.value;
    throw Object.assign(new Error(answer.error.message), answer.error.status === undefined ? {} : { status: answer.error.status });
  }

  private received(m: ToWorker | ToLeader): void {
    if (m.type === 'serve') this.side.serve(m.what);
    else if (m.type === 'metrics') void this.side.metrics().then((metrics) => send(this.port, { type: 'metrics', id: m.id, metrics }));
    else if (m.type === 'answer') this.asks.answer(m.id, m.answer);
    else if (m.type === 'close') void this.side.close(m.graceMs).then(() => send(this.port, { type: 'closed' }));
    else if (m.type === 'abort') {
      this.side.abort();
      send(this.port, { type: 'aborted' });
    }
  }
}
