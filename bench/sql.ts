// bench:sql — POST /query (docs/sql.md): what compiling a SELECT costs, and what /query costs over
// HTTP against the typed route the statement compiles to.
//
// 1. Compile. BENCH_COMPILE_N (3,000) distinct statements from a seeded Rng, an equal share of each
//    of the five kinds (search, text-search, hybrid-search, list, aggregate): 128-d seeded random
//    unit vectors written with 8 decimals, real English words from nlp-corpus@4.4.0 in the BM25
//    queries and the string predicates, WHERE with 2-5 predicates (comparisons, BETWEEN, IN, LIKE,
//    CONTAINS, TIMESTAMP, IS NOT MISSING, token functions, OR groups, NOT), OPTIONS with 1-3 fields.
//    Timed per statement: exactly compileScript's work without its cache (parseScript, then
//    compileStatement and stringifyExact of the body per statement); two warm-up passes, then
//    BENCH_COMPILE_ROUNDS (5) timed passes, each in a fresh seeded order. p50/p99 are over the
//    statements, each at its best pass (every sample's p50/p99 too). Beside it, in the same run:
//    compileScript on a cache hit (a fresh copy of the text each time, so its hash is not cached,
//    as with a string the server has just parsed) and JSON.parse of the compiled body's text.
// 2. HTTP. `tessera serve --data <tmp> --dimension 128` in a child process, holding 1,000 x 128
//    seeded random unit vectors (collection `bench`, attrs n Int, cat Str, x Float) and the first
//    20,000 nlp-corpus sentences (collection `text`, fts-schema on `text`). Cases: /search top-10,
//    /text-search top-10 (two words from a corpus sentence), /list with a 4-predicate filter. Each
//    case has a pool of 64 typed bodies and the 64 equivalent SELECTs (answers checked byte for
//    byte first). Four targets per case, autocannon at 16 connections for BENCH_SECONDS (3), one
//    warm-up run each (BENCH_WARMUP_SECONDS, 1), then BENCH_ROUNDS (4) rounds with the order
//    rotated each round:
//      typed        the typed route, the 64 bodies cycled
//      query        POST /query, the 64 statements cycled: the compile cache answers
//      typed_fresh  the typed route, every request a body never sent before
//      query_fresh  POST /query, every request a statement never sent before: the cache never hits
//    "Fresh" varies one literal per request from a counter shared by all connections, in the same
//    way on both routes, so the work behind it is the same: digits past f32 precision appended to
//    the vector's last element (/search), a made-up word in no document appended to the BM25 query
//    (/text-search), digits past f64 precision appended to the Float bound of the filter (/list).
//    Throughput is the best round per target (as in bench:http); the median of the per-round
//    ratios (typed and query measured back to back) is reported beside it.
//    overhead_ratio = typed req/s / query req/s; the headline is the geometric mean over the three
//    cases (per-case values in `http.cases`); overhead_ratio_uncached likewise from the fresh targets.
//    Beside them, from /proc: the server's CPU per request (all its threads, and its JS thread
//    alone), median over rounds, and the same ratios of CPU (query / typed). The JS thread's is
//    the steadiest on a shared machine; the all-threads figure also counts the core's query
//    threads, which spin up to 200 us for the next request before they park, and V8's GC threads.
//
// BENCH_CASES=search,text,list runs only those cases (a quick check; the headline then covers only them).
// BENCH_CPU_PROF=<dir> starts the server with --cpu-prof (the profile is written when it exits) and
// writes <dir>/windows.json: each autocannon run's time window on the profile's clock.
// Progress goes to stderr; the last stdout line is one JSON object.
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringifyExact } from '../lib/exact_json';
import { compileStatement, type Kind } from '../lib/features/sql/compile';
import { parseScript } from '../lib/features/sql/parse';
import { compileScript } from '../lib/features/sql/query';
import { emit, freshDir, log, machine, nlpSentences, percentile, pkgVersion, randomUnitVectors, removeDir, Rng, round, runBench } from './common';

const DIM = 128;
const VEC_N = 1_000;
const TEXT_N = 20_000;
const POOL = 64;
const CONNECTIONS = 16;
const COMPILE_N = Number(process.env.BENCH_COMPILE_N ?? 3_000);
const COMPILE_ROUNDS = Number(process.env.BENCH_COMPILE_ROUNDS ?? 5);
const HIT_N = 256;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const CPU_PROF = process.env.BENCH_CPU_PROF;
const ONLY_CASES = process.env.BENCH_CASES?.split(',');
const KINDS: Kind[] = ['search', 'text-search', 'hybrid-search', 'list', 'aggregate'];
const TARGET_COMPILE_P50_US = 50;
const TARGET_OVERHEAD_RATIO = 1.1;

// --- 1. compile time ------------------------------------------------------------------------------

