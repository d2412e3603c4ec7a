// HTTP front benchmark (issue 15): what the request path costs over the bare socket.
//
// Cases: /search top-10 on 1,000 x 128 (seeded random unit vectors, synthetic: small enough to run
// inline), /search top-10 on 100,000 x 128 (queued on the query threads), /text-search top-10 on
// real English text (the first 20,000 sentences of nlp-corpus@4.4.0). Each through Tessera's
// uWebSockets.js server (`tessera serve`), against a bare uWebSockets.js endpoint answering the
// same number of bytes, and (1,000 x 128 search) against node:http in front of the same library
// and against the floor of this design: a uWebSockets.js endpoint that hands the body to the same
// library call and writes its answer, with no router, hooks or limits (what any front over this
// core pays per request on this machine).
// Throughput: autocannon at 16 and 64 connections, targets alternated round by round, best round
// each. Latency: one connection per target, one request at a time over a raw keep-alive socket,
// the targets taking turns in blocks of 100 requests, timed in microseconds. The library's own time for the same text queries is measured in this process.
// Every server runs in its own process (this file forked with a role argument). The last line of
// output is one JSON object.
//
// Then the scaling part (issue 49, ./http_threads.ts): --http-threads 1, 2 and the CPU count under
// wrk, small /search and Fashion-MNIST on the default index: `threads_speedup_small` and
// `threads_speedup_ann` (req/s at 16 connections, 2 threads over 1) and `threads` (every case).
//
// BENCH_SECONDS: one autocannon or wrk run (default 3); BENCH_ROUNDS (default 2); BENCH_LATENCY_N:
// requests per latency run (default 2,000); BENCH_BIG_N: rows of the large case (default 100,000).
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import uWS from 'uWebSockets.js';
import { Store } from '../lib/index';
import { Rng, emit, log, nlpSentences, randomUnitVectors } from './common';
import { CLI, connection, post, serveBare, start } from './http_rig';
import { threadScaling } from './http_threads';

const DIM = 128;
const SMALL_N = 1_000;
const BIG_N = Number(process.env.BENCH_BIG_N ?? 100_000);
const TEXT_N = 20_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const LATENCY_N = Number(process.env.BENCH_LATENCY_N ?? 2_000);
const QUERIES = 64;
const LATENCY_BLOCK = 100;
const LATENCY_WARMUP = 20;

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  /** Requests answered in the run (autocannon's requests histogram). */
  total: number;
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

function vectorRecords(n: number, seed: number): string[] {
  const v = randomUnitVectors(new Rng(seed), n, DIM);
  const bodies: string[] = [];
  for (let b = 0; b < n; b += 2000) {
    const records = [];
    for (let i = b; i < Math.min(n, b + 2000); i++)
      records.push({ id: `doc-${i}`, vector: Array.from(v.subarray(i * DIM, (i + 1) * DIM)), attrs: { n: { Int: i } } });
    bodies.push(JSON.stringify({ records }));
  }
  return bodies;
}

function searchBodies(): string[] {
  const v = randomUnitVectors(new Rng(2), QUERIES, DIM);
  return Array.from({ length: QUERIES }, (_, i) => JSON.stringify({ query: Array.from(v.subarray(i * DIM, (i + 1) * DIM)), top_k: 10 }));
}

/** The first TEXT_N sentences of nlp-corpus (a devDependency), and 2-word queries drawn from them. */
function textCorpus(): { bodies: string[]; queries: string[] } {
  const texts = nlpSentences(TEXT_N);
  const bodies: string[] = [];
  for (let b = 0; b < TEXT_N; b += 2000) {
    bodies.push(JSON.stringify({ records: texts.slice(b, b + 2000).map((t, i) => ({ id: `s${b + i}`, attrs: { text: { Str: t } } })) }));
  }
  const rng = new Rng(7);
  const queries: string[] = [];
  while (queries.length < QUERIES) {
    const words = (texts[rng.int(texts.length)].toLowerCase().match(/[a-z]{4,}/g) ?? []).slice(0, 6);
    if (words.length >= 2) queries.push(JSON.stringify({ scope: ['text'], field: 'text', query: `${words[0]} ${words[words.length - 1]}`, top_k: 10 }));
  }
  return { bodies, queries };
}

/** The 1,000 x 128 store the library-fronting servers answer from (the same rows `tessera serve` gets). */
async function smallStore(): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  for (const body of vectorRecords(SMALL_N, 1)) await store.upsert('bench', Buffer.from(body));
  return store;
}

/**
 * The floor: the body to the library's raw /search read, its answer written at once when the core
 * ran it inline (as `tessera serve` does), else when it settles. Nothing else per request.
 */
