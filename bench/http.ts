// HTTP front benchmark: POST /search top-10 on a 1,000 x 128 store through Tessera's uWebSockets.js
// server, against (b) a bare uWebSockets.js endpoint answering the same number of bytes and
// (c) the same search behind node:http + the library. The last line of output is one JSON object.
//
// Each server runs in its own process (this file, forked with a role argument); autocannon drives
// them from this one. The three targets are measured in alternating rounds and each reports its
// best round, so a burst of unrelated load on a shared machine does not decide the ratio.
// BENCH_SECONDS sets the length of one run (default 5), BENCH_ROUNDS the number of rounds (default 3).
import { type ChildProcess, fork } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import uWS from 'uWebSockets.js';
import { Store } from '../lib/index';

const ROWS = 1_000;
const DIM = 128;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
const QUERIES = 64;

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram;
  latency: Histogram;
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  requests: { method: string; path: string; body: string; headers: Record<string, string> }[];
}) => Promise<AutocannonResult>;
const autocannon: Autocannon = require('autocannon');

/** Seeded (mulberry32) so every process builds the same store and queries. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitVector(rand: () => number): number[] {
  const v = Array.from({ length: DIM }, () => rand() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const records = () => {
  const rand = prng(1);
  return Array.from({ length: ROWS }, (_, i) => ({ id: `doc-${i}`, vector: unitVector(rand), attrs: { n: { Int: i } } }));
};

const queryBodies = () => {
  const rand = prng(2);
  return Array.from({ length: QUERIES }, () => JSON.stringify({ query: unitVector(rand), top_k: 10 }));
};

/** Reads a whole request body from uWebSockets.js, then answers with `body`. */
function serveBare(bytes: number): void {
  const body = Buffer.alloc(bytes, 'x');
  uWS
    .App()
    .post('/search', (res) => {
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

async function serveNodeHttp(): Promise<void> {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  await store.upsert('bench', { records: records() });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      store.searchJson(Buffer.concat(chunks)).then(
        (hits) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(hits),
        (err) => res.writeHead(err.status ?? 500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: err.message })),
      );
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as { port: number }).port}`));
}

/** Forks a server process and resolves its base URL once it prints its port. */
function start(args: string[], script = __filename): Promise<{ url: string; proc: ChildProcess }> {
  const proc = fork(script, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (?:on )?(?:http:\/\/127\.0\.0\.1:)?(\d+)/.exec(out);
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}`, proc });
    });
    proc.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

async function run(name: string, url: string, bodies: string[]): Promise<AutocannonResult> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: bodies.map((body) => ({ method: 'POST', path: '/search', body, headers: { 'content-type': 'application/json' } })),
  });
  if (result.non2xx || result.errors) throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  console.log(`${name.padEnd(12)} ${result.requests.average.toFixed(0).padStart(7)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`);
  return result;
}

async function main(): Promise<void> {
  const bodies = queryBodies();
  const cli = path.join(__dirname, '..', 'lib', `cli${path.extname(__filename)}`);
  const tessera = await start(['serve', '--in-memory', '--dimension', String(DIM), '--port', '0', '--log-level', 'warn'], cli);
  const servers = [tessera.proc];
  try {
    const upsert = await fetch(`${tessera.url}/collections/bench/upsert`, { method: 'POST', body: JSON.stringify({ records: records() }) });
    if (upsert.status !== 200) throw new Error(`loading the store failed: ${upsert.status} ${await upsert.text()}`);
    const sample = await fetch(`${tessera.url}/search`, { method: 'POST', body: bodies[0] });
    const responseBytes = (await sample.arrayBuffer()).byteLength;

    const bare = await start(['bare', String(responseBytes)]);
    servers.push(bare.proc);
    const nodeHttp = await start(['node-http']);
    servers.push(nodeHttp.proc);

    const targets = [['uws+core', tessera.url], ['bare uws', bare.url], ['node:http', nodeHttp.url]];
    const best = new Map<string, AutocannonResult>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, url] of targets) {
        const result = await run(`${name} #${round}`, url, bodies);
        if (result.requests.average > (best.get(name)?.requests.average ?? -1)) best.set(name, result);
      }
    }
    const [search, bareResult, nodeResult] = targets.map(([name]) => best.get(name)!);

    console.log(
      JSON.stringify({
        bench: 'http',
        data: `${ROWS} x ${DIM} random unit vectors (seeded), top_k 10, ${QUERIES} distinct queries`,
        response_bytes: responseBytes,
        connections: CONNECTIONS,
        seconds: SECONDS,
        rounds: ROUNDS,
        search_rps: Math.round(search.requests.average),
        bare_rps: Math.round(bareResult.requests.average),
        ratio: Number((search.requests.average / bareResult.requests.average).toFixed(3)),
        node_http_rps: Math.round(nodeResult.requests.average),
        p50_ms: search.latency.p50,
        p99_ms: search.latency.p99,
        bare_p50_ms: bareResult.latency.p50,
        bare_p99_ms: bareResult.latency.p99,
        node_http_p50_ms: nodeResult.latency.p50,
        node_http_p99_ms: nodeResult.latency.p99,
      }),
    );
  } finally {
    for (const proc of servers) proc.kill();
  }
}

const [role, arg] = process.argv.slice(2);
if (role === 'bare') serveBare(Number(arg));
else if (role === 'node-http') void serveNodeHttp();
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