interface Generated {
  kind: Kind;
  sql: string;
}

/** Distinct English words of 3+ letters from the corpus, in first-seen order. */
function corpusWords(texts: string[]): string[] {
  const seen = new Set<string>();
  for (const t of texts) for (const w of t.toLowerCase().match(/[a-z]{3,}/g) ?? []) seen.add(w);
  return [...seen];
}

/** `n` distinct statements, kinds in turn, from a seeded Rng. */
export function generateStatements(n: number, words: string[], seed: number): Generated[] {
  const rng = new Rng(seed);
  const pick = <T>(a: readonly T[]): T => a[rng.int(a.length)];
  const word = () => pick(words);
  const some = <T>(a: readonly T[], min: number, max: number): T[] => {
    const copy = [...a];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, min + rng.int(max - min + 1));
  };
  const vectors = randomUnitVectors(rng, Math.ceil((2 * n) / KINDS.length) + 8, DIM);
  let nextVector = 0;
  const vector = () => {
    const o = DIM * nextVector++;
    return `[${Array.from(vectors.subarray(o, o + DIM), (x) => x.toFixed(8)).join(', ')}]`;
  };
  const projection = () => pick(['*', '* EXCEPT (body, notes)', 'title, year, cat', 'title, "page-count", svc.expires_at', `title, ${word()}_score`]);
  const from = () => pick(['papers', 'docs-2024', 'papers, docs-2024', 'bench', 'text', '"reading list"']);
  const predicates: (() => string)[] = [
    () => `year >= ${1990 + rng.int(35)}`,
    () => {
      const a = rng.int(10_000);
      return `n BETWEEN ${a} AND ${a + 1 + rng.int(5_000)}`;
    },
    () =>
      `cat IN (${some(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'], 2, 4)
        .map((c) => `'${c}'`)
        .join(', ')})`,
    () => `tags CONTAINS '${word()}'`,
    () => `tags CONTAINS ANY ('${word()}', '${word()}')`,
    () => `x < ${(rng.next() * 10).toFixed(3)}`,
    () => `title LIKE '${word().slice(0, 3)}%'`,
    () => `NOT cat = 'c${rng.int(8)}'`,
    () => `published >= TIMESTAMP '20${10 + rng.int(15)}-0${1 + rng.int(9)}-1${rng.int(9)}T12:30:00Z'`,
    () => `body IS NOT MISSING`,
    () => `CONTAINS_ALL_TOKENS(body, '${word()} ${word()}')`,
    () => `(cat = 'c${rng.int(8)}' OR year < ${1980 + rng.int(40)})`,
    () => `"page-count" > ${rng.int(500)}`,
    () => `FUZZY(title, '${word()}', 1)`,
    () => `svc.expires_at IS NULL`,
    () => `venue NOT IN ('arXiv', '${word()}')`,
  ];
  const where = (min: number, max: number) => ` WHERE ${Array.from({ length: min + rng.int(max - min + 1) }, () => pick(predicates)()).join(' AND ')}`;
  const maybeWhere = () => (rng.next() < 0.75 ? where(2, 5) : '');
  const options = (all: string[]) => ` OPTIONS (${some(all, 1, 3).join(', ')})`;
  const maybeOptions = (all: string[]) => (rng.next() < 0.7 ? options(all) : '');
  const limit = () => ` LIMIT ${1 + rng.int(100)}${rng.next() < 0.2 ? ` OFFSET ${rng.int(200)}` : ''}`;
  const bm25 = () => {
    const r = rng.next();
    if (r < 0.6) return `BM25(body, '${word()} ${word()}${rng.next() < 0.5 ? ` ${word()}` : ''}')`;
    if (r < 0.85) return `BM25(title, '${word()}') + BM25(body, '${word()} ${word()}')`;
    return `GREATEST(BM25(title, '${word()} ${word()}'), BM25(body, '${word()}', prefix => TRUE))`;
  };
  const searchOptions = () => [
    `min_score = 0.${1 + rng.int(8)}`,
    'exact = TRUE',
    `limit_per = {field: 'cat', max: ${1 + rng.int(4)}}`,
    'plan = FALSE',
    `rank_by = Decay(field => 'published', origin => TIMESTAMP '2024-05-01')`,
  ];
  const textOptions = () => [
    `min_score = ${(rng.next() * 3).toFixed(2)}`,
    `limit_per = {field: 'venue', max: ${1 + rng.int(4)}}`,
    'explain = TRUE',
    `highlight = {max_fragments: ${1 + rng.int(3)}, fragment_chars: 120}`,
  ];
  const hybridOptions = () => [`limit_per = {field: 'cat', max: ${1 + rng.int(4)}}`, 'explain = FALSE', 'highlight = {}', 'plan = TRUE'];
  const make: Record<Kind, () => string> = {
    search: () => `SELECT ${projection()} FROM ${from()}${maybeWhere()} ORDER BY NEAREST(${vector()}) DESC${limit()}${maybeOptions(searchOptions())}`,
    'text-search': () => `SELECT ${projection()} FROM ${from()}${maybeWhere()} ORDER BY ${bm25()}${limit()}${maybeOptions(textOptions())}`,
    'hybrid-search': () => {
      const args = some([`k => ${20 + rng.int(80)}`, `candidates => ${50 + rng.int(200)}`, `vector_weight => 0.${1 + rng.int(9)}`, 'text_weight => 1.0'], 0, 2);
      return `SELECT ${projection()} FROM ${from()}${maybeWhere()} ORDER BY RRF(NEAREST(${vector()}), ${bm25()}${args.map((a) => `, ${a}`).join('')})${limit()}${maybeOptions(hybridOptions())}`;
    },
    list: () =>
      `SELECT ${projection()} FROM ${from()}${where(2, 5)}${rng.next() < 0.7 ? ` ORDER BY ${pick(['year', 'n', 'published', 'x'])}${pick(['', ' ASC', ' DESC'])}` : ''}${limit()}`,
    aggregate: () => {
      const group = rng.next() < 0.7 ? pick(['cat', 'venue', 'year']) : null;
      const sums = some(['SUM(n)', 'SUM(x)', 'SUM("page-count")'], 0, 2);
      const select = ['COUNT(*)', ...sums, ...(group ? [group] : [])].join(', ');
      return `SELECT ${select} FROM ${from()}${where(2, 5)}${group ? ` GROUP BY ${group}${rng.next() < 0.3 ? ' ORDER BY COUNT(*) DESC' : ''}` : ''}`;
    },
  };
  const seen = new Set<string>();
  const out: Generated[] = [];
  while (out.length < n) {
    const kind = KINDS[out.length % KINDS.length];
    const sql = make[kind]();
    if (seen.has(sql)) continue;
    seen.add(sql);
    out.push({ kind, sql });
  }
  return out;
}

