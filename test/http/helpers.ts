import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { prng } from '../core/helpers';
import { apiDescription, contractViolation } from './contract';
import { until } from '../harness/until';

export const CLI = path.resolve(__dirname, '../../lib/cli/main.js');

export interface Server {
  url: string;
  port: number;
  proc: ChildProcess;
  /** Everything the server wrote to stderr so far (its log). */
  stderr(): string;
  /** Sends the signal and resolves the exit code once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** What runs when the test process exits (one listener for all: a file may start many servers). */
const atExit: (() => void)[] = [];
process.once('exit', () => {
  for (const undo of atExit) undo();
});
// ava stops a test file that runs past its timeout with SIGTERM, which skips 'exit' listeners:
// exiting here runs them, so no server the file started outlives it.
process.once('SIGTERM', () => process.exit(143));

/** A fresh directory under the OS temp dir, removed when the test process exits. */
export function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-http-'));
  atExit.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the CLI to completion (for flag and help checks), as another user when `as` says so. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  as: { uid?: number; gid?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, ...as });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    // 'close', not 'exit': exit can fire before the last stdout/stderr chunks are read.
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The package as `TESSERA_FEATURES=<features> npm run compile` builds it, in a fresh directory: the
 * same compiled files, the feature list written by scripts/features.js. Answers its CLI's path.
 */
export function packageBuiltWith(features: string): string {
  const root = path.resolve(__dirname, '../../..');
  const pkg = tempDir();
  cpSync(path.join(root, 'dist'), path.join(pkg, 'dist'), { recursive: true });
  for (const file of ['package.json', 'CMakeLists.txt']) cpSync(path.join(root, file), path.join(pkg, file));
  mkdirSync(path.join(pkg, 'scripts'));
  cpSync(path.join(root, 'scripts/features.js'), path.join(pkg, 'scripts/features.js'));
  symlinkSync(path.join(root, 'node_modules'), path.join(pkg, 'node_modules'));
  symlinkSync(path.join(root, 'build'), path.join(pkg, 'build'));
  execFileSync(process.execPath, [path.join(pkg, 'scripts/features.js')], { env: { ...process.env, TESSERA_FEATURES: features }, stdio: 'pipe' });
  return path.join(pkg, 'dist/lib/cli/main.js');
}

/**
 * Starts `tessera serve --port 0` exactly as a user would and waits for the `listening on` line,
 * then for /ready. `args` come after the defaults, so they can add any flag; `--dimension 4` is
 * one of them unless `defaultDimension` is false.
 */
export async function startServer(
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  { waitReady = true, cli = CLI, defaultDimension = true } = {},
): Promise<Server> {
  apiDescription(); // built now, while the server starts, so that no timed request pays for it
  const hasData = args.includes('--data') || args.includes('--in-memory');
  const defaults = ['--port', '0', '--log-level', 'warn', ...(hasData ? [] : ['--data', tempDir()])];
  if (defaultDimension && !args.includes('--dimension')) defaults.push('--dimension', '4');
  // CI runs the HTTP suites a second time on one HTTP thread (the default is one per CPU).
  const threads = process.env.TESSERA_TEST_HTTP_THREADS;
  if (threads && !args.includes('--http-threads')) defaults.push('--http-threads', threads);
  const proc = spawn(process.execPath, [cli, 'serve', ...defaults, ...args], { env: { ...process.env, ...env } });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code))); // after stdio drained
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`server did not listen within 15s; stderr:\n${stderr}`)), 15_000);
    proc.stdout!.on('data', (d) => {
      stdout += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\n/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening; stderr:\n${stderr}`)));
  });
  // A server that dies on its own fails the test that holds it; its log says why (under npm run
  // test:asan, a sanitizer's report).
  let signalled = false;
  void exited.then((code) => {
    if (!signalled) console.error(`tessera serve exited on its own (code ${code}, signal ${proc.signalCode}); its stderr:\n${stderr}`);
  });
  const server: Server = {
    url: `http://127.0.0.1:${port}`,
    port,
    proc,
    stderr: () => stderr,
    stop: (signal = 'SIGKILL') => {
      if (proc.exitCode === null && proc.signalCode === null) {
        signalled = true;
        proc.kill(signal);
      }
      return exited;
    },
  };
  atExit.push(() => proc.kill('SIGKILL'));
  if (waitReady) await untilReady(server);
  return server;
}

