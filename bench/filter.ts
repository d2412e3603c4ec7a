// bench:filter — filtered exact top-10 Cosine search, one query at a time, against @orama/orama
// (in-process JS engine with vector search and `where` filters) loaded with the same data in the
// same run. 1M x 64-d seeded random unit vectors (synthetic: no real 64-d set is reachable here)
// with attrs cat (Str, 20 skewed values), n (Int), tags (List), body (Str of English words drawn from
// the JSDoc prose shipped in @types/node). Cases: selectivity ~50%, ~1%, ~0.01%, and a two-token
// ContainsAllTokens on body without and with a filter-index declaration. Engines alternate query by
// query (rotating who goes first) so machine noise hits both alike.
// Progress goes to stderr; the last stdout line is one JSON object.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as v8 from 'node:v8';
import { Store } from '../lib/index';
import type { Filter } from '../lib/types';
import {
  benchSize,
  emit,
  freshDir,
  log,
  machine,
  now,
  randomUnitVectors,
  removeDir,
  Rng,
  round,
  runBench,
  summarize,
  type TimingSummary,
  upsertBody,
  vectorTextBound,
  writeAscii,
  writeUint,
  writeVector,
} from './common';
import { drawIndex, loadVocabulary, type Vocabulary } from './vocabulary';

const TOP_K = 10;
const BATCH = 10_000;
const { n: N, queries: QUERIES } = benchSize(1_000_000, 20);
const DIM = 64;
const WARMUP = 2;
const COLLECTION = 'filt';
const ORAMA_INGEST_LIMIT_S = 180;
const HEAP_MIB = 16384;

// --- the peer --------------------------------------------------------------------------------
// Orama is loaded through require with the few signatures used here (its typings are ESM-first).
type OramaWhere = Record<string, unknown>;
interface OramaHit {
  id: string;
  score: number;
}
interface OramaModule {
  create(o: { schema: Record<string, string> }): unknown;
  insert(db: unknown, doc: Record<string, unknown>): unknown;
  count(db: unknown): number;
  search(
    db: unknown,
    p: { mode: 'vector'; vector: { value: number[]; property: string }; similarity: number; limit: number; includeVectors: boolean; where?: OramaWhere },
  ): { count: number; hits: OramaHit[] };
}