/** compileScript's work without its cache: parse, compile and serialize every statement. */
function compileUncached(sql: string): { kind: Kind; bytes: Buffer }[] {
  const { statements, byteOffset } = parseScript(sql);
  return statements.map((s) => {
    const compiled = compileStatement(s, byteOffset);
    return { kind: compiled.kind, bytes: stringifyExact(compiled.body) };
  });
}

interface Dist {
  n: number;
  p50_us: number;
  p99_us: number;
  mean_us: number;
}

function dist(us: number[]): Dist {
  const s = [...us].sort((a, b) => a - b);
  return { n: s.length, p50_us: round(percentile(s, 50), 2), p99_us: round(percentile(s, 99), 2), mean_us: round(s.reduce((a, b) => a + b, 0) / s.length, 2) };
}

const elapsedUs = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e3;

function shuffled(n: number, rng: Rng): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

function compileBench(words: string[]): Record<string, unknown> {
  const generated = generateStatements(COMPILE_N, words, 11);
  log(`compile: ${generated.length} distinct statements`);
  // Every statement compiles, to its intended kind, and to the bytes compileScript produces.
  const bodies: string[] = [];
  for (const g of generated) {
    const ours = compileUncached(g.sql);
    const real = compileScript(g.sql);
    if (ours.length !== 1 || ours[0].kind !== g.kind || !ours[0].bytes.equals(real[0].bytes)) throw new Error(`compile check failed: ${g.sql.slice(0, 200)}`);
    bodies.push(ours[0].bytes.toString('utf8'));
  }
  let sink = 0;
  for (let pass = 0; pass < 2; pass++) for (const g of generated) sink += compileUncached(g.sql).length;

  const rng = new Rng(12);
  // Per statement, its time in each round; per statement too, JSON.parse of its compiled body.
  const times: number[][] = generated.map(() => []);
  const jsonTimes: number[][] = generated.map(() => []);
  for (let r = 0; r < COMPILE_ROUNDS; r++) {
    for (const i of shuffled(generated.length, rng)) {
      const sql = generated[i].sql;
      const t = process.hrtime.bigint();
      sink += compileUncached(sql).length;
      times[i].push(elapsedUs(t));
      const tj = process.hrtime.bigint();
      sink += (JSON.parse(bodies[i]) as object) === null ? 1 : 0;
      jsonTimes[i].push(elapsedUs(tj));
    }
  }

  // Cache hits: a few statements of each kind, looked up by a fresh copy of their text.
  const hitSet = generated.slice(0, HIT_N);
  const first = hitSet.map((g) => compileScript(g.sql));
  const hits: number[] = [];
  let misses = 0;
  for (let r = 0; r < COMPILE_ROUNDS + 2; r++) {
    const copies = hitSet.map((g) => Buffer.from(g.sql, 'utf8').toString('utf8'));
    for (let i = 0; i < copies.length; i++) {
      const t = process.hrtime.bigint();
      const got = compileScript(copies[i]);
      const us = elapsedUs(t);
      if (got !== first[i]) misses++;
      if (r >= 2) hits.push(us);
    }
  }
  if (sink < 0) log('unreachable');

  const lengths = (kind?: Kind) => {
    const g = generated.filter((s) => kind === undefined || s.kind === kind);
    return Math.round(g.reduce((a, s) => a + s.sql.length, 0) / g.length);
  };
  // The headline takes each statement's best round (what the statement costs when nothing else
  // interrupts it: a shared 2-core machine preempts a few percent of 50 us calls), then p50 and p99
  // over the statements; every sample (GC pauses and preemption included) is reported beside it.
  const best = (rows: number[][], keep: (i: number) => boolean = () => true) => rows.filter((_, i) => keep(i)).map((r) => Math.min(...r));
  const all = (rows: number[][], keep: (i: number) => boolean = () => true) => rows.filter((_, i) => keep(i)).flat();
  const ofKind = (k: Kind) => (i: number) => generated[i].kind === k;
  const overall = dist(best(times));
  const jsonParse = dist(best(jsonTimes));
  const perKind = Object.fromEntries(
    KINDS.map((k) => {
      const a = dist(all(times, ofKind(k)));
      return [k, { ...dist(best(times, ofKind(k))), all_samples: { p50_us: a.p50_us, p99_us: a.p99_us, mean_us: a.mean_us }, mean_chars: lengths(k) }];
    }),
  );
  const samples = dist(all(times));
  log(
    `compile p50 ${overall.p50_us} us, p99 ${overall.p99_us} us (best of ${COMPILE_ROUNDS} rounds per statement); every sample: p50 ${samples.p50_us} us, p99 ${samples.p99_us} us; JSON.parse of the body p50 ${jsonParse.p50_us} us`,
  );
  for (const k of KINDS) log(`  ${k.padEnd(14)} p50 ${perKind[k].p50_us} us, p99 ${perKind[k].p99_us} us, mean ${perKind[k].mean_chars} chars`);
  const hit = dist(hits);
  log(`cache hit p50 ${hit.p50_us} us, p99 ${hit.p99_us} us (${misses} misses)`);
  return {
    statements: generated.length,
    rounds: COMPILE_ROUNDS,
    timed:
      "parseScript + compileStatement + stringifyExact per statement (compileScript without its cache), every statement distinct; p50/p99 over statements of each one's best round",
    p50_us: overall.p50_us,
    p99_us: overall.p99_us,
    mean_us: overall.mean_us,
    all_samples: { ...samples, what: 'every timed call, GC pauses and preemption included' },
    mean_chars: lengths(),
    per_kind: perKind,
    json_parse_body: { ...jsonParse, what: 'JSON.parse of the compiled body text, same statements, same loop, best round' },
    compile_over_json_parse_p50: round(overall.p50_us / jsonParse.p50_us, 2),
    cache_hit: { ...hit, statements: HIT_N, misses, what: 'compileScript on a fresh copy of an already compiled text' },
  };
}