/**
 * A Reader: a second server on a store a running writer (started with `args`, filled through
 * `seed`, then flushed) holds the writer lock of. Both are returned, the writer to keep it held.
 */
export async function readerServer(args: string[], seed: (writer: Server) => Promise<unknown>): Promise<{ writer: Server; reader: Server }> {
  const data = tempDir();
  const writer = await startServer([...args, '--data', data]);
  await seed(writer);
  await call(writer, 'POST', '/flush');
  return { writer, reader: await startServer([...args, '--data', data]) };
}

/** A `--read-only` server over a fresh store that a writer started with `args` filled through `seed` first. */
export async function readOnlyServer(args: string[], seed: (writer: Server) => Promise<unknown>): Promise<Server> {
  const data = tempDir();
  const writer = await startServer([...args, '--data', data]);
  await seed(writer);
  await writer.stop('SIGTERM');
  return startServer([...args, '--data', data, '--read-only']);
}

export async function untilReady(server: Server, timeoutMs = 15_000): Promise<void> {
  await until(async () => (await fetch(`${server.url}/ready`).catch(() => null))?.status === 200, `server ready; stderr:\n${server.stderr()}`, timeoutMs);
}

export { sleep, until } from '../harness/until';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: response JSON; each test reads the fields it asserts
  json: any;
}

/**
 * One request; `body` objects are sent as JSON, strings and bytes as they are. An answer the API
 * description does not allow for the route and status (./contract.ts) rejects, failing the test
 * that made the request.
 */
export async function call(server: Pick<Server, 'url'>, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = body === undefined || typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const res = await fetch(server.url + path, { method, body: payload as BodyInit | undefined, headers });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const requestText = payload === undefined ? undefined : typeof payload === 'string' ? payload : Buffer.from(payload as Uint8Array).toString('utf8');
  const violation = contractViolation(method, path, requestText, res.status, res.headers.get('content-type') ?? '', text);
  if (violation) throw new Error(`contract: ${violation}`);
  return { status: res.status, headers: res.headers, text, json };
}

/** A deterministic PRNG, so a failing fuzz case can be replayed from its seed. */
export { prng };

/** Random unit vectors, as upsert records `{id, vector}` with ids `${prefix}${i}`. */
export function unitRecords(n: number, dim: number, rand = prng(1), prefix = 'r'): { id: string; vector: number[] }[] {
  return Array.from({ length: n }, (_, i) => {
    const v = Array.from({ length: dim }, () => rand() * 2 - 1);
    const norm = Math.hypot(...v) || 1;
    return { id: `${prefix}${i}`, vector: v.map((x) => Math.round((x / norm) * 1e6) / 1e6) };
  });
}

/**
 * A request whose body is written by the test at its own pace (node:http, chunked unless
 * `contentLength` is given). The response promise never rejects: a reset connection yields status 0.
 */
export function openRequest(server: Pick<Server, 'url'>, method: string, path: string, contentLength?: number) {
  const headers: Record<string, string | number> = contentLength === undefined ? {} : { 'content-length': contentLength };
  const req = http.request(`${server.url}${path}`, { method, headers, agent: false });
  const response = new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', () => resolve({ status: 0, headers: {}, text: '' }));
  });
  req.flushHeaders();
  return { req, response };
}

/**
 * On a server at --max-concurrent-requests 1: a POST to `path` whose body stays open after
 * `firstChunk`, once it holds the only slot (a GET /collections is shed). The GET that checks can
 * reach the server first and shed the upload instead; such an upload is opened again.
 */
export async function uploadHoldingTheSlot(server: Pick<Server, 'url'>, path: string, firstChunk: string) {
  for (let attempt = 1; ; attempt++) {
    const held = openRequest(server, 'POST', path);
    held.req.write(firstChunk);
    let answered = false;
    held.response.then(() => (answered = true));
    await until(async () => answered || (await call(server, 'GET', '/collections')).status === 503, `the upload to ${path} holds the slot`);
    if (!answered) return held;
    held.req.destroy();
    if (attempt === 5) throw new Error(`the upload to ${path} was answered ${attempt} times before it held the slot: ${(await held.response).status}`);
  }
}