// --- data --------------------------------------------------------------------------------------
// cat: 20 values, skewed so products with n and tags hit the target selectivities exactly in
// expectation: c00 50%, c01 20%, c02 10%, c03 5%, c04 5%, c05..c19 share the last 10%.
const CATS = Array.from({ length: 20 }, (_, i) => `c${String(i).padStart(2, '0')}`);
const CAT_P = [0.5, 0.2, 0.1, 0.05, 0.05, ...Array.from({ length: 15 }, () => 0.1 / 15)];
const N_RANGE = 1_000_000; // n uniform in [0, N_RANGE)
const TAGS = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`); // 1..3 distinct tags each: P(holds t) = 10%
const BODY_MIN = 6;
const BODY_MAX = 10; // words per body, uniform

interface Data {
  vectors: Float32Array;
  cat: Uint8Array;
  n: Int32Array;
  tags: string[][];
  body: string[];
}

function generate(rng: Rng, vocab: Vocabulary): Data {
  const vectors = randomUnitVectors(rng, N, DIM);
  const catCum = new Float64Array(CAT_P.length);
  CAT_P.reduce((a, p, i) => (catCum[i] = a + p), 0);
  catCum[catCum.length - 1] = 1;
  const cat = new Uint8Array(N);
  const n = new Int32Array(N);
  const tags: string[][] = new Array(N);
  const body: string[] = new Array(N);
  const words: string[] = [];
  for (let r = 0; r < N; r++) {
    cat[r] = drawIndex(catCum, rng.next());
    n[r] = rng.int(N_RANGE);
    const k = 1 + rng.int(3);
    const t: string[] = [];
    while (t.length < k) {
      const tag = TAGS[rng.int(TAGS.length)];
      if (!t.includes(tag)) t.push(tag);
    }
    tags[r] = t;
    words.length = 0;
    const len = BODY_MIN + rng.int(BODY_MAX - BODY_MIN + 1);
    for (let i = 0; i < len; i++) words.push(vocab.words[drawIndex(vocab.cumulative, rng.next())]);
    body[r] = words.join(' ');
  }
  return { vectors, cat, n, tags, body };
}

/** The upsert body for rows [from, to): ids are the row numbers, attrs cat, n, tags and body. */
function upsertBodyOf(d: Data, from: number, to: number): Buffer {
  return upsertBody(d.vectors, DIM, from, to, {
    attrsBound: (r) => 160 + d.body[r].length + d.tags[r].length * 6,
    attrs: (buf, pos, r) => {
      pos = writeAscii(buf, pos, '{"cat":{"Str":"');
      pos = writeAscii(buf, pos, CATS[d.cat[r]]);
      pos = writeAscii(buf, pos, '"},"n":{"Int":');
      pos = writeUint(buf, pos, d.n[r]);
      pos = writeAscii(buf, pos, '},"tags":{"List":[');
      d.tags[r].forEach((t, i) => {
        pos = writeAscii(buf, pos, i === 0 ? `"${t}"` : `,"${t}"`);
      });
      pos = writeAscii(buf, pos, ']},"body":{"Str":"');
      pos = writeAscii(buf, pos, d.body[r]); // [a-z ] only: no escaping needed
      return writeAscii(buf, pos, '"}}');
    },
  });
}

/** The first body must parse to the exact values Orama gets. */
function checkBody(d: Data, body: Buffer): void {
  const parsed = JSON.parse(body.toString('utf8')) as { records: { id: string; vector: number[]; attrs: Record<string, Record<string, unknown>> }[] };
  parsed.records.forEach((rec, r) => {
    for (let j = 0; j < DIM; j++) if (Math.fround(rec.vector[j]) !== d.vectors[r * DIM + j]) throw new Error(`row ${r}[${j}] does not round-trip`);
    const a = rec.attrs;
    if (a.cat.Str !== CATS[d.cat[r]] || a.n.Int !== d.n[r] || a.body.Str !== d.body[r] || JSON.stringify(a.tags.List) !== JSON.stringify(d.tags[r]))
      throw new Error(`row ${r}: attrs do not round-trip`);
  });
}

// --- cases -------------------------------------------------------------------------------------
interface Case {
  name: string;
  describe: string;
  /** Per query: our filter and Orama's equivalent where. */
  filters: { ours: Filter | null; orama: OramaWhere | null }[];
}

const str = (s: string) => ({ Str: s });

function selectivityCases(): Case[] {
  const same = (ours: Filter | null, orama: OramaWhere | null) => Array.from({ length: QUERIES }, () => ({ ours, orama }));
  return [
    {
      name: 'sel_50pct',
      describe: 'Eq(cat, c00): expected 50%',
      filters: same([{ Eq: ['cat', str('c00')] }], { cat: { eq: 'c00' } }),
    },
    {
      name: 'sel_1pct',
      describe: 'In(cat, [c03, c04]) AND Lt(n, 100000): expected 10% x 10% = 1%',
      filters: same([{ In: ['cat', [str('c03'), str('c04')]] }, { Lt: ['n', { Int: 100_000 }] }], { cat: { in: ['c03', 'c04'] }, n: { lt: 100_000 } }),
    },
    {
      name: 'sel_0.01pct',
      describe: 'Eq(cat, c01) AND Lt(n, 5000) AND Contains(tags, t07): expected 20% x 0.5% x 10% = 0.01%',
      filters: same([{ Eq: ['cat', str('c01')] }, { Lt: ['n', { Int: 5000 }] }, { Contains: ['tags', str('t07')] }], {
        cat: { eq: 'c01' },
        n: { lt: 5000 },
        tags: { containsAll: ['t07'] },
      }),
    },
  ];
}

/** One two-word ContainsAllTokens per query: words of frequency rank 10..399 in the vocabulary. */
function tokenFilters(rng: Rng, vocab: Vocabulary): Case['filters'] {
  const out: Case['filters'] = [];
  for (let q = 0; q < QUERIES; q++) {
    const a = vocab.words[10 + rng.int(390)];
    let b = a;
    while (b === a) b = vocab.words[10 + rng.int(390)];
    out.push({ ours: [{ ContainsAllTokens: ['body', `${a} ${b}`] }], orama: { and: [{ body: a }, { body: b }] } });
  }
  return out;
}

// --- running -----------------------------------------------------------------------------------
interface Engine {
  name: string;
  search(q: number): Promise<string[]> | string[];
}

type EngineStats = TimingSummary & { qps: number; rows_per_s: number; matched_rows_per_s: number };

async function runCase(c: Case, store: Store, orama: OramaModule, db: unknown, queries: Float32Array): Promise<Record<string, unknown>> {
  // Selectivity: the store's own count of the filter (aggregate) per distinct filter, and Orama's
  // count of its where (every filtered row passes similarity -1), which must agree.
  const counts: number[] = [];
  const filterOnlyMs: number[] = [];
  const oramaCounts: number[] = [];
  const distinct = new Map<string, { count: number; ms: number }>();
  const reps = new Set(c.filters.map((x) => JSON.stringify(x.ours))).size === 1 ? 3 : 1;
  for (const f of c.filters) {
    const key = JSON.stringify(f.ours);
    if (!distinct.has(key)) {
      let best = Infinity;
      let count = 0;
      for (let i = 0; i < reps; i++) {
        const t = now();
        count = (await store.aggregate({ scope: [COLLECTION], filter: f.ours ?? [] })).count;
        best = Math.min(best, now() - t);
      }
      distinct.set(key, { count, ms: best });
    }
    counts.push(distinct.get(key)!.count);
    filterOnlyMs.push(distinct.get(key)!.ms);
  }

  const bodies = c.filters.map((f, q) => {
    const buf = Buffer.allocUnsafe(vectorTextBound(DIM) + 64);
    let pos = writeAscii(buf, 0, '{"query":');
    pos = writeVector(buf, pos, queries, q * DIM, DIM);
    pos = writeAscii(buf, pos, `,"top_k":${TOP_K},"exact":true`);
    const head = buf.subarray(0, pos).toString('latin1');
    return Buffer.from(`${head}${f.ours ? `,"filter":${JSON.stringify(f.ours)}` : ''}}`, 'latin1');
  });
  const oramaQueries = c.filters.map((_, q) => Array.from(queries.subarray(q * DIM, (q + 1) * DIM)));
  const engines: Engine[] = [
    {
      name: 'tessera',
      search: async (q) => (JSON.parse((await store.searchJson(bodies[q])).toString('utf8')) as { id: string }[]).map((h) => h.id),
    },
    {
      name: 'orama',
      search: (q) => {
        const where = c.filters[q].orama;
        const r = orama.search(db, {
          mode: 'vector',
          vector: { value: oramaQueries[q], property: 'vec' },
          similarity: -1, // no threshold: every filtered row is a candidate (exact)
          limit: TOP_K,
          includeVectors: false,
          ...(where ? { where } : {}),
        });
        oramaCounts[q] = r.count;
        return r.hits.map((h) => h.id);
      },
    },
  ];
  const nq = c.filters.length;
  for (const e of engines) for (let q = 0; q < WARMUP; q++) await e.search(q % nq);
  const times = new Map<string, number[]>(engines.map((e) => [e.name, []]));
  const results = new Map<string, string[][]>(engines.map((e) => [e.name, []]));
  const load = os.loadavg()[0];
  for (let q = 0; q < nq; q++) {
    for (let k = 0; k < engines.length; k++) {
      const e = engines[(q + k) % engines.length]; // rotate who goes first
      const t = now();
      const r = await e.search(q);
      times.get(e.name)!.push(now() - t);
      results.get(e.name)![q] = r;
    }
  }
  const mismatched = counts.filter((n, q) => n !== oramaCounts[q]).length;
  if (mismatched)
    log(`  ${c.name}: WARNING ${mismatched} queries where Orama's matched count differs from ours (e.g. ours ${counts[0]} vs orama ${oramaCounts[0]})`);
  let overlap = 0;
  let denom = 0;
  const ours = results.get('tessera')!;
  const theirs = results.get('orama')!;
  for (let q = 0; q < nq; q++) {
    const want = new Set(ours[q]);
    overlap += theirs[q].filter((id) => want.has(id)).length;
    denom += Math.max(ours[q].length, theirs[q].length);
  }
  const meanMatched = counts.reduce((a, b) => a + b, 0) / nq;
  const per: Record<string, EngineStats> = {};
  for (const e of engines) {
    const s = summarize(times.get(e.name)!);
    const qps = 1000 / s.p50_ms;
    per[e.name] = { ...s, qps: round(qps, 2), rows_per_s: Math.round(N * qps), matched_rows_per_s: Math.round(meanMatched * qps) };
  }
  const ratio = round(per.tessera.qps / per.orama.qps, 3);
  const sel = meanMatched / N;
  log(
    `  ${c.name.padEnd(16)} sel ${(sel * 100).toPrecision(3)}% (${Math.round(meanMatched)} rows)  ours p50 ${per.tessera.p50_ms.toFixed(2)} ms  orama p50 ${per.orama.p50_ms.toFixed(2)} ms  ratio ${ratio}  top-10 overlap ${round(overlap / Math.max(1, denom), 4)}`,
  );
  return {
    filter: c.describe,
    example_filter: c.filters[0].ours,
    example_orama_where: c.filters[0].orama,
    selectivity: round(sel, 6),
    matched_rows_mean: round(meanMatched, 1),
    matched_rows_min: Math.min(...counts),
    matched_rows_max: Math.max(...counts),
    orama_count_agrees: mismatched === 0,
    top10_overlap: round(overlap / Math.max(1, denom), 4),
    tessera: per.tessera,
    orama: per.orama,
    peer_ratio: ratio,
    // Filter evaluation alone over every row (aggregate count, no vectors), best of up to 3, ms.
    tessera_filter_only_ms_p50: round([...filterOnlyMs].sort((a, b) => a - b)[Math.floor(nq / 2)], 3),
    loadavg_1m: round(load, 2),
  };
}