// --- 2. HTTP overhead ------------------------------------------------------------------------------

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p50: number; p99: number };
  non2xx: number;
  errors: number;
}
interface CannonRequest {
  method: string;
  path: string;
  body?: string;
  headers: Record<string, string>;
  setupRequest?: (req: CannonRequest) => CannonRequest;
}
type Autocannon = (opts: { url: string; connections: number; duration: number; requests: CannonRequest[] }) => Promise<AutocannonResult>;
const autocannon: Autocannon = require('autocannon');

const JSON_HEADERS = { 'content-type': 'application/json' };
/** Stands where a fresh request puts its varying literal; split out of the body text beforehand. */
const MARK = '@@FRESH@@';

/** One case's requests: the pool of typed bodies and SQL bodies, and the fresh templates. */
interface Case {
  name: string;
  route: string;
  typed: string[];
  query: string[];
  /** [before, after] the varying literal, per pool entry. */
  typedFresh: [string, string][];
  queryFresh: [string, string][];
  /** The varying literal for request number n. */
  literal: (n: number) => string;
}

const split = (text: string): [string, string] => {
  const at = text.indexOf(MARK);
  if (at < 0 || text.indexOf(MARK, at + 1) >= 0) throw new Error(`no single mark in ${text.slice(0, 100)}`);
  return [text.slice(0, at), text.slice(at + MARK.length)];
};
const sqlBody = (sql: string): string => JSON.stringify({ sql });

