// bench:ann's service part (issue 47): Fashion-MNIST as a new user meets it over HTTP. A server started
// with no index flags, fed by upserts and never flushed; the seconds from the last upsert until
// /search plans `ann`; recall and `wrk` at 1 and 8 connections over the query bodies; and filtered
// search at 50%, 10%, 1% and 0.1% of rows at random and on another class's label, against
// hnswlib-node's filtered searchKnn (ef 64, 256, 1024) and an exact scan of just the matching rows
// (usearch's kernels, the rows gathered per query as an application would), each in the same run.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rng, forkServer, freshDir, log, now, removeDir, round, upsertBody, writeAscii } from './common';
import { readLabels } from './fashion_mnist';

const TOP_K = 10;
const BATCH = 2000;
const WRK_SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 8);
const PEER_EFS = [64, 256, 1024];
const SPOT_CHECKS = 3;

export interface ServiceData {
  rows: number;
  dim: number;
  vectors: Float32Array;
  queries: Float32Array[];
}

/** hnswlib-node's index as bench:ann built it (labels are row numbers). */
export interface FilteredPeer {
  setEf(ef: number): void;
  searchKnn(q: number[], k: number, filter?: (label: number) => boolean): { neighbors: number[] };
}

export interface ServiceUsearch {
  exactSearch(dataset: Float32Array, queries: Float32Array, dim: number, k: number, metric: unknown, threads?: number): { keys: BigUint64Array };
  MetricKind: { L2sq: unknown };
}

export interface WrkResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
}

/** POSTs body; once more when the server had closed the pooled connection while it idled (every call here is idempotent). */
async function post(url: string, body: string | Buffer, retried = false): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers: { 'content-type': 'application/json' } });
  } catch (err) {
    if (retried) throw err;
    return post(url, body, true);
  }
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const vectorText = (v: Float32Array) => `[${Array.from(v).join(',')}]`;
const body = (q: Float32Array, extra: Record<string, unknown> = {}) =>
  `{"query":${vectorText(q)},"top_k":${TOP_K}${Object.entries(extra)
    .map(([k, v]) => `,"${k}":${JSON.stringify(v)}`)
    .join('')}}`;

/**
 * `wrk` over `bodies` to `route` (each connection cycles through them) for `seconds`: requests/s and the
 * latency percentiles wrk measured, read from its done() hook as JSON. Null when wrk is missing.
 */
