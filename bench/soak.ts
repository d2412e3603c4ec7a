// bench:soak — the mixed load of issue 11 against `tessera serve` started as a child process, for
// 10 minutes (`npm run bench:soak -- --minutes N` to shorten), at a fixed offered rate: 80% of what
// a short closed-loop calibration on the same store sustained. 16 clients; 70% /search (a third
// filtered on the class), 20% upserts of 10 records overwriting existing ids of the 20,000-record
// collection, 10% /list and /aggregate. Every minute: completed requests/s, p50/p99 per route
// (from each request's scheduled time, so queueing behind a slow server counts), the server's RSS,
// the store's bytes on disk, compactions run (a `*compactions_total` metric, null while none
// exists). Then a separate 1M-record store (built once, cached under the temp dir keyed by its
// parameters) is opened by fresh server processes until /ready is 200.
//
// Data: real Fashion-MNIST (Debian dataset-fashion-mnist, 784-d, Euclidean) for the soak: record i
// at version v holds train image (i + 20,000 v) mod 60,000 with its class, so overwrites bring real
// new vectors and labels; queries are test images. The 1M store's vectors are synthetic (no real
// 1M set is reachable; its vectors are mmap'd and not read at open, so their values do not matter
// there) with real English text: the nlp-corpus sentences, cycled, under an fts-schema and a filter
// index, since open time is spent on per-row structures.
// Progress goes to stderr; the last stdout line is one JSON object.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../lib/index';
import {
  CLI,
  Rng,
  emit,
  freshDir,
  log,
  machine,
  now,
  percentile,
  pkgRoot,
  pkgVersion,
  randomUnitVectors,
  removeDir,
  round,
  runBench,
  upsertBody,
  writeAscii,
} from './common';
import { FASHION_CLASSES, FASHION_DIM, readImages, readLabels, requireFashion } from './fashion_mnist';

const COLLECTION = 'soak';
const RECORDS = 20_000;
const CLIENTS = 16;
const UPSERT_BATCH = 10;
const LOAD_BATCH = 1_000;
const TOP_K = 10;
const QUERIES = 500;
const WINDOW_S = 60;
const CALIBRATE_S = Number(process.env.BENCH_CALIBRATE_SECONDS ?? 30);
const OFFERED_FRACTION = 0.8;
const OPEN_N = Number(process.env.BENCH_OPEN_N ?? 1_000_000);
const OPEN_DIM = 64;
const OPEN_BATCH = 10_000;
const OPEN_RUNS = 3;

type Route = 'search' | 'search_filtered' | 'upsert' | 'list' | 'aggregate';
const ROUTES: Route[] = ['search', 'search_filtered', 'upsert', 'list', 'aggregate'];

function minutesArg(): number {
  const args = process.argv.slice(2);
  const i = args.indexOf('--minutes');
  const minutes = i < 0 ? 10 : Number(args[i + 1]);
  if (!(Number.isInteger(minutes) && minutes >= 2))
    throw new Error(`--minutes takes a whole number of at least 2 (a first and a last minute), got ${args[i + 1]}`);
  return minutes;
}

// ---------------------------------------------------------------------------------------------
// The soak's data and request bodies

/** Pixel k as JSON text: k / 255, six decimals (f32 holds about seven digits). */
const PIXEL_TEXT = Array.from({ length: 256 }, (_, k) => (k === 0 ? '0' : k === 255 ? '1' : (k / 255).toFixed(6)));

class SoakData {
  private readonly train = readImages('train');
  private readonly trainLabels = readLabels('train');
  private readonly test = readImages('t10k');
  private readonly testLabels = readLabels('t10k');
  /** Each record's current version (overwrites bump it) and the bytes of its attrs JSON. */
  readonly version = new Uint32Array(RECORDS);
  readonly attrsBytes = new Uint32Array(RECORDS);

  constructor() {
    if (this.train.dim !== FASHION_DIM) throw new Error(`unexpected Fashion-MNIST dimension ${this.train.dim}`);
  }

