// What the HTTP benches are built from: server processes forked and awaited, a bare
// uWebSockets.js endpoint to compare the service with, `post` for loading, and a raw keep-alive
// client that sends one request at a time.
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

/** A keep-alive connection sending one request at a time; `send` resolves once the whole answer arrived. */
export async function connection(port: number, route: string, bodies: string[]) {
  const requests = bodies.map((b) =>
    Buffer.from(`POST ${route} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`),
  );
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise((resolve) => socket.once('connect', resolve));
  let pending: { resolve: () => void; buf: string } | null = null;
  socket.on('data', (chunk: Buffer) => {
    if (!pending) return;
    pending.buf += chunk.toString('latin1');
    const head = pending.buf.indexOf('\r\n\r\n');
    if (head < 0) return;
    const length = Number(/content-length: (\d+)/i.exec(pending.buf.slice(0, head))?.[1] ?? 0);
    if (pending.buf.length - head - 4 >= length) pending.resolve();
  });
  return {
    send: (i: number) =>
      new Promise<void>((resolve) => {
        pending = { resolve, buf: '' };
        socket.write(requests[((i % requests.length) + requests.length) % requests.length]);
      }),
    close: () => socket.destroy(),
  };
}