export function runWrk(url: string, bodies: string[], connections: number, seconds: number, route = '/search'): WrkResult | null {
  if (!hasWrk()) return null;
  const script = path.join(os.tmpdir(), `tessera-bench-wrk-${process.pid}.lua`);
  // Level-3 long brackets: a body never holds "]===]".
  const lua = `local bodies = {${bodies.map((b) => `[===[${b}]===]`).join(',\n')}}
local i = 0
request = function()
  i = i % #bodies + 1
  return wrk.format("POST", "${route}", {["content-type"]="application/json"}, bodies[i])
end
done = function(summary, latency, requests)
  local bad = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format('\\nWRK {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"bad":%d}\\n', summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), bad))
end
`;
  fs.writeFileSync(script, lua);
  try {
    const threads = Math.min(connections, 2);
    const out = execFileSync('wrk', ['-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, '-s', script, `${url}${route}`], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    const m = /WRK (\{.*\})/.exec(out);
    if (!m) throw new Error(`wrk printed no summary: ${out}`);
    const r = JSON.parse(m[1]) as { requests: number; duration_us: number; p50_us: number; p99_us: number; bad: number };
    if (r.bad > 0) throw new Error(`wrk: ${r.bad} failed requests`);
    return { rps: round(r.requests / (r.duration_us / 1e6), 1), p50_ms: round(r.p50_us / 1000, 3), p99_ms: round(r.p99_us / 1000, 3), requests: r.requests };
  } finally {
    fs.rmSync(script, { force: true });
  }
}

let wrkPresent: boolean | null = null;
export function hasWrk(): boolean {
  if (wrkPresent === null) {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
      wrkPresent = true;
    } catch (err) {
      // wrk --version prints its banner and exits 1; only a missing binary throws ENOENT.
      wrkPresent = (err as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  }
  return wrkPresent;
}

const l2 = (a: Float32Array, aOff: number, b: Float32Array, dim: number) => {
  let s = 0;
  for (let j = 0; j < dim; j++) {
    const d = a[aOff + j] - b[j];
    s += d * d;
  }
  return s;
};

/** Tie-aware recall@10 of `rows` against the exact answer `truth` (its 10th distance bounds a hit). */
function recallAgainst(data: ServiceData, q: Float32Array, truth: number[], rows: number[]): number {
  const want = Math.min(TOP_K, truth.length);
  if (want === 0) return rows.length === 0 ? 1 : 0;
  const kth = Math.max(...truth.map((r) => l2(data.vectors, r * data.dim, q, data.dim)));
  const bound = kth + 1e-6 * Math.max(1e-6, kth);
  let hit = 0;
  for (const r of rows.slice(0, TOP_K)) if (l2(data.vectors, r * data.dim, q, data.dim) <= bound) hit++;
  return Math.min(hit, want) / want;
}

interface FilterCase {
  name: string;
  /** The filter for query q, as /search takes it. */
  filter(q: number): unknown;
  /** Whether row r passes query q's filter. */
  passes(q: number, r: number): boolean;
}

/** Uniform bucket per row (0..999) and the rows' class labels, the attrs the filters read. */
function filterCases(rows: number, trainLabels: Uint8Array, testLabels: Uint8Array): { cases: FilterCase[]; bucket: Uint16Array } {
  const rng = new Rng(0x47);
  const bucket = new Uint16Array(rows);
  for (let r = 0; r < rows; r++) bucket[r] = Math.floor(rng.next() * 1000);
  const share = (name: string, below: number): FilterCase => ({
    name,
    filter: () => [{ Lt: ['u', { Int: below }] }],
    passes: (_q, r) => bucket[r] < below,
  });
  const other = (q: number) => (testLabels[q] + 1) % 10;
  return {
    bucket,
    cases: [
      share('p50', 500),
      share('p10', 100),
      share('p1', 10),
      share('p0_1', 1),
      { name: 'other_class', filter: (q) => [{ Eq: ['label', { Int: other(q) }] }], passes: (q, r) => trainLabels[r] === other(q) },
    ],
  };
}

async function loadOverHttp(url: string, data: ServiceData, trainLabels: Uint8Array, bucket: Uint16Array): Promise<number> {
  let last = 0;
  for (let from = 0; from < data.rows; from += BATCH) {
    const to = Math.min(data.rows, from + BATCH);
    const buf = upsertBody(data.vectors, data.dim, from, to, {
      attrs: (b, pos, r) => writeAscii(b, pos, `{"label":{"Int":${trainLabels[r]}},"u":{"Int":${bucket[r]}}}`),
      attrsBound: () => 48,
    });
    await post(`${url}/collections/fmnist/upsert`, buf);
    last = now();
  }
  return last;
}

type Plan = { path: string };

/** Seconds from `since` until a planned /search takes the ann path (polled every 100 ms). */
async function untilAnn(url: string, q: Float32Array, since: number, limitS: number): Promise<{ seconds: number | null; paths: string[] }> {
  const paths: string[] = [];
  const probe = body(q, { plan: true });
  for (;;) {
    const { plan } = (await post(`${url}/search`, probe)) as { plan: Plan };
    if (paths.at(-1) !== plan.path) paths.push(plan.path);
    if (plan.path === 'ann') return { seconds: round((now() - since) / 1000, 2), paths };
    if (now() - since > limitS * 1000) return { seconds: null, paths };
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function segmentsNow(url: string): Promise<{ segments: number; busy: number }> {
  const stats = (await (await fetch(`${url}/stats`)).json()) as { footprint: { segments: number } };
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
  return { segments: stats.footprint.segments, busy: gauge('svc_index_builds_pending') + gauge('svc_compactions_running') };
}

/** Waits until no index build or compaction is queued or running (three polls in a row, as one compaction queues the next): the layout queries then meet. */
async function untilSettled(url: string, since: number, limitS: number): Promise<{ segments: number; seconds: number }> {
  let cur = await segmentsNow(url);
  for (let idle = 0; idle < 3 && now() - since < limitS * 1000; ) {
    await new Promise((r) => setTimeout(r, 200));
    cur = await segmentsNow(url);
    idle = cur.busy === 0 ? idle + 1 : 0;
  }
  return { segments: cur.segments, seconds: round((now() - since) / 1000, 1) };
}

async function httpRecall(url: string, data: ServiceData, bodies: string[], truth: number[][]): Promise<number> {
  let sum = 0;
  for (let q = 0; q < bodies.length; q++) {
    const hits = (await post(`${url}/search`, bodies[q])) as { id: string }[];
    sum += recallAgainst(
      data,
      data.queries[q],
      truth[q],
      hits.map((h) => Number(h.id)),
    );
  }
  return round(sum / bodies.length, 4);
}

/** The exact answer per query through the server's exact path, spot-checked against an f32 loop. */
async function exactAnswers(url: string, data: ServiceData, fc: FilterCase | null): Promise<number[][]> {
  const out: number[][] = [];
  for (let q = 0; q < data.queries.length; q++) {
    const hits = (await post(`${url}/search`, body(data.queries[q], { exact: true, ...(fc ? { filter: fc.filter(q) } : {}) }))) as { id: string }[];
    out.push(hits.map((h) => Number(h.id)));
  }
  for (let i = 0; i < SPOT_CHECKS; i++) {
    const q = Math.floor((i * data.queries.length) / SPOT_CHECKS);
    const all: [number, number][] = [];
    for (let r = 0; r < data.rows; r++) if (!fc || fc.passes(q, r)) all.push([l2(data.vectors, r * data.dim, data.queries[q], data.dim), r]);
    all.sort((a, b) => a[0] - b[0]);
    const loop = all.slice(0, TOP_K).map(([, r]) => r);
    if (recallAgainst(data, data.queries[q], loop, out[q]) < 1 || out[q].length !== loop.length)
      throw new Error(`exact answer of query ${q}${fc ? ` (${fc.name})` : ''} disagrees with an f32 loop`);
  }
  return out;
}

/** Mean ms of the peer over the queries, and its recall against truth. */
function timed(data: ServiceData, truth: number[][], search: (q: number) => number[]): { recall: number; qps: number } {
  let ms = 0;
  let recall = 0;
  for (let q = 0; q < data.queries.length; q++) {
    const t = now();
    const rows = search(q);
    ms += now() - t;
    recall += recallAgainst(data, data.queries[q], truth[q], rows);
  }
  return { recall: round(recall / data.queries.length, 4), qps: round((1000 * data.queries.length) / ms, 1) };
}

/** The rows passing query q's filter, gathered into one contiguous buffer (an application's own prefilter). */
function gather(data: ServiceData, fc: FilterCase, q: number): { rows: Uint32Array; vectors: Float32Array } {
  const rows: number[] = [];
  for (let r = 0; r < data.rows; r++) if (fc.passes(q, r)) rows.push(r);
  const vectors = new Float32Array(rows.length * data.dim);
  for (let i = 0; i < rows.length; i++) vectors.set(data.vectors.subarray(rows[i] * data.dim, (rows[i] + 1) * data.dim), i * data.dim);
  return { rows: Uint32Array.from(rows), vectors };
}

/**
 * The exact scan of just the matching rows, with usearch's SIMD kernels: `gathered` finds and
 * copies them per query (what an application scanning its own prefiltered rows pays, the issue's
 * peer), `scan_only` has them gathered beforehand (a perfectly partitioned store).
 */
function matchingScan(data: ServiceData, fc: FilterCase, usearch: ServiceUsearch | null, truth: number[][]) {
  if (!usearch) return null;
  const scan = (q: number, g: { rows: Uint32Array; vectors: Float32Array }) => {
    const k = Math.min(TOP_K, g.rows.length);
    if (k === 0) return [];
    const m = usearch.exactSearch(g.vectors, data.queries[q], data.dim, k, usearch.MetricKind.L2sq, 1);
    return Array.from(m.keys, (i) => g.rows[Number(i)]);
  };
  const gathered = timed(data, truth, (q) => scan(q, gather(data, fc, q)));
  const prepared = new Map<string, { rows: Uint32Array; vectors: Float32Array }>();
  const key = (q: number) => JSON.stringify(fc.filter(q));
  for (let q = 0; q < data.queries.length; q++) if (!prepared.has(key(q))) prepared.set(key(q), gather(data, fc, q));
  return { gathered, scan_only: timed(data, truth, (q) => scan(q, prepared.get(key(q))!)) };
}

export interface ServiceReport {
  default_flags: Record<string, unknown>;
  noflush_index_s: number | null;
  wrk_c1: WrkResult | null;
  wrk_c8: WrkResult | null;
  p99_over_p50_c1: number | null;
  p99_over_p50_c8: number | null;
  filtered: Record<string, unknown>[];
}

/**
 * Runs the service cases. `peer` is bench:ann's hnswlib index over the same rows (null when the
 * package is absent), `usearch` the module for the matching-rows scan.
 */
export async function serviceCases(data: ServiceData, peer: FilteredPeer | null, usearch: ServiceUsearch | null, notes: string[]): Promise<ServiceReport> {
  const trainLabels = readLabels('train');
  const testLabels = readLabels('t10k');
  const { cases, bucket } = filterCases(data.rows, trainLabels, testLabels);
  const dir = freshDir('ann-service');
  const server = await forkServer(['serve', '--data', dir, '--port', '0', '--dimension', String(data.dim), '--distance', 'Euclidean', '--log-level', 'warn']);
  try {
    const stats = (await (await fetch(`${server.url}/stats`)).json()) as { ann: unknown; quantization: unknown };
    log(
      `service: a server with no index flags (ann ${JSON.stringify(stats.ann)}, quantization ${JSON.stringify(stats.quantization)}); upserting ${data.rows} rows`,
    );
    const t0 = now();
    const lastWrite = await loadOverHttp(server.url, data, trainLabels, bucket);
    const ingestS = round((lastWrite - t0) / 1000, 2);
    const indexed = await untilAnn(server.url, data.queries[0], lastWrite, 300);
    log(`  ingest ${ingestS} s; plan paths after the last upsert ${indexed.paths.join(' -> ')}; ann after ${indexed.seconds} s (no /flush)`);
    if (indexed.seconds === null) notes.push('service: no ann plan within 300 s of the last upsert');

    const atAnn = await segmentsNow(server.url);
    const settled = await untilSettled(server.url, lastWrite, 600);
    log(
      `  ${atAnn.segments} segments at the first ann plan; ${settled.segments} once builds and compactions settled, ${settled.seconds} s after the last upsert`,
    );

    const truth = await exactAnswers(server.url, data, null);
    const bodies = data.queries.map((q) => body(q));
    const recall = await httpRecall(server.url, data, bodies, truth);
    runWrk(server.url, bodies, 1, 2); // warm-up
    const c1 = runWrk(server.url, bodies, 1, WRK_SECONDS);
    const c8 = runWrk(server.url, bodies, 8, WRK_SECONDS);
    if (!c1) notes.push('service: wrk is not installed (Debian package wrk): no wrk_c1 / wrk_c8');
    log(`  recall ${recall}; wrk c1 ${JSON.stringify(c1)}; c8 ${JSON.stringify(c8)}`);

    const filtered: Record<string, unknown>[] = [];
    for (const fc of cases) {
      const fTruth = await exactAnswers(server.url, data, fc);
      let matching = 0;
      for (let q = 0; q < data.queries.length; q++) for (let r = 0; r < data.rows; r++) matching += fc.passes(q, r) ? 1 : 0;
      const fBodies = data.queries.map((q, i) => body(q, { filter: fc.filter(i) }));
      let failing = 0;
      let short = 0;
      let sum = 0;
      const paths: Record<string, number> = {};
      for (let q = 0; q < fBodies.length; q++) {
        const { hits, plan } = (await post(`${server.url}/search`, body(data.queries[q], { filter: fc.filter(q), plan: true }))) as {
          hits: { id: string }[];
          plan: Plan;
        };
        const rows = hits.map((h) => Number(h.id));
        failing += rows.filter((r) => !fc.passes(q, r)).length;
        short += rows.length < Math.min(TOP_K, fTruth[q].length) ? 1 : 0;
        sum += recallAgainst(data, data.queries[q], fTruth[q], rows);
        paths[plan.path] = (paths[plan.path] ?? 0) + 1;
      }
      const wrk = runWrk(server.url, fBodies, 1, Math.max(2, WRK_SECONDS / 2));
      const hnswlib: Record<string, { recall: number; qps: number }> = {};
      if (peer) {
        const arrays = data.queries.map((q) => Array.from(q));
        for (const ef of PEER_EFS) {
          peer.setEf(ef);
          hnswlib[`ef_${ef}`] = timed(data, fTruth, (q) => peer.searchKnn(arrays[q], TOP_K, (r) => fc.passes(q, r)).neighbors);
        }
      }
      const scan = matchingScan(data, fc, usearch, fTruth);
      const row = {
        case: fc.name,
        selectivity: round(matching / (data.queries.length * data.rows), 4),
        recall: round(sum / data.queries.length, 4),
        failing_rows: failing,
        short_answers: short,
        plan_paths: paths,
        wrk_c1: wrk,
        hnswlib,
        matching_rows_scan_usearch: scan,
        best_peer_qps_at_equal_recall: bestPeer(round(sum / data.queries.length, 4), hnswlib, scan?.gathered ?? null),
      };
      log(`  filtered ${JSON.stringify(row)}`);
      filtered.push(row);
    }
    return {
      default_flags: {
        ann: stats.ann,
        quantization: stats.quantization,
        ingest_s: ingestS,
        plan_paths: indexed.paths,
        segments_at_first_ann: atAnn.segments,
        segments_measured: settled.segments,
        settled_s: settled.seconds,
        recall,
        qps_c1: c1?.rps ?? null,
      },
      noflush_index_s: indexed.seconds,
      wrk_c1: c1,
      wrk_c8: c8,
      p99_over_p50_c1: c1 ? round(c1.p99_ms / c1.p50_ms, 2) : null,
      p99_over_p50_c8: c8 ? round(c8.p99_ms / c8.p50_ms, 2) : null,
      filtered,
    };
  } finally {
    const exited = new Promise((resolve) => server.proc.once('exit', resolve));
    server.proc.kill();
    await exited;
    removeDir(dir);
  }
}

/** The fastest peer run whose recall is at least ours (less 0.002, the noise of 500 queries). */
function bestPeer(recall: number, hnswlib: Record<string, { recall: number; qps: number }>, scan: { recall: number; qps: number } | null): number | null {
  const runs = [...Object.values(hnswlib), ...(scan ? [scan] : [])].filter((p) => p.recall >= recall - 0.002);
  return runs.length ? Math.max(...runs.map((p) => p.qps)) : null;
}