/** Re-runs this script with a heap large enough for Orama's 1M documents. */
function ensureHeap(): boolean {
  if (v8.getHeapStatistics().heap_size_limit >= 12 * 2 ** 30 || process.env.TESSERA_BENCH_FILTER_CHILD) return false;
  const r = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MIB}`, ...process.execArgv, __filename, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, TESSERA_BENCH_FILTER_CHILD: '1' },
  });
  process.exit(r.status ?? 1);
}

async function main(): Promise<void> {
  if (ensureHeap()) return;
  const t0 = now();
  const machineStart = machine();
  log(`bench:filter on ${JSON.stringify(machineStart)}, heap limit ${(v8.getHeapStatistics().heap_size_limit / 2 ** 30).toFixed(1)} GiB`);
  let orama: OramaModule;
  let oramaVersion: string;
  try {
    orama = require('@orama/orama') as OramaModule;
    oramaVersion = (JSON.parse(fs.readFileSync(require.resolve('@orama/orama/package.json'), 'utf8')) as { version: string }).version;
  } catch (e) {
    throw new Error(`@orama/orama is the peer of this bench (npm install --save-dev @orama/orama): ${(e as Error).message}`);
  }

  const vocab = loadVocabulary();
  log(`vocabulary: ${vocab.words.length} words from ${vocab.source}; top: ${vocab.words.slice(0, 8).join(' ')}`);
  const rng = new Rng(0xf117e2);
  let t = now();
  const data = generate(rng, vocab);
  const queries = randomUnitVectors(rng, QUERIES, DIM);
  const tokenRng = new Rng(0x70c3);
  log(`generated ${N} x ${DIM} vectors and attrs in ${((now() - t) / 1000).toFixed(1)} s; body example: "${data.body[0]}"`);

  // Tessera: raw JSON bodies of 10k records, then flush so every row sits in sealed segments.
  const dir = freshDir('filter');
  const result: Record<string, unknown> = {};
  try {
    const store = await Store.open({ path: dir, dimension: DIM, distance: 'Cosine', queryThreads: 1 });
    t = now();
    let jsonBytes = 0;
    let pending: Promise<unknown> | null = null;
    let lastLog = t;
    for (let from = 0; from < N; from += BATCH) {
      const body = upsertBodyOf(data, from, Math.min(N, from + BATCH));
      if (from === 0) checkBody(data, body);
      jsonBytes += body.length;
      if (pending) await pending;
      pending = store.upsert(COLLECTION, body);
      if (now() - lastLog > 5000) {
        lastLog = now();
        log(`  tessera: upserted ${from} / ${N}`);
      }
    }
    await pending;
    const ingestS = (now() - t) / 1000;
    t = now();
    await store.flush();
    const flushS = (now() - t) / 1000;
    const stats = await store.stats();
    if (stats.footprint.rows !== N) throw new Error(`store holds ${stats.footprint.rows} rows, expected ${N}`);
    log(`tessera: ingest ${ingestS.toFixed(1)} s (${(jsonBytes / 1e6).toFixed(0)} MB JSON), flush ${flushS.toFixed(1)} s, kernels=${stats.kernels}`);

    // Orama: one insert per document, same ids, the same f32 values as JS numbers.
    t = now();
    const db = orama.create({ schema: { vec: `vector[${DIM}]`, cat: 'enum', n: 'number', tags: 'enum[]', body: 'string' } });
    lastLog = t;
    for (let r = 0; r < N; r++) {
      orama.insert(db, {
        id: String(r),
        vec: Array.from(data.vectors.subarray(r * DIM, (r + 1) * DIM)),
        cat: CATS[data.cat[r]],
        n: data.n[r],
        tags: data.tags[r],
        body: data.body[r],
      });
      if ((r & 0x3fff) === 0 && now() - lastLog > 10000) {
        lastLog = now();
        log(`  orama: inserted ${r} / ${N}, heap ${(process.memoryUsage().heapUsed / 2 ** 30).toFixed(2)} GiB`);
      }
    }
    const oramaS = (now() - t) / 1000;
    if (orama.count(db) !== N) throw new Error(`orama holds ${orama.count(db)} docs, expected ${N}`);
    const heapGiB = process.memoryUsage().heapUsed / 2 ** 30;
    log(`orama: ingest ${oramaS.toFixed(1)} s, heap ${heapGiB.toFixed(2)} GiB`);
    if (oramaS > ORAMA_INGEST_LIMIT_S)
      log(`WARNING: Orama took ${oramaS.toFixed(0)} s > ${ORAMA_INGEST_LIMIT_S} s to ingest ${N}; rerun both with a smaller BENCH_N`);

    const cases: Record<string, Record<string, unknown>> = {};
    // Reference, not a peer ratio: no filter at all (full scan for both; Orama sorts every row's
    // score, ~2 s a query at 1M, so only up to 5 queries).
    const unfiltered = await runCase(
      { name: 'unfiltered', describe: 'no filter (reference)', filters: Array.from({ length: Math.min(QUERIES, 5) }, () => ({ ours: null, orama: null })) },
      store,
      orama,
      db,
      queries,
    );
    for (const c of selectivityCases()) cases[c.name] = await runCase(c, store, orama, db, queries);
    const tokens = tokenFilters(tokenRng, vocab);
    const run = (c: Case) => runCase(c, store, orama, db, queries);
    cases.tokens_no_index = await run({
      name: 'tokens_no_index',
      describe: 'ContainsAllTokens(body, "<w1> <w2>"), a different pair per query, no filter index',
      filters: tokens,
    });
    t = now();
    await store.setFilterIndex(COLLECTION, ['body']);
    const declareS = (now() - t) / 1000;
    t = now();
    await store.flush();
    const indexFlushS = (now() - t) / 1000;
    log(`setFilterIndex(['body']) ${declareS.toFixed(2)} s, flush ${indexFlushS.toFixed(2)} s`);
    cases.tokens_with_index = await run({ name: 'tokens_with_index', describe: 'same queries after setFilterIndex(coll, ["body"]) + flush', filters: tokens });
    await store.close();

    const peerRatios: Record<string, number> = {};
    for (const [name, c] of Object.entries(cases)) peerRatios[name] = c.peer_ratio as number;
    Object.assign(result, {
      bench: 'filter',
      metric: 'Cosine',
      top_k: TOP_K,
      data:
        `synthetic: ${N} x ${DIM} seeded Gaussian random unit vectors, 8 decimals in JSON (no real 64-d dataset is reachable); ` +
        `attrs cat Str (20 values: c00 50%, c01 20%, c02 10%, c03 5%, c04 5%, c05..c19 0.67% each), n Int uniform [0, ${N_RANGE}), ` +
        `tags List of 1-3 distinct of 20 values (10% hold any given one), body Str of ${BODY_MIN}-${BODY_MAX} English words drawn by frequency ` +
        `from a real-prose vocabulary: ${vocab.words.length} lowercase words of the ${vocab.source}; queries: ${QUERIES} more random unit vectors`,
      rows: N,
      dim: DIM,
      queries: QUERIES,
      peer: `@orama/orama ${oramaVersion}`,
      peer_mode:
        "search mode 'vector' (exact brute force over the where-filtered ids), similarity -1 (no threshold), includeVectors false, limit 10; " +
        'schema vec vector[64], cat enum (eq/in), n number (AVL lt), tags enum[] (containsAll: whole-element like Contains), body string (radix; ' +
        "tokens ANDed as {and:[{body:w1},{body:w2}]}: Orama's where on a string ORs the query's tokens, and its default tokenizer has no stemming or stopwords)",
      peer_ratios: peerRatios,
      timing:
        'ms per query (single query at a time, 1 core thread for ours, JS single thread for Orama), interleaved query by query, rotating order; qps = 1000 / p50; rows_per_s = collection rows / p50 time; matched_rows_per_s = filter-matching rows / p50 time',
      cases,
      reference_unfiltered: unfiltered,
      filter_index: {
        // setFilterIndex builds the structures over the sealed segments it finds; flush seals nothing new here.
        declare_s: round(declareS, 3),
        flush_s: round(indexFlushS, 3),
        speedup_p50: round((cases.tokens_no_index.tessera as EngineStats).p50_ms / (cases.tokens_with_index.tessera as EngineStats).p50_ms, 2),
      },
      ingest: {
        tessera_s: round(ingestS, 2),
        tessera_flush_s: round(flushS, 2),
        tessera_json_mb: round(jsonBytes / 1e6, 1),
        tessera_records_per_s: Math.round(N / ingestS),
        orama_s: round(oramaS, 2),
        orama_records_per_s: Math.round(N / oramaS),
        orama_heap_gib: round(heapGiB, 2),
        orama_under_3_min: oramaS < ORAMA_INGEST_LIMIT_S,
      },
      machine_start: machineStart,
    });
  } finally {
    removeDir(dir);
  }
  emit({ ...result, machine: machine(), total_s: round((now() - t0) / 1000, 1) });
}

runBench(main);
