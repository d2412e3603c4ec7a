// bench:http's scaling part (issue 49): the same server with --http-threads 1, 2 and the CPU count,
// under `wrk` (Debian's, the load generator of bench:ann's service part) at 16 and 64 connections:
// small /search (1,000 x 128 seeded unit vectors, in memory) and Fashion-MNIST /search on the
// default index (HNSW + Int8, 60,000 x 784 Euclidean, loaded once, each setting served read-only
// from the same directory), plus the ANN case at 1 connection (p50) and 8 (req/s). Settings take
// turns round by round; each keeps its best round. Server CPU per request from /proc.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import { type WrkResult, hasWrk, runWrk } from './ann_service';
import { CLI, Rng, freshDir, log, randomUnitVectors, removeDir, round, searchBody, upsertBody } from './common';
import { FASHION_DIM, readImages } from './fashion_mnist';

const SMALL_N = 1_000;
const SMALL_DIM = 128;
const QUERIES = 500;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

interface Served {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** `tessera serve` with args, once it listens on every HTTP thread. */
function serve(args: string[], threads: number): Promise<Served> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--log-level', 'info', '--http-threads', String(threads), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = /listening on (http:\/\/\S+)\n/.exec(out);
      if (!m || (threads > 1 && !err.includes('"msg":"HTTP threads listening"'))) return;
      const stop = () =>
        new Promise<void>((done) => {
          if (proc.exitCode !== null) return done();
          proc.once('exit', () => done());
          proc.kill('SIGTERM');
        });
      resolve({ url: m[1], pid: proc.pid as number, stop });
    };
    proc.stdout.on('data', (d) => {
      out += d;
      check();
    });
    proc.stderr.on('data', (d) => {
      err = (err + d).slice(-1 << 16);
      check();
    });
    proc.on('exit', (code) => reject(new Error(`serve ${args.join(' ')} exited with ${code}: ${err.slice(-2000)}`)));
  });
}

async function post(url: string, body: string | Buffer): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return text;
}

