// What the HTTP benches are built from: server processes forked and awaited (`tessera serve` with
// its readiness, gauges and shutdown), a bare uWebSockets.js endpoint to compare the service with,
// `post` and `call` for loading, and a raw keep-alive client that sends one request at a time.
import { type ChildProcess, fork } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import uWS from 'uWebSockets.js';

/** The `tessera` command line, compiled beside this file (or the source when run through tsx). */
export const CLI = path.join(__dirname, '..', 'lib', 'cli', `main${path.extname(__filename)}`);

export interface Server {
  url: string;
  port: number;
  proc: ChildProcess;
}

/** Forks `script` with `args` (and `env` added to this process's) and resolves its base URL once it prints its port. */
export function start(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const proc = fork(script, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (?:on )?(?:http:\/\/127\.0\.0\.1:)?(\d+)/.exec(out);
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}`, port: Number(m[1]), proc });
    });
    proc.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

/** A `tessera serve` process: its base URL, port, and its exit (code). */
export interface Serving extends Server {
  exited: Promise<number | null>;
}

/** `tessera serve` on `data`, resolved once it prints its listening line. */
export function serve(data: string, extra: string[] = []): Promise<Serving> {
  const proc = fork(CLI, ['serve', '--data', data, '--port', '0', '--log-level', 'warn', ...extra], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve({ url: m[1], port: Number(new URL(m[1]).port), proc, exited });
    });
    void exited.then((code) => reject(new Error(`tessera serve --data ${data} exited with ${code} before listening: ${out}`)));
  });
}

export async function untilReady(url: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/ready`).catch(() => null);
    if (res?.status === 200) return;
    await res?.text();
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** SIGTERM (the server flushes and closes its store), then its exit, which must be 0. */
export async function stop(server: Serving): Promise<void> {
  server.proc.kill('SIGTERM');
  const code = await server.exited;
  if (code !== 0) throw new Error(`the server exited with ${code}`);
}

/** A request whose answer must be 200; resolves its JSON. */
export async function call<T>(url: string, method: string, body?: string): Promise<T> {
  const res = await fetch(url, { method, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** The store gauges and counters of /metrics, by name. */
export async function metrics(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(svc_[a-z_]+) ([\d.e+-]+)$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** Answers every POST with as many bytes as the path was given at start (path=bytes arguments). */
export function serveBare(sizes: string[]): void {
  const bodies = new Map(sizes.map((s) => s.split('=')).map(([p, n]) => [p, Buffer.alloc(Number(n), 'x')]));
  uWS
    .App()
    .post('/*', (res, req) => {
      const body = bodies.get(req.getUrl()) ?? Buffer.alloc(0);
      let aborted = false;
      res.onAborted(() => (aborted = true));
      res.onData((_chunk, isLast) => {
        if (isLast && !aborted) res.cork(() => res.writeHeader('Content-Type', 'application/json').end(body));
      });
    })
    .listen('127.0.0.1', 0, (socket) => {
      if (socket) console.log(`listening ${uWS.us_socket_local_port(socket)}`);
    });
}

/** POSTs a body and resolves the answer's text; anything but 200 throws. */
export async function post(url: string, body: string): Promise<string> {
  const r = await fetch(url, { method: 'POST', body });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${text}`);
  return text;
}

/** A keep-alive connection sending one request at a time; `send` resolves the answer's body once all of it arrived. */
export async function connection(port: number, route: string, bodies: string[]) {
  const requests = bodies.map((b) =>
    Buffer.from(`POST ${route} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`),
  );
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise((resolve) => socket.once('connect', resolve));
  let pending: { resolve: (body: string) => void; buf: string } | null = null;
  socket.on('data', (chunk: Buffer) => {
    if (!pending) return;
    pending.buf += chunk.toString('latin1');
    const head = pending.buf.indexOf('\r\n\r\n');
    if (head < 0) return;
    const length = Number(/content-length: (\d+)/i.exec(pending.buf.slice(0, head))?.[1] ?? 0);
    if (pending.buf.length - head - 4 >= length) pending.resolve(pending.buf.slice(head + 4, head + 4 + length));
  });
  return {
    send: (i: number) =>
      new Promise<string>((resolve) => {
        pending = { resolve, buf: '' };
        socket.write(requests[((i % requests.length) + requests.length) % requests.length]);
      }),
    close: () => socket.destroy(),
  };
}