/** The pool entries as [typed JSON, SQL] with MARK where the fresh literal goes; the pool drops it. */
function makeCase(name: string, route: string, entries: [string, string][], literal: (n: number) => string): Case {
  return {
    name,
    route,
    typed: entries.map(([t]) => t.replace(MARK, '')),
    query: entries.map(([, s]) => sqlBody(s.replace(MARK, ''))),
    typedFresh: entries.map(([t]) => split(t)),
    queryFresh: entries.map(([, s]) => split(sqlBody(s))),
    literal,
  };
}

/** Base-26 letters of n (unique per n), for a word that no document holds. */
function letters(n: number): string {
  let s = '';
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

function cases(texts: string[]): Case[] {
  const qv = randomUnitVectors(new Rng(2), POOL, DIM);
  const search: [string, string][] = [];
  for (let i = 0; i < POOL; i++) {
    // Digits appended past f32 precision (the store keeps f32) change the text, not the query.
    const v = `${Array.from(qv.subarray(i * DIM, (i + 1) * DIM), (x) => x.toFixed(8)).join(',')}0000000000${MARK}`;
    search.push([`{"query":[${v}],"scope":["bench"],"top_k":10}`, `SELECT * FROM bench ORDER BY NEAREST([${v}]) LIMIT 10`]);
  }
  const rng = new Rng(7);
  const text: [string, string][] = [];
  while (text.length < POOL) {
    const words = (texts[rng.int(texts.length)].toLowerCase().match(/[a-z]{4,}/g) ?? []).slice(0, 6);
    if (words.length < 2) continue;
    const q = `${words[0]} ${words[words.length - 1]}${MARK}`;
    text.push([`{"scope":["text"],"field":"text","query":"${q}","top_k":10}`, `SELECT * FROM text ORDER BY BM25(text, '${q}') LIMIT 10`]);
  }
  const list: [string, string][] = [];
  const lrng = new Rng(9);
  for (let i = 0; i < POOL; i++) {
    const cat = `c${i % 10}`;
    const a = lrng.int(700);
    // x holds 4 decimals; the bound has 5, so no value sits on it. The fresh digits go past f64 precision.
    const x = `${(0.1 + lrng.int(6000) / 10_000).toFixed(4)}5${'0'.repeat(20)}${MARK}`;
    list.push([
      `{"scope":["bench"],"filter":[{"Eq":["cat",{"Str":"${cat}"}]},{"Ge":["n",{"Int":${a}}]},{"Le":["n",{"Int":${a + 300}}]},{"Ge":["x",{"Float":${x}}]}],"order_by":{"field":"n","descending":true},"limit":10}`,
      `SELECT * FROM bench WHERE cat = '${cat}' AND n BETWEEN ${a} AND ${a + 300} AND x >= ${x} ORDER BY n DESC LIMIT 10`,
    ]);
  }
  return [
    makeCase('search', '/search', search, (n) => String(n + 1)),
    makeCase('text', '/text-search', text, (n) => ` zq${letters(n)}`),
    makeCase('list', '/list', list, (n) => String(n + 1)),
  ];
}

/** Forks `tessera serve` on a fresh directory and resolves once it prints its listening line. */
function startServer(cli: string, dir: string): Promise<{ url: string; proc: ChildProcess }> {
  const args = ['serve', '--data', dir, '--dimension', String(DIM), '--port', '0', '--log-level', 'warn'];
  const execArgv = CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : [];
  const proc = fork(cli, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], execArgv });
  // A bench that dies (a failed check, a closed stderr) takes its server with it.
  process.once('exit', () => proc.kill());
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], proc });
    });
    proc.on('exit', (code) => reject(new Error(`tessera serve exited with ${code}`)));
  });
}