async function serveUwsLibrary(): Promise<void> {
  const store = await smallStore();
  uWS
    .App()
    .post('/search', (res) => {
      let aborted = false;
      res.onAborted(() => (aborted = true));
      const chunks: Buffer[] = [];
      res.onData((chunk, isLast) => {
        chunks.push(Buffer.from(new Uint8Array(chunk))); // a copy: uWS reuses the chunk after this call
        if (!isLast) return;
        const reply = (status: string, bytes: Buffer | string) => {
          if (!aborted) res.cork(() => res.writeStatus(status).writeHeader('Content-Type', 'application/json').end(bytes));
        };
        const answer = store.readJson('search', Buffer.concat(chunks));
        if (!(answer instanceof Promise)) return reply('200 OK', answer);
        answer.then(
          (bytes) => reply('200 OK', bytes),
          (err) => reply(`${err.status ?? 500} Error`, JSON.stringify({ error: err.message })),
        );
      });
    })
    .listen('127.0.0.1', 0, (socket) => {
      if (socket) console.log(`listening ${uWS.us_socket_local_port(socket)}`);
    });
}

async function serveNodeHttp(): Promise<void> {
  const store = await smallStore();
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

/** CPU time (user + system, all threads) process pid has used, in microseconds; null without /proc. */
function cpuMicros(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of proc(5), in ticks of 1/100 s (Linux's USER_HZ).
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

async function throughput(name: string, url: string, route: string, bodies: string[], connections: number): Promise<AutocannonResult> {
  const result = await autocannon({
    url,
    connections,
    duration: SECONDS,
    requests: bodies.map((body) => ({ method: 'POST', path: route, body, headers: { 'content-type': 'application/json' } })),
  });
  if (result.non2xx || result.errors) throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  log(`${name.padEnd(28)} ${connections} conns ${result.requests.average.toFixed(0).padStart(7)} req/s`);
  return result;
}

/**
 * One request at a time per target over its own keep-alive connection, the targets taking turns
 * every LATENCY_BLOCK requests: each runs warm, as one client's requests to one server would, and
 * all share the machine's drifts. Per target, p50 and p99 microseconds.
 */
async function latencies(
  targets: { name: string; port: number; route: string; bodies: string[] }[],
): Promise<Record<string, { p50_us: number; p99_us: number }>> {
  const conns = await Promise.all(targets.map((t) => connection(t.port, t.route, t.bodies)));
  const times: number[][] = targets.map(() => []);
  for (let block = 0; block < LATENCY_N / LATENCY_BLOCK; block++) {
    for (let k = 0; k < conns.length; k++) {
      // The block's first requests warm the connection's path up and are not counted.
      for (let i = -LATENCY_WARMUP; i < LATENCY_BLOCK; i++) {
        const t = process.hrtime.bigint();
        await conns[k].send(block * LATENCY_BLOCK + i);
        if (i >= 0) times[k].push(Number(process.hrtime.bigint() - t) / 1e3);
      }
    }
  }
  for (const c of conns) c.close();
  const out: Record<string, { p50_us: number; p99_us: number }> = {};
  targets.forEach((t, k) => {
    const sorted = times[k].sort((a, b) => a - b);
    out[t.name] = { p50_us: Math.round(sorted[Math.floor(sorted.length / 2)]), p99_us: Math.round(sorted[Math.floor(sorted.length * 0.99)]) };
  });
  return out;
}

async function libraryTextP50(corpus: { bodies: string[]; queries: string[] }): Promise<number> {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  await store.createCollection('text');
  await store.setFtsSchema('text', ['text']);
  for (const body of corpus.bodies) await store.upsert('text', Buffer.from(body));
  const queries = corpus.queries.map((q) => Buffer.from(q));
  const times: number[] = [];
  for (let i = -LATENCY_WARMUP; i < LATENCY_N; i++) {
    const t = process.hrtime.bigint();
    await store.textSearchJson(queries[(i + QUERIES) % queries.length]);
    if (i >= 0) times.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  await store.close();
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function main(): Promise<void> {
  const serve = ['serve', '--in-memory', '--dimension', String(DIM), '--port', '0', '--log-level', 'warn'];
  const search = searchBodies();
  const corpus = textCorpus();
  const servers: ChildProcess[] = [];
  try {
    const small = await start(CLI, serve);
    servers.push(small.proc);
    for (const body of vectorRecords(SMALL_N, 1)) await post(`${small.url}/collections/bench/upsert`, body);
    const big = await start(CLI, serve);
    servers.push(big.proc);
    log(`loading ${BIG_N} x ${DIM} and ${TEXT_N} sentences`);
    for (const body of vectorRecords(BIG_N, 3)) await post(`${big.url}/collections/bench/upsert`, body);
    if ((await fetch(`${big.url}/collections/text`, { method: 'POST' })).status >= 300) throw new Error('creating the text collection failed');
    await post(`${big.url}/collections/text/fts-schema`, JSON.stringify({ fields: ['text'] }));
    for (const body of corpus.bodies) await post(`${big.url}/collections/text/upsert`, body);
    const sizes = [
      `/search-small=${(await post(`${small.url}/search`, search[0])).length}`,
      `/search-big=${(await post(`${big.url}/search`, search[0])).length}`,
      `/text=${(await post(`${big.url}/text-search`, corpus.queries[0])).length}`,
    ];
    const bare = await start(__filename, ['bare', ...sizes]);
    servers.push(bare.proc);
    const nodeHttp = await start(__filename, ['node-http']);
    servers.push(nodeHttp.proc);
    const floor = await start(__filename, ['uws-library']);
    servers.push(floor.proc);

    const targets: [string, string, string, string[]][] = [
      ['search_1k', small.url, '/search', search],
      ['bare_search_1k', bare.url, '/search-small', search],
      ['node_http_search_1k', nodeHttp.url, '/search', search],
      ['floor_search_1k', floor.url, '/search', search],
      ['search_100k', big.url, '/search', search],
      ['bare_search_100k', bare.url, '/search-big', search],
      ['text', big.url, '/text-search', corpus.queries],
      ['bare_text', bare.url, '/text', corpus.queries],
    ];
    const byUrl = new Map([small, big, bare, nodeHttp, floor].map((s) => [s.url, s]));
    const rps: Record<string, number> = {};
    // Per target, the server's CPU per request in the round that set its rps.
    const cpu: Record<string, number | null> = {};
    for (const connections of [16, 64]) {
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [name, url, route, bodies] of targets) {
          const key = `${name}_${connections}`;
          const pid = byUrl.get(url)!.proc.pid!;
          const before = cpuMicros(pid);
          const result = await throughput(`${key} #${round}`, url, route, bodies, connections);
          const after = cpuMicros(pid);
          if (Math.round(result.requests.average) <= (rps[key] ?? 0)) continue;
          rps[key] = Math.round(result.requests.average);
          cpu[key] = before === null || after === null ? null : Number(((after - before) / result.requests.total).toFixed(1));
        }
      }
    }
    const lat = await latencies(targets.map(([name, url, route, bodies]) => ({ name, port: byUrl.get(url)!.port, route, bodies })));
    for (const [name, l] of Object.entries(lat)) log(`${name.padEnd(28)} 1 conn p50 ${l.p50_us} us, p99 ${l.p99_us} us`);
    const textLibraryUs = await libraryTextP50(corpus);
    log(`text library p50 ${textLibraryUs.toFixed(0)} us`);
    for (const proc of servers.splice(0)) proc.kill();
    const notes: string[] = [];
    const threads = await threadScaling(notes);

    const ratio = (a: number, b: number) => Number((a / b).toFixed(3));
    emit({
      bench: 'http',
      data: {
        search_1k: `${SMALL_N} x ${DIM} seeded random unit vectors (synthetic), top_k 10, ${QUERIES} distinct queries`,
        search_100k: `${BIG_N} x ${DIM} seeded random unit vectors (synthetic), top_k 10`,
        text: `first ${TEXT_N} sentences of nlp-corpus@4.4.0 (real), ${QUERIES} two-word queries from them, top_k 10`,
      },
      seconds: SECONDS,
      rounds: ROUNDS,
      latency_requests: LATENCY_N,
      ratio: ratio(rps.search_1k_16, rps.bare_search_1k_16),
      ratio_64: ratio(rps.search_1k_64, rps.bare_search_1k_64),
      ratio_100k: ratio(rps.search_100k_16, rps.bare_search_100k_16),
      text_ratio: ratio(rps.text_16, rps.bare_text_16),
      p50_over_bare_p50_1conn: ratio(lat.search_1k.p50_us, lat.bare_search_1k.p50_us),
      text_p50_ms_http: Number((lat.text.p50_us / 1000).toFixed(3)),
      text_p50_ms_library: Number((textLibraryUs / 1000).toFixed(3)),
      node_http_ratio: ratio(rps.search_1k_16, rps.node_http_search_1k_16),
      floor_ratio: ratio(rps.floor_search_1k_16, rps.bare_search_1k_16),
      floor_p50_over_bare_p50_1conn: ratio(lat.floor_search_1k.p50_us, lat.bare_search_1k.p50_us),
      over_floor_ratio: ratio(rps.search_1k_16, rps.floor_search_1k_16),
      rps,
      server_cpu_us_per_request: cpu,
      latency_us: lat,
      threads_speedup_small: threads?.threads_speedup_small ?? null,
      threads_speedup_ann: threads?.threads_speedup_ann ?? null,
      threads,
      notes,
    });
  } finally {
    for (const proc of servers) proc.kill();
  }
}

const [role, ...args] = process.argv.slice(2);
if (role === 'bare') serveBare(args);
else if (role === 'node-http') void serveNodeHttp();
else if (role === 'uws-library') void serveUwsLibrary();
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