  private vectorText(bytes: Uint8Array, image: number): string {
    const parts = new Array<string>(FASHION_DIM);
    for (let j = 0; j < FASHION_DIM; j++) parts[j] = PIXEL_TEXT[bytes[image * FASHION_DIM + j]];
    return `[${parts.join(',')}]`;
  }

  /** Record i at its current version: `{"id","vector","attrs"}`; remembers the attrs' size. */
  record(i: number): string {
    const v = this.version[i];
    const image = (i + RECORDS * v) % this.train.count;
    const label = this.trainLabels[image];
    let ink = 0;
    for (let j = 0; j < FASHION_DIM; j++) ink += this.train.bytes[image * FASHION_DIM + j];
    const attrs = `{"label":{"Int":${label}},"class":{"Str":"${FASHION_CLASSES[label]}"},"ink":{"Float":${(ink / FASHION_DIM / 255).toFixed(4)}},"version":{"Int":${v}}}`;
    this.attrsBytes[i] = Buffer.byteLength(attrs);
    return `{"id":"r${i}","vector":${this.vectorText(this.train.bytes, image)},"attrs":${attrs}}`;
  }

  upsertBody(ids: number[]): Buffer {
    return Buffer.from(`{"records":[${ids.map((i) => this.record(i)).join(',')}]}`);
  }

  /** Prebuilt /search bodies for the first QUERIES test images; filtered ones ask for the image's own class. */
  searchBodies(filtered: boolean): Buffer[] {
    return Array.from({ length: Math.min(QUERIES, this.test.count) }, (_, q) => {
      const filter = filtered ? `,"filter":[{"Eq":["label",{"Int":${this.testLabels[q]}}]}]` : '';
      return Buffer.from(`{"query":${this.vectorText(this.test.bytes, q)},"top_k":${TOP_K}${filter}}`);
    });
  }

  /** Bytes of the live records: f32 vectors, ids and attrs as sent. */
  liveBytes(): number {
    let bytes = 0;
    for (let i = 0; i < RECORDS; i++) bytes += FASHION_DIM * 4 + `r${i}`.length + this.attrsBytes[i];
    return bytes;
  }
}

/** Picks the next request of the mix. */
class Mix {
  private readonly rng = new Rng(0x50a4);
  private readonly search: Buffer[];
  private readonly filtered: Buffer[];

  constructor(private readonly data: SoakData) {
    this.search = data.searchBodies(false);
    this.filtered = data.searchBodies(true);
  }

  next(): { route: Route; path: string; body: Buffer } {
    const r = this.rng.next();
    if (r < 0.7) {
      const filtered = this.rng.next() < 1 / 3;
      const bodies = filtered ? this.filtered : this.search;
      return { route: filtered ? 'search_filtered' : 'search', path: '/search', body: bodies[this.rng.int(bodies.length)] };
    }
    if (r < 0.9) {
      const ids = new Set<number>();
      while (ids.size < UPSERT_BATCH) ids.add(this.rng.int(RECORDS));
      for (const i of ids) this.data.version[i]++;
      return { route: 'upsert', path: `/collections/${COLLECTION}/upsert`, body: this.data.upsertBody([...ids]) };
    }
    const label = this.rng.int(10);
    if (r < 0.95) {
      const body = `{"scope":["${COLLECTION}"],"filter":[{"Eq":["label",{"Int":${label}}]}],"limit":20,"order_by":{"field":"ink","descending":true}}`;
      return { route: 'list', path: '/list', body: Buffer.from(body) };
    }
    const body = `{"scope":["${COLLECTION}"],"filter":[{"Ge":["ink",{"Float":${(0.1 + label / 30).toFixed(3)}}]}],"sum":["version"],"group_by":"class"}`;
    return { route: 'aggregate', path: '/aggregate', body: Buffer.from(body) };
  }
}

// ---------------------------------------------------------------------------------------------
// The server and its client

interface Served {
  url: string;
  proc: ChildProcess;
  /** Resolves the exit code once the process is gone. */
  exited: Promise<number | null>;
}