async function post(url: string, body: string): Promise<Buffer> {
  const r = await fetch(url, { method: 'POST', body, headers: JSON_HEADERS });
  const bytes = Buffer.from(await r.arrayBuffer());
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${bytes.toString().slice(0, 300)}`);
  return bytes;
}

async function load(url: string, texts: string[]): Promise<void> {
  const rng = new Rng(1);
  const v = randomUnitVectors(rng, VEC_N, DIM);
  const records = [];
  for (let i = 0; i < VEC_N; i++) {
    const x = (rng.int(10_000) / 10_000).toFixed(4);
    records.push(
      `{"id":"doc-${i}","vector":[${Array.from(v.subarray(i * DIM, (i + 1) * DIM), (e) => e.toFixed(8)).join(',')}],"attrs":{"n":{"Int":${i}},"cat":{"Str":"c${rng.int(10)}"},"x":{"Float":${x}}}}`,
    );
  }
  await post(`${url}/collections/bench/upsert`, `{"records":[${records.join(',')}]}`);
  if ((await fetch(`${url}/collections/text`, { method: 'POST' })).status >= 300) throw new Error('creating the text collection failed');
  await post(`${url}/collections/text/fts-schema`, JSON.stringify({ fields: ['text'] }));
  for (let b = 0; b < texts.length; b += 2000)
    await post(
      `${url}/collections/text/upsert`,
      JSON.stringify({ records: texts.slice(b, b + 2000).map((t, i) => ({ id: `s${b + i}`, attrs: { text: { Str: t } } })) }),
    );
}

/** Every pool statement answers what its typed body answers, byte for byte; so do fresh ones. */
async function checkAnswers(
  url: string,
  c: Case,
): Promise<{ pool_identical: number; fresh_identical: number; fresh_same_as_pool: number; typed_bytes: number; query_bytes: number; answer_bytes: number }> {
  let pool = 0;
  let fresh = 0;
  let sameAsPool = 0;
  let answerBytes = 0;
  for (let i = 0; i < POOL; i++) {
    const typed = await post(`${url}${c.route}`, c.typed[i]);
    const query = await post(`${url}/query`, c.query[i]);
    answerBytes += typed.length;
    if (typed.equals(query)) pool++;
    else log(`${c.name} #${i}: /query answered ${query.length} bytes unlike the typed route's ${typed.length}`);
    const lit = c.literal(1e9 + i);
    const typedFresh = await post(`${url}${c.route}`, c.typedFresh[i].join(lit));
    const queryFresh = await post(`${url}/query`, c.queryFresh[i].join(lit));
    if (typedFresh.equals(queryFresh)) fresh++;
    if (typedFresh.equals(typed)) sameAsPool++;
  }
  if (pool < POOL || fresh < POOL) throw new Error(`${c.name}: /query and ${c.route} answered differently (${pool}/${POOL} pool, ${fresh}/${POOL} fresh)`);
  const mean = (a: string[]) => Math.round(a.reduce((s, b) => s + Buffer.byteLength(b), 0) / a.length);
  return {
    pool_identical: pool,
    fresh_identical: fresh,
    fresh_same_as_pool: sameAsPool,
    typed_bytes: mean(c.typed),
    query_bytes: mean(c.query),
    answer_bytes: Math.round(answerBytes / POOL),
  };
}

type Target = 'typed' | 'query' | 'typed_fresh' | 'query_fresh';
const TARGETS: Target[] = ['typed', 'query', 'typed_fresh', 'query_fresh'];

/** Counts fresh requests across every connection and run, so no literal is ever sent twice. */
let freshSeq = 0;

function requests(c: Case, t: Target): CannonRequest[] {
  const route = t.startsWith('typed') ? c.route : '/query';
  if (t === 'typed' || t === 'query') return (t === 'typed' ? c.typed : c.query).map((body) => ({ method: 'POST', path: route, body, headers: JSON_HEADERS }));
  const parts = t === 'typed_fresh' ? c.typedFresh : c.queryFresh;
  return [
    {
      method: 'POST',
      path: route,
      headers: JSON_HEADERS,
      setupRequest: (req) => {
        const n = freshSeq++;
        const [before, after] = parts[n % POOL];
        req.body = before + c.literal(n) + after;
        return req;
      },
    },
  ];
}