/** CPU time (user + system, every thread) of process pid so far, in microseconds (proc(5), USER_HZ 100). */
function cpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Loads Fashion-MNIST train into a new store directory on the default index, built and merged. */
async function fashionStore(dir: string): Promise<void> {
  const train = readImages('train');
  const vectors = Float32Array.from(train.bytes);
  const loader = await serve(['--data', dir, '--dimension', String(FASHION_DIM), '--distance', 'Euclidean'], 1);
  try {
    for (let i = 0; i < train.count; i += 2000)
      await post(`${loader.url}/collections/fashion/upsert`, upsertBody(vectors, FASHION_DIM, i, Math.min(train.count, i + 2000)));
    await post(`${loader.url}/flush`, '');
    for (;;) {
      const metrics = await (await fetch(`${loader.url}/metrics`)).text();
      const busy = /svc_index_builds_pending (\d+)/.exec(metrics)?.[1] !== '0' || /svc_compactions_running (\d+)/.exec(metrics)?.[1] !== '0';
      if (!busy) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await loader.stop();
  }
}

/** Recall@10 of the ANN bodies against the same server's exact answers. */
async function recallOver(url: string, ann: string[], exact: string[]): Promise<number> {
  let hits = 0;
  for (let q = 0; q < ann.length; q++) {
    const truth = new Set((JSON.parse(await post(`${url}/search`, exact[q])) as { id: string }[]).map((h) => h.id));
    for (const h of JSON.parse(await post(`${url}/search`, ann[q])) as { id: string }[]) if (truth.has(h.id)) hits++;
  }
  return round(hits / (ann.length * 10), 4);
}

interface Case {
  name: string;
  connections: number;
  server: (threads: number) => Served;
  bodies: string[];
}

export interface ThreadScaling {
  settings: number[];
  /** Per case (`small_16`, `ann_64`, `ann_1`...) and setting, the best round's wrk result. */
  wrk: Record<string, Record<number, WrkResult>>;
  /** Per case and setting, server CPU (all its threads) per request in that round. */
  server_cpu_us_per_request: Record<string, Record<number, number>>;
  ann_recall: number;
  threads_speedup_small: number;
  threads_speedup_ann: number;
}

/** The scaling cases; null (with a note) when wrk is missing. */
export async function threadScaling(notes: string[]): Promise<ThreadScaling | null> {
  if (!hasWrk()) {
    notes.push('threads: wrk is not installed (Debian package wrk): no scaling part');
    return null;
  }
  const settings = [...new Set([1, 2, availableParallelism()])];
  const dir = freshDir('tessera-bench-threads-');
  const servers: Served[] = [];
  try {
    log('threads: loading Fashion-MNIST (60,000 x 784) on the default index');
    await fashionStore(dir);
    const test = readImages('t10k');
    const queries = Float32Array.from(test.bytes.subarray(0, QUERIES * FASHION_DIM));
    const annBodies = Array.from({ length: QUERIES }, (_, q) => searchBody(queries, q, FASHION_DIM, 10, false).toString());
    const exactBodies = Array.from({ length: QUERIES }, (_, q) => searchBody(queries, q, FASHION_DIM, 10, true).toString());
    const small = randomUnitVectors(new Rng(1), SMALL_N, SMALL_DIM);
    const smallBodies = Array.from({ length: 64 }, (_, q) => searchBody(randomUnitVectors(new Rng(100 + q), 1, SMALL_DIM), 0, SMALL_DIM, 10, false).toString());
    const annServers = new Map<number, Served>();
    const smallServers = new Map<number, Served>();
    for (const t of settings) {
      const ann = await serve(['--data', dir, '--read-only'], t);
      servers.push(ann);
      annServers.set(t, ann);
      const s = await serve(['--in-memory', '--dimension', String(SMALL_DIM)], t);
      servers.push(s);
      await post(`${s.url}/collections/bench/upsert`, upsertBody(small, SMALL_DIM, 0, SMALL_N));
      smallServers.set(t, s);
    }
    const annRecall = await recallOver(annServers.get(1)!.url, annBodies, exactBodies);
    log(`threads: ANN recall@10 ${annRecall} (default index, ef_search 64)`);
    const cases: Case[] = [
      ...[16, 64].map((c) => ({ name: `small_${c}`, connections: c, server: (t: number) => smallServers.get(t)!, bodies: smallBodies })),
      ...[1, 8, 16, 64].map((c) => ({ name: `ann_${c}`, connections: c, server: (t: number) => annServers.get(t)!, bodies: annBodies })),
    ];
    const wrk: ThreadScaling['wrk'] = {};
    const cpu: ThreadScaling['server_cpu_us_per_request'] = {};
    for (let r = 1; r <= ROUNDS; r++)
      for (const c of cases)
        for (const t of settings) {
          const server = c.server(t);
          const before = cpuMicros(server.pid);
          const result = runWrk(server.url, c.bodies, c.connections, SECONDS) as WrkResult;
          const used = (cpuMicros(server.pid) - before) / result.requests;
          log(
            `threads: ${c.name} --http-threads ${t} #${r}: ${result.rps} req/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, ${used.toFixed(1)} us CPU a request`,
          );
          wrk[c.name] ??= {};
          cpu[c.name] ??= {};
          if ((wrk[c.name][t]?.rps ?? 0) >= result.rps) continue;
          wrk[c.name][t] = result;
          cpu[c.name][t] = round(used, 1);
        }
    return {
      settings,
      wrk,
      server_cpu_us_per_request: cpu,
      ann_recall: annRecall,
      threads_speedup_small: round(wrk.small_16[2].rps / wrk.small_16[1].rps, 3),
      threads_speedup_ann: round(wrk.ann_16[2].rps / wrk.ann_16[1].rps, 3),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    removeDir(dir);
  }
}