/** Spawns `tessera serve`; resolves once it prints its listening line. */
function serve(args: string[]): Promise<Served> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  process.once('exit', () => proc.kill('SIGKILL')); // a failed run leaves no server behind
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)\n/.exec(out);
      if (m) resolve({ url: m[1], proc, exited });
    });
    void exited.then((code) => reject(new Error(`tessera serve exited with ${code} before listening: ${stderr}`)));
  });
}

async function untilReady(server: Served): Promise<void> {
  for (;;) {
    const res = await fetch(`${server.url}/ready`).catch(() => null);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function stop(server: Served): Promise<number | null> {
  server.proc.kill('SIGTERM');
  return server.exited;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

interface Answer {
  status: number;
  text: string;
}

/** One request over the keep-alive pool; status 0 for a transport error. */
function request(url: string, method: string, pathname: string, body?: Buffer): Promise<Answer> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = body ? { 'content-type': 'application/json', 'content-length': body.length } : {};
    const req = http.request(`${url}${pathname}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (e) => resolve({ status: 0, text: String(e) }));
    });
    req.on('error', (e) => resolve({ status: 0, text: String(e) }));
    req.end(body);
  });
}

async function getJson<T>(url: string, pathname: string): Promise<T> {
  const r = await request(url, 'GET', pathname);
  if (r.status !== 200) throw new Error(`GET ${pathname}: ${r.status} ${r.text}`);
  return JSON.parse(r.text) as T;
}

// ---------------------------------------------------------------------------------------------
// Measurements of the server process and its store

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

/** Bytes the directory's files occupy on disk (allocated blocks, like du). */
function diskBytes(dir: string): number {
  let bytes = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    bytes += e.isDirectory() ? diskBytes(p) : fs.statSync(p).blocks * 512;
  }
  return bytes;
}

/** Sum of every `*compactions_total` series in /metrics, or null when the server exports none. */
async function compactions(url: string): Promise<number | null> {
  const text = (await request(url, 'GET', '/metrics')).text;
  let total: number | null = null;
  for (const m of text.matchAll(/^\w*compactions_total(?:\{[^}]*\})?\s+(\S+)$/gm)) total = (total ?? 0) + Number(m[1]);
  return total;
}

interface Footprint {
  rows: number;
  dead_rows: number;
  doc_count: number;
}
const footprint = async (url: string) => (await getJson<{ footprint: Footprint }>(url, '/stats')).footprint;

// ---------------------------------------------------------------------------------------------
// Load

interface Tally {
  latencies: Record<Route, number[]>;
  completed: number;
  errors: number;
}
const newTally = (): Tally => ({ latencies: { search: [], search_filtered: [], upsert: [], list: [], aggregate: [] }, completed: 0, errors: 0 });

class Load {
  errors = 0;
  readonly errorSamples: string[] = [];

  constructor(
    private readonly url: string,
    private readonly mix: Mix,
  ) {}

  private async send(tally: () => Tally, scheduled: number): Promise<void> {
    const { route, path: pathname, body } = this.mix.next();
    const r = await request(this.url, 'POST', pathname, body);
    const t = tally();
    t.completed++;
    t.latencies[route].push(now() - scheduled);
    if (r.status !== 200) {
      t.errors++;
      this.errors++;
      if (this.errorSamples.length < 5) this.errorSamples.push(`${route} ${r.status}: ${r.text.slice(0, 200)}`);
    }
  }

  /** CLIENTS clients, each sending its next request as soon as its last is answered: what the server sustains. */
  async closed(seconds: number): Promise<Tally> {
    const tally = newTally();
    const end = now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (now() < end) await this.send(() => tally, now());
      }),
    );
    return tally;
  }

  /**
   * Requests scheduled at `rate` per second for `seconds`, sent by at most CLIENTS at a time (a
   * request whose time comes while all are busy waits, and its latency counts the wait). Each
   * completion lands in the tally of the window it completes in; `atWindow(k)` runs as window k
   * closes. Resolves the windows and the requests never sent (a backlog at the end).
   */
  async open(rate: number, seconds: number, atWindow: (k: number, window: Tally) => Promise<void>): Promise<{ windows: Tally[]; unsent: number }> {
    const windows = Array.from({ length: Math.ceil(seconds / WINDOW_S) }, newTally);
    const start = now();
    const total = Math.floor(rate * seconds);
    const windowOf = () => windows[Math.min(windows.length - 1, Math.floor((now() - start) / (WINDOW_S * 1000)))];
    let issued = 0;
    let busy = 0;
    const waiting: number[] = [];
    const inFlight = new Set<Promise<void>>();
    const pump = () => {
      const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate));
      for (; issued < due; issued++) waiting.push(start + (issued * 1000) / rate);
      while (busy < CLIENTS && waiting.length > 0 && now() - start < seconds * 1000) {
        busy++;
        const p = this.send(windowOf, waiting.shift()!).finally(() => {
          busy--;
          inFlight.delete(p);
          pump();
        });
        inFlight.add(p);
      }
    };
    const timer = setInterval(pump, 1);
    for (let k = 0; k < windows.length; k++) {
      const closesAt = start + Math.min((k + 1) * WINDOW_S, seconds) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(0, closesAt - now())));
      if (k === windows.length - 1) clearInterval(timer);
      await atWindow(k, windows[k]);
    }
    await Promise.all(inFlight);
    return { windows, unsent: waiting.length + (total - issued) };
  }
}

const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50_ms: round(percentile(s, 50), 2), p99_ms: round(percentile(s, 99), 2) };
};

// ---------------------------------------------------------------------------------------------
// The 1M-record store, opened by fresh server processes

/** nlp-corpus@4.4.0 builds/doc-*.json: 100,000 English sentences. */
function sentences(): { texts: string[]; source: string } {
  const dir = path.join(pkgRoot('nlp-corpus'), 'builds');
  const texts: string[] = [];
  for (const f of fs
    .readdirSync(dir)
    .filter((f) => /^doc-\d+\.json$/.test(f))
    .sort())
    texts.push(...(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as string[]));
  return { texts, source: `nlp-corpus@${pkgVersion('nlp-corpus')} (${texts.length} sentences, cycled)` };
}

const OPEN_CATS = Array.from({ length: 16 }, (_, i) => `c${i}`);

/** The cached 1M store's directory, built (and marked complete) when absent. */
async function openStore(): Promise<{ dir: string; built_s: number | null; text: string }> {
  const dir = path.join(os.tmpdir(), `tessera-bench-soak-open-${OPEN_N}x${OPEN_DIM}-fts-filter-seed1`);
  const complete = `${dir}.complete`;
  const { texts, source } = sentences();
  if (fs.existsSync(complete)) {
    log(`1M store: cached at ${dir}`);
    return { dir, built_s: null, text: source };
  }
  removeDir(dir);
  log(`1M store: building ${OPEN_N} x ${OPEN_DIM} at ${dir} (once; later runs reuse it)`);
  const t0 = now();
  const store = await Store.open({ path: dir, dimension: OPEN_DIM });
  await store.createCollection('docs');
  await store.setFtsSchema('docs', ['body']);
  await store.setFilterIndex('docs', ['cat', { field: 'body', tokens: true }]);
  const rng = new Rng(1);
  // JSON strings in ASCII (non-ASCII as \u escapes), as writeAscii writes them.
  const bodies = texts.map((t) => JSON.stringify(t).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  const body = (row: number) => bodies[row % bodies.length];
  for (let from = 0; from < OPEN_N; from += OPEN_BATCH) {
    const to = Math.min(OPEN_N, from + OPEN_BATCH);
    const vectors = randomUnitVectors(rng, to - from, OPEN_DIM);
    const text = upsertBody(vectors, OPEN_DIM, 0, to - from, {
      idPrefix: `d${from}-`,
      attrs: (buf, pos, r) =>
        writeAscii(buf, pos, `{"cat":{"Str":"${OPEN_CATS[(from + r) % OPEN_CATS.length]}"},"n":{"Int":${from + r}},"body":{"Str":${body(from + r)}}}`),
      attrsBound: (r) => 80 + body(from + r).length,
    });
    await store.upsert('docs', text);
    if ((to / OPEN_BATCH) % 20 === 0) log(`  upserted ${to} / ${OPEN_N}`);
  }
  await store.flush();
  await store.close();
  fs.writeFileSync(complete, `${new Date().toISOString()}\n`);
  const built = (now() - t0) / 1000;
  log(`1M store: built in ${built.toFixed(1)} s`);
  return { dir, built_s: round(built, 1), text: source };
}

/**
 * Spawn to /ready 200 of a fresh server on the 1M store, OPEN_RUNS times, each beside the floor
 * any server process pays: spawning node with the CLI's modules loaded and nothing opened
 * (`tessera --help`).
 */
async function openTimes(dir: string): Promise<{ ready_s: number[]; listening_s: number[]; process_floor_s: number[] }> {
  const ready: number[] = [];
  const listening: number[] = [];
  const floor: number[] = [];
  for (let run = 0; run < OPEN_RUNS; run++) {
    const f0 = now();
    if (spawnSync(process.execPath, [CLI, '--help']).status !== 0) throw new Error('tessera --help failed');
    floor.push(round((now() - f0) / 1000, 3));
    const t0 = now();
    const server = await serve(['--data', dir]);
    listening.push(round((now() - t0) / 1000, 3));
    await untilReady(server);
    ready.push(round((now() - t0) / 1000, 3));
    const docs = (await footprint(server.url)).doc_count;
    if (docs !== OPEN_N) throw new Error(`the 1M store serves ${docs} records, not ${OPEN_N}`);
    const code = await stop(server);
    if (code !== 0) throw new Error(`the 1M store's server exited with ${code}`);
    log(`  open #${run + 1}: listening ${listening[run]} s, ready ${ready[run]} s (process floor ${floor[run]} s)`);
  }
  return { ready_s: ready, listening_s: listening, process_floor_s: floor };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const minutes = minutesArg();
  requireFashion();
  log(`bench:soak, ${minutes} minutes, on ${JSON.stringify(machine())}`);
  const data = new SoakData();
  const mix = new Mix(data);
  const dir = freshDir('soak');
  const server = await serve(['--data', dir, '--dimension', String(FASHION_DIM), '--distance', 'Euclidean']);
  await untilReady(server);
  const pid = server.proc.pid!;

  // The collection: 20,000 records, version 0.
  for (let from = 0; from < RECORDS; from += LOAD_BATCH) {
    const ids = Array.from({ length: Math.min(LOAD_BATCH, RECORDS - from) }, (_, k) => from + k);
    const r = await request(server.url, 'POST', `/collections/${COLLECTION}/upsert`, data.upsertBody(ids));
    if (r.status !== 200) throw new Error(`loading: ${r.status} ${r.text}`);
  }
  log(`loaded ${RECORDS} records; calibrating for ${CALIBRATE_S} s (${CLIENTS} clients, closed loop)`);

  const load = new Load(server.url, mix);
  const calibration = await load.closed(CALIBRATE_S);
  const sustained = calibration.completed / CALIBRATE_S;
  const rate = Math.max(1, Math.round(sustained * OFFERED_FRACTION));
  log(`sustained ${sustained.toFixed(0)} req/s; offering ${rate} req/s for ${minutes} min`);

  const start = { rss: rssBytes(pid), disk: diskBytes(dir), compactions: await compactions(server.url), footprint: await footprint(server.url) };
  const samples: { rss: number; disk: number; compactions: number | null; footprint: Footprint }[] = [];
  const { windows, unsent } = await load.open(rate, minutes * WINDOW_S, async (k, window) => {
    const sample = { rss: rssBytes(pid), disk: diskBytes(dir), compactions: await compactions(server.url), footprint: await footprint(server.url) };
    samples.push(sample);
    log(
      `minute ${k + 1}: ${(window.completed / WINDOW_S).toFixed(0)} req/s, errors ${window.errors}, search p99 ${summary(window.latencies.search).p99_ms} ms, ` +
        `RSS ${(sample.rss / 2 ** 20).toFixed(0)} MiB, disk ${(sample.disk / 2 ** 20).toFixed(0)} MiB, rows ${sample.footprint.rows} (dead ${sample.footprint.dead_rows})`,
    );
  });

  const end = samples[samples.length - 1];
  const mid = samples[Math.floor(samples.length / 2) - 1];
  const live = data.liveBytes();
  if (end.footprint.doc_count !== RECORDS) throw new Error(`the store holds ${end.footprint.doc_count} live records, not ${RECORDS}`);
  const perMinute = windows.map((w, k) => ({
    minute: k + 1,
    requests_per_s: round(w.completed / WINDOW_S, 1),
    errors: w.errors,
    routes: Object.fromEntries(ROUTES.map((r) => [r, summary(w.latencies[r])])),
    rss_bytes: samples[k].rss,
    disk_bytes: samples[k].disk,
    rows: samples[k].footprint.rows,
    dead_rows: samples[k].footprint.dead_rows,
    compactions: samples[k].compactions,
  }));
  const exitCode = await stop(server);
  removeDir(dir);
  if (load.errorSamples.length > 0) log(`errors, first ones: ${load.errorSamples.join(' | ')}`);

  log('opening the 1M-record store with fresh server processes');
  const opened = await openStore();
  const times = await openTimes(opened.dir);
  const sortedReady = [...times.ready_s].sort((a, b) => a - b);

  emit({
    bench: 'soak',
    data: `real: Fashion-MNIST (Debian dataset-fashion-mnist) ${RECORDS} x ${FASHION_DIM}, Euclidean, attrs label/class/ink/version; record i at version v is train image (i + ${RECORDS} v) mod 60000; queries: ${QUERIES} test images`,
    mix: `${CLIENTS} clients: 70% /search (a third filtered Eq label), 20% /upsert of ${UPSERT_BATCH} overwrites, 5% /list (Eq label, order_by ink, limit 20), 5% /aggregate (Ge ink, sum, group_by class)`,
    server: 'tessera serve --dimension 784 --distance Euclidean (defaults otherwise: exact search, mmap)',
    minutes,
    calibration: { seconds: CALIBRATE_S, sustained_per_s: round(sustained, 1), errors: calibration.errors },
    offered_per_s: rate,
    offered_fraction: OFFERED_FRACTION,
    per_minute: perMinute,
    start: { rss_bytes: start.rss, disk_bytes: start.disk, rows: start.footprint.rows, dead_rows: start.footprint.dead_rows, compactions: start.compactions },
    throughput_last_over_first: round(windows[windows.length - 1].completed / windows[0].completed, 3),
    rss_growth_second_half: round(end.rss / mid.rss - 1, 3),
    disk_over_live: round(end.disk / live, 2),
    live_bytes: live,
    errors: load.errors,
    unsent_at_end: unsent,
    compactions: end.compactions === null || start.compactions === null ? null : end.compactions - start.compactions,
    server_exit_code: exitCode,
    open_1m_s: sortedReady[Math.floor(sortedReady.length / 2)],
    open_1m: {
      records: OPEN_N,
      store: `${OPEN_N} x ${OPEN_DIM} synthetic unit vectors, attrs cat (Str, filter index), n (Int), body (Str, fts-schema and token filter index) from ${opened.text}`,
      ready_s: times.ready_s,
      listening_s: times.listening_s,
      process_floor_s: times.process_floor_s,
      built_s: opened.built_s,
      cached_at: opened.dir,
    },
    targets: { throughput_last_over_first: '>= 0.9', rss_growth_second_half: '<= 0.05', disk_over_live: '<= 2', errors: 0, open_1m_s: '< 1' },
    machine: machine(),
  });
}

runBench(main);