/** Clock ticks per second of /proc's CPU times. */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) of a process, or of one of its threads; null without /proc. */
function cpuSeconds(pid: number, thread?: number): number | null {
  try {
    const stat = fs.readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start at state, field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

interface Measured {
  rps: number;
  latencyMs: number;
  /** Server CPU (every thread, then the JS thread alone) per request, microseconds; null without /proc. */
  cpuUs: number | null;
  jsCpuUs: number | null;
}

/** With BENCH_CPU_PROF: each autocannon run's monotonic time window (us, the profile's clock), to slice the profile by target. */
const windows: { case: string; target: Target; label: string; start_us: number; end_us: number; requests: number }[] = [];

async function run(url: string, pid: number, c: Case, t: Target, seconds: number, label: string): Promise<Measured> {
  const start = process.hrtime.bigint();
  const cpu0 = cpuSeconds(pid);
  const js0 = cpuSeconds(pid, pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, requests: requests(c, t) });
  const cpu1 = cpuSeconds(pid);
  const js1 = cpuSeconds(pid, pid);
  if (CPU_PROF)
    windows.push({
      case: c.name,
      target: t,
      label,
      start_us: Number(start / 1000n),
      end_us: Number(process.hrtime.bigint() / 1000n),
      requests: result.requests.total,
    });
  if (result.non2xx || result.errors) throw new Error(`${c.name} ${t}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  const perRequest = (a: number | null, b: number | null) => (a === null || b === null ? null : round(((b - a) * 1e6) / result.requests.total, 1));
  const m: Measured = { rps: result.requests.average, latencyMs: result.latency.average, cpuUs: perRequest(cpu0, cpu1), jsCpuUs: perRequest(js0, js1) };
  log(
    `${`${c.name} ${t} ${label}`.padEnd(28)} ${m.rps.toFixed(0).padStart(7)} req/s, latency p50 ${result.latency.p50} ms, server CPU ${m.cpuUs} us/request (JS thread ${m.jsCpuUs})`,
  );
  return m;
}

const ratio = (a: number, b: number) => round(a / b, 3);
const median = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const geomean = (a: number[]) => round(Math.exp(a.reduce((s, x) => s + Math.log(x), 0) / a.length), 3);

async function httpBench(texts: string[]): Promise<Record<string, unknown>> {
  const cli = path.join(__dirname, '..', 'lib', `cli${path.extname(__filename)}`);
  const dir = freshDir('sql');
  const server = await startServer(cli, dir);
  try {
    const { url } = server;
    const pid = server.proc.pid!;
    log(`serving ${url}; loading ${VEC_N} x ${DIM} vectors and ${texts.length} sentences`);
    await load(url, texts);
    const all = cases(texts).filter((c) => ONLY_CASES === undefined || ONLY_CASES.includes(c.name));
    const out: Record<string, unknown> = {};
    const overhead: number[] = [];
    const uncached: number[] = [];
    const cpuRatios: (number | null)[] = [];
    const cpuRatiosUncached: (number | null)[] = [];
    const jsRatios: (number | null)[] = [];
    const jsRatiosUncached: (number | null)[] = [];
    for (const c of all) {
      const check = await checkAnswers(url, c);
      log(
        `${c.name}: ${check.pool_identical}/${POOL} answers identical (fresh ${check.fresh_identical}/${POOL}, ${check.fresh_same_as_pool} the same as the pool's)`,
      );
      for (const t of TARGETS) if (WARMUP_SECONDS > 0) await run(url, pid, c, t, WARMUP_SECONDS, 'warm-up');
      const runs: Record<Target, Measured[]> = { typed: [], query: [], typed_fresh: [], query_fresh: [] };
      for (let r = 0; r < ROUNDS; r++) {
        for (let k = 0; k < TARGETS.length; k++) {
          const t = TARGETS[(k + r) % TARGETS.length];
          runs[t].push(await run(url, pid, c, t, SECONDS, `#${r + 1}`));
        }
      }
      const rps = Object.fromEntries(TARGETS.map((t) => [t, runs[t].map((m) => m.rps)])) as Record<Target, number[]>;
      const medianOf = (t: Target, f: (m: Measured) => number | null) => {
        const v = runs[t].map(f).filter((x): x is number => x !== null);
        return v.length === 0 ? null : round(median(v), 1);
      };
      const cpu = Object.fromEntries(TARGETS.map((t) => [t, medianOf(t, (m) => m.cpuUs)])) as Record<Target, number | null>;
      const jsCpu = Object.fromEntries(TARGETS.map((t) => [t, medianOf(t, (m) => m.jsCpuUs)])) as Record<Target, number | null>;
      const cpuRatio = (a: Target, b: Target) => (cpu[a] === null || cpu[b] === null ? null : ratio(cpu[b]!, cpu[a]!));
      const jsCpuRatio = (a: Target, b: Target) => (jsCpu[a] === null || jsCpu[b] === null ? null : ratio(jsCpu[b]!, jsCpu[a]!));
      const best = Object.fromEntries(TARGETS.map((t) => [t, Math.round(Math.max(...rps[t]))])) as Record<Target, number>;
      const perRound = (a: Target, b: Target) => rps[a].map((x, r) => ratio(x, rps[b][r]));
      const caseOverhead = ratio(best.typed, best.query);
      const caseUncached = ratio(best.typed_fresh, best.query_fresh);
      overhead.push(caseOverhead);
      uncached.push(caseUncached);
      cpuRatios.push(cpuRatio('typed', 'query'));
      cpuRatiosUncached.push(cpuRatio('typed_fresh', 'query_fresh'));
      jsRatios.push(jsCpuRatio('typed', 'query'));
      jsRatiosUncached.push(jsCpuRatio('typed_fresh', 'query_fresh'));
      out[c.name] = {
        route: c.route,
        rps_best: best,
        rps_rounds: Object.fromEntries(TARGETS.map((t) => [t, rps[t].map(Math.round)])),
        mean_latency_ms: Object.fromEntries(TARGETS.map((t) => [t, medianOf(t, (m) => round(m.latencyMs, 3))])),
        // CPU the server process spent per request (all threads; the JS thread alone), median over rounds.
        server_cpu_us_per_request: cpu,
        server_js_thread_cpu_us_per_request: jsCpu,
        cpu_ratio: cpuRatio('typed', 'query'),
        cpu_ratio_uncached: cpuRatio('typed_fresh', 'query_fresh'),
        js_thread_cpu_ratio: jsCpuRatio('typed', 'query'),
        js_thread_cpu_ratio_uncached: jsCpuRatio('typed_fresh', 'query_fresh'),
        overhead_ratio: caseOverhead,
        overhead_ratio_uncached: caseUncached,
        overhead_ratio_rounds: perRound('typed', 'query'),
        overhead_ratio_uncached_rounds: perRound('typed_fresh', 'query_fresh'),
        overhead_ratio_median_of_rounds: round(median(perRound('typed', 'query')), 3),
        overhead_ratio_uncached_median_of_rounds: round(median(perRound('typed_fresh', 'query_fresh')), 3),
        // Server-side cost a /query request adds, at 16 connections (wall time per request, both cores).
        extra_us_per_request: round(1e6 / best.query - 1e6 / best.typed, 1),
        extra_us_per_request_uncached: round(1e6 / best.query_fresh - 1e6 / best.typed_fresh, 1),
        ...check,
      };
      log(`${c.name}: overhead_ratio ${caseOverhead}, uncached ${caseUncached}`);
    }
    const geomeanOrNull = (a: (number | null)[]) => (a.some((x) => x === null) ? null : geomean(a as number[]));
    return {
      overhead_ratio: geomean(overhead),
      overhead_ratio_uncached: geomean(uncached),
      cpu_ratio: geomeanOrNull(cpuRatios),
      cpu_ratio_uncached: geomeanOrNull(cpuRatiosUncached),
      js_thread_cpu_ratio: geomeanOrNull(jsRatios),
      js_thread_cpu_ratio_uncached: geomeanOrNull(jsRatiosUncached),
      cases: out,
    };
  } finally {
    if (server.proc.exitCode === null && server.proc.signalCode === null) {
      const exited = new Promise((resolve) => server.proc.once('exit', resolve));
      server.proc.kill('SIGTERM');
      await exited;
    }
    removeDir(dir);
    if (CPU_PROF) fs.writeFileSync(path.join(CPU_PROF, 'windows.json'), JSON.stringify(windows));
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = round(os.loadavg()[0], 2);
  const texts = nlpSentences(TEXT_N);
  const compile = compileBench(corpusWords(texts));
  const http = await httpBench(texts);
  const cases = http.cases as Record<string, { overhead_ratio: number; overhead_ratio_uncached: number }>;
  const compileP50 = compile.p50_us as number;
  log(
    `compile p50 ${compileP50} us (target ${TARGET_COMPILE_P50_US}); overhead_ratio ${http.overhead_ratio} (target ${TARGET_OVERHEAD_RATIO}), uncached ${http.overhead_ratio_uncached}`,
  );
  emit({
    bench: 'sql',
    data: {
      compile: `${COMPILE_N} distinct seeded statements, the five kinds in equal shares: ${DIM}-d seeded random unit vectors (synthetic), words of nlp-corpus@${pkgVersion('nlp-corpus')} (real)`,
      search: `${VEC_N} x ${DIM} seeded random unit vectors (synthetic), top_k 10, ${POOL} distinct queries`,
      text: `first ${TEXT_N} sentences of nlp-corpus@${pkgVersion('nlp-corpus')} (real), fts-schema on text, ${POOL} two-word queries from them, top_k 10`,
      list: `the ${VEC_N} vector records (attrs n Int, cat Str, x Float), filter Eq cat + n BETWEEN + Ge x, order_by n desc, limit 10, ${POOL} distinct filters`,
    },
    compile_p50_us: compileP50,
    compile_p99_us: compile.p99_us,
    target_compile_p50_us: TARGET_COMPILE_P50_US,
    overhead_ratio: http.overhead_ratio,
    overhead_ratio_uncached: http.overhead_ratio_uncached,
    target_overhead_ratio: TARGET_OVERHEAD_RATIO,
    overhead_ratio_per_case: Object.fromEntries(Object.entries(cases).map(([k, v]) => [k, v.overhead_ratio])),
    overhead_ratio_uncached_per_case: Object.fromEntries(Object.entries(cases).map(([k, v]) => [k, v.overhead_ratio_uncached])),
    cpu_ratio: http.cpu_ratio,
    cpu_ratio_uncached: http.cpu_ratio_uncached,
    js_thread_cpu_ratio: http.js_thread_cpu_ratio,
    js_thread_cpu_ratio_uncached: http.js_thread_cpu_ratio_uncached,
    overall:
      "overhead and cpu ratios: geometric mean over the cases (search, text, list); req/s: best of rounds per target; cpu: the server process's CPU per request (all threads; js_thread: its JS thread alone), median over rounds, query / typed",
    connections: CONNECTIONS,
    seconds: SECONDS,
    rounds: ROUNDS,
    compile,
    http: http.cases,
    machine: { ...machine(), loadavg_1m_at_start: loadAtStart },
    total_s: round((performance.now() - started) / 1000, 1),
  });
}

// Runs when started, not when imported (a profile or a test can reuse the generator).
if (require.main === module) runBench(main);
