// bench:text — BM25 full-text search over real English corpora, our engine against in-process JS
// peers (minisearch, @orama/orama) and Xapian (C++, through /usr/bin/python3) in the same run,
// over the same documents and queries, plus an independent exact BM25 (bench/bm25_oracle.ts,
// written from docs/full-text.md) to check what the engine ranks.
// Corpora: (1) WordNet 3.0 glosses (Debian wordnet-base), one document per synset, queries a seeded
// sample of lemmas; (2) the 100,000 sentences of nlp-corpus@4.4.0, queries 2-3 words picked from a
// seeded random sentence. Index build is timed per engine (docs/s); queries run one at a time,
// engines interleaved query by query in rotating order so machine noise hits all alike.
// Missing Debian parts (bench/text-deps.sh installs them) or a core without full text are reported
// as null with a reason, never replaced by numbers.
// Progress goes to stderr; the last stdout line is one JSON object.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../lib/index';
import type { Hit } from '../lib/types';
import { Bm25Oracle, type OracleResult, STOPWORDS, analyze, overlapAt } from './bm25_oracle';
import { Rng, emit, freshDir, log, machine, now, pkgRoot, pkgVersion, removeDir, round, runBench, summarize, type TimingSummary } from './common';

const TOP_K = 10;
const BATCH = 1000;
const MAX_DOCS = Number(process.env.BENCH_N ?? Infinity); // per corpus, for a quick check
const QUERIES = Number(process.env.BENCH_QUERIES ?? 500); // per corpus
const WARMUP = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3); // passes over the query set; per query the fastest counts
const K1 = 1.2;
const B = 0.75;
const COLLECTION = 'docs';
const PYTHON = '/usr/bin/python3';
const XAPIAN_TIMEOUT_MS = 300_000;

// --- the peers' surfaces (loaded through require with the few signatures used here) ---------------
interface MiniSearchResult {
  id: string;
  score: number;
}
interface MiniSearchLike {
  addAll(docs: { id: string; text: string }[]): void;
  search(q: string, o?: Record<string, unknown>): MiniSearchResult[];
}
type MiniSearchCtor = new (o: { fields: string[] }) => MiniSearchLike;

interface OramaModule {
  create(o: { schema: Record<string, string> }): unknown;
  insertMultiple(db: unknown, docs: { id: string; text: string }[], batchSize?: number): unknown;
  count(db: unknown): number;
  search(db: unknown, p: { term: string; limit: number; properties: string[] }): { count: number; hits: { id: string; score: number }[] };
}

// --- corpora -----------------------------------------------------------------------------------
interface Corpus {
  name: string;
  source: string;
  ids: string[];
  texts: string[];
  queries: string[];
  query_source: string;
}
type Loaded = { corpus: Corpus } | { name: string; unavailable: string };

function shuffle<T>(rng: Rng, a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const WORDNET_DIR = '/usr/share/wordnet';
const WORDNET_FILES: [string, string][] = [
  ['noun', 'n'],
  ['verb', 'v'],
  ['adj', 'a'],
  ['adv', 'r'],
];

/**
 * WordNet 3.0: one document per synset of data.{noun,verb,adj,adv}, id = pos letter + byte offset,
 * text = the synset's lemmas (underscores to spaces, adjective markers like "(a)" dropped) joined by
 * ", ", then ": " and the gloss (everything after "| "). Queries: a seeded sample of distinct
 * lemmas, 60% single-word and 40% multi-word, each analyzing to at least one term.
 */
function loadWordnet(): Loaded {
  const name = 'wordnet';
  const missing = WORDNET_FILES.map(([f]) => path.join(WORDNET_DIR, `data.${f}`)).filter((p) => !fs.existsSync(p));
  if (missing.length) return { name, unavailable: `${missing.join(', ')} missing: Debian package wordnet-base is not installed (run bench/text-deps.sh)` };
  const ids: string[] = [];
  const texts: string[] = [];
  const lemmas = new Map<string, string>(); // lowercased -> first spelling seen
  for (const [file, pos] of WORDNET_FILES) {
    for (const line of fs.readFileSync(path.join(WORDNET_DIR, `data.${file}`), 'utf8').split('\n')) {
      if (line.length === 0 || line.startsWith('  ')) continue; // the license header lines start with two spaces
      const bar = line.indexOf(' | ');
      const head = (bar >= 0 ? line.slice(0, bar) : line).split(' ');
      const gloss = bar >= 0 ? line.slice(bar + 3).trim() : '';
      const count = parseInt(head[3], 16);
      const words: string[] = [];
      for (let i = 0; i < count; i++) {
        const w = head[4 + 2 * i].replace(/\([a-z]+\)$/, '').replace(/_/g, ' ');
        words.push(w);
        if (!lemmas.has(w.toLowerCase())) lemmas.set(w.toLowerCase(), w);
      }
      ids.push(pos + head[0]);
      texts.push(`${words.join(', ')}: ${gloss}`);
      if (ids.length >= MAX_DOCS) break;
    }
    if (ids.length >= MAX_DOCS) break;
  }
  const rng = new Rng(0x3e7d0e7);
  const all = [...lemmas.values()].sort();
  const single = shuffle(
    rng,
    all.filter((w) => !w.includes(' ')),
  );
  const multi = shuffle(
    rng,
    all.filter((w) => w.includes(' ')),
  );
  const pick = (from: string[], n: number): string[] => {
    const out: string[] = [];
    for (const w of from) {
      if (out.length >= n) break;
      if (analyze(w).length > 0) out.push(w); // "a", "it", "be": all stopwords, matches nothing by rule
    }
    return out;
  };
  const nSingle = Math.round(QUERIES * 0.6);
  const queries = shuffle(rng, [...pick(single, nSingle), ...pick(multi, QUERIES - nSingle)]);
  const chars = texts.reduce((s, t) => s + t.length, 0);
  return {
    corpus: {
      name,
      source: `WordNet 3.0 (Debian wordnet-base, ${WORDNET_DIR}/data.{noun,verb,adj,adv}): ${ids.length} synsets, ${(chars / 1e6).toFixed(1)} M chars; text = "lemma, lemma: gloss"`,
      ids,
      texts,
      queries,
      query_source: `${queries.length} distinct WordNet lemmas (seeded sample of ${lemmas.size}; ${Math.min(nSingle, queries.length)} single-word, the rest multi-word, underscores as spaces)`,
    },
  };
}

/**
 * nlp-corpus@4.4.0 builds/doc-0..99.json: 100 arrays of 1,000 English sentences, one document per
 * sentence. Queries: pick a seeded random sentence, then 2 or 3 distinct words of it (lowercase,
 * letters only, 3+ letters, not stopwords): frequency-weighted draws from the corpus vocabulary,
 * every query matching at least one document.
 */
function loadNlpCorpus(): Loaded {
  const name = 'nlp_corpus';
  let dir: string;
  let version: string;
  try {
    dir = path.join(pkgRoot('nlp-corpus'), 'builds');
    version = pkgVersion('nlp-corpus');
  } catch (e) {
    return { name, unavailable: `nlp-corpus is not installed (devDependency): ${(e as Error).message}` };
  }
  const files = fs
    .readdirSync(dir)
    .map((f) => /^doc-(\d+)\.json$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  const ids: string[] = [];
  const texts: string[] = [];
  for (const m of files) {
    for (const s of JSON.parse(fs.readFileSync(path.join(dir, m[0]), 'utf8')) as string[]) {
      if (ids.length >= MAX_DOCS) break;
      ids.push(`s${ids.length}`);
      texts.push(s);
    }
  }
  const rng = new Rng(0x5e27e9ce);
  const seen = new Set<string>();
  const queries: string[] = [];
  for (let tries = 0; queries.length < QUERIES && tries < QUERIES * 100; tries++) {
    const words = [...new Set(texts[rng.int(texts.length)].toLowerCase().match(/[a-z]+/g) ?? [])].filter((w) => w.length >= 3 && !STOPWORDS.has(w));
    if (words.length < 2) continue;
    const n = Math.min(words.length, 2 + rng.int(2));
    const q = shuffle(rng, words).slice(0, n).join(' ');
    if (seen.has(q)) continue;
    seen.add(q);
    queries.push(q);
  }
  const chars = texts.reduce((s, t) => s + t.length, 0);
  return {
    corpus: {
      name,
      source: `nlp-corpus@${version} builds/doc-*.json: ${ids.length} English sentences, ${(chars / 1e6).toFixed(1)} M chars`,
      ids,
      texts,
      queries,
      query_source: `${queries.length} distinct queries of 2-3 words (3+ letters, no stopwords) taken from seeded random sentences of the corpus`,
    },
  };
}

// --- measuring -----------------------------------------------------------------------------------
interface Engine {
  name: string;
  /** One query, timed: returns the engine's raw answer. */
  search(q: number): unknown;
  /** Untimed: the answer's top-k ids, best first. */
  ids(raw: unknown): string[];
  /** Untimed: the answer's scores, parallel to ids (for the score check), when the engine has them. */
  scores?(raw: unknown): number[];
}

interface QueryStats extends TimingSummary {
  max_ms: number;
  mean_ms_all_samples: number;
  qps: number; // 1000 / mean_ms: throughput one query at a time
  qps_p50: number;
}

/** Stats of the per-query best-of-rounds times, plus the plain mean over every sample. */
function queryStats(ms: number[], all: number[]): QueryStats {
  const s = summarize(ms);
  return {
    ...s,
    max_ms: round(Math.max(...ms), 3),
    qps: round(1000 / s.mean_ms, 1),
    qps_p50: round(1000 / s.p50_ms, 1),
    mean_ms_all_samples: round(all.reduce((a, b) => a + b, 0) / all.length, 3),
  };
}

interface OverlapStats {
  overlap_at_10: number; // tie-aware mean over queries the oracle matches
  overlap_at_10_strict: number; // ties broken by corpus order
  perfect_queries: number;
  scored_queries: number;
}

function overlapStats(oracle: OracleResult[], results: number[][]): OverlapStats {
  let tie = 0;
  let strict = 0;
  let perfect = 0;
  let n = 0;
  for (let q = 0; q < oracle.length; q++) {
    const o = overlapAt(TOP_K, oracle[q], results[q]);
    if (!o) continue;
    n++;
    tie += o.tie_aware;
    strict += o.strict;
    if (o.tie_aware === 1) perfect++;
  }
  return {
    overlap_at_10: round(tie / Math.max(1, n), 4),
    overlap_at_10_strict: round(strict / Math.max(1, n), 4),
    perfect_queries: perfect,
    scored_queries: n,
  };
}

interface QueryRun {
  /** Per query, the fastest of the rounds (ms): what the query costs, with scheduler and GC spikes that hit one round filtered out. */
  ms: number[];
  /** Every sample of every round (ms). */
  all: number[];
  /** The first round's answers. */
  raw: unknown[];
}

/**
 * ROUNDS passes over the queries (alternating direction); for each query every engine runs once,
 * in a seeded random order, so no engine always follows the same one (a peer's garbage collection
 * lands on whoever runs next).
 */
async function runQueries(engines: Engine[], nq: number, label: string): Promise<Map<string, QueryRun>> {
  for (const e of engines) for (let q = 0; q < Math.min(WARMUP, nq); q++) await e.search(q);
  const out = new Map<string, QueryRun>(engines.map((e) => [e.name, { ms: new Array<number>(nq).fill(Infinity), all: [], raw: [] }]));
  let lastLog = now();
  const rng = new Rng(0x0dde7);
  const order = engines.map((_, i) => i);
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < nq; i++) {
      const q = round % 2 === 0 ? i : nq - 1 - i;
      shuffle(rng, order);
      for (const k of order) {
        const e = engines[k];
        const t = now();
        const r = await e.search(q);
        const dt = now() - t;
        const o = out.get(e.name)!;
        o.ms[q] = Math.min(o.ms[q], dt);
        o.all.push(dt);
        if (round === 0) o.raw[q] = r;
      }
      if (now() - lastLog > 10000) {
        lastLog = now();
        log(`  ${label}: round ${round + 1} / ${ROUNDS}, ${i + 1} / ${nq} queries`);
      }
    }
  }
  return out;
}

interface XapianOut {
  version: string;
  backend: string;
  docs: number;
  index_s: number;
  query_ms: number[];
  query_ms_all: number[];
  results: string[][];
  parse_fallbacks: number;
}

/**
 * Runs bench/text-deps.sh (apt-get install wordnet-base python3-xapian, sudo when not root, a no-op
 * without apt) when either is missing, unless BENCH_TEXT_NO_DEPS=1. Whatever is still missing
 * afterwards is reported as null with its reason.
 */
function ensureDeps(): void {
  const haveWordnet = fs.existsSync(path.join(WORDNET_DIR, 'data.noun'));
  const haveXapian = fs.existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import xapian'], { stdio: 'ignore' }).status === 0;
  if ((haveWordnet && haveXapian) || process.env.BENCH_TEXT_NO_DEPS === '1') return;
  const script = path.resolve(__dirname, '../../bench/text-deps.sh');
  log(`missing ${[haveWordnet ? '' : 'wordnet-base', haveXapian ? '' : 'python3-xapian'].filter(Boolean).join(' and ')}: running ${script}`);
  const r = spawnSync('sh', [script], { stdio: ['ignore', 2, 2], timeout: 600_000 });
  if (r.status !== 0) log(`text-deps.sh exited ${r.status ?? r.signal}`);
}

function xapianAvailable(): string | null {
  if (!fs.existsSync(PYTHON)) return `${PYTHON} not found`;
  const r = spawnSync(PYTHON, ['-c', 'import xapian; print(xapian.version_string())'], { encoding: 'utf8' });
  if (r.status !== 0) return `python3-xapian is not installed (run bench/text-deps.sh): ${(r.stderr || '').trim().split('\n').pop()}`;
  return null;
}

function runXapian(c: Corpus, queries: string[]): XapianOut {
  const dir = freshDir('text-xapian');
  try {
    const input = path.join(dir, 'input.json');
    fs.writeFileSync(
      input,
      JSON.stringify({
        docs: c.ids.map((id, i) => [id, c.texts[i]]),
        queries,
        k: TOP_K,
        k1: K1,
        b: B,
        stopwords: [...STOPWORDS],
        warmup: WARMUP,
        rounds: ROUNDS,
        backend: 'glass',
        dir: path.join(dir, 'db'),
      }),
    );
    const script = path.resolve(__dirname, '../../bench/xapian_bm25.py');
    const r = spawnSync(PYTHON, [script, input], { encoding: 'utf8', maxBuffer: 256 << 20, timeout: XAPIAN_TIMEOUT_MS });
    if (r.status !== 0) throw new Error(`xapian_bm25.py exited ${r.status ?? r.signal}: ${(r.stderr || '').trim().slice(-2000)}`);
    const lines = r.stdout.trim().split('\n');
    return JSON.parse(lines[lines.length - 1]) as XapianOut;
  } finally {
    removeDir(dir);
  }
}

const geomean = (xs: number[]): number => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

interface TesseraSetup {
  store: Store;
  index_s: number;
  upsert_s: number;
  flush_s: number;
  json_build_s: number;
  json_mb: number;
  text_index_bytes: number;
}

function upsertBodies(c: Corpus): Buffer[] {
  const bodies: Buffer[] = [];
  for (let from = 0; from < c.ids.length; from += BATCH) {
    const records = [];
    for (let i = from; i < Math.min(c.ids.length, from + BATCH); i++) records.push({ id: c.ids[i], attrs: { text: { Str: c.texts[i] } } });
    bodies.push(Buffer.from(JSON.stringify({ records }), 'utf8'));
  }
  return bodies;
}

/** Fresh in-memory store, schema declared first, every batch upserted (one in flight), then flush. */
async function buildTessera(c: Corpus, bodies: Buffer[], jsonBuildS: number): Promise<TesseraSetup> {
  const store = await Store.open({ inMemory: true, dimension: 0, queryThreads: 1 });
  await store.createCollection(COLLECTION);
  await store.setFtsSchema(COLLECTION, ['text']);
  const t = now();
  let pending: Promise<unknown> | null = null;
  let lastLog = t;
  for (let i = 0; i < bodies.length; i++) {
    if (pending) await pending;
    pending = store.upsert(COLLECTION, bodies[i]);
    if (now() - lastLog > 5000) {
      lastLog = now();
      log(`  tessera: upserted ${i * BATCH} / ${c.ids.length}`);
    }
  }
  await pending;
  const upsertS = (now() - t) / 1000;
  const tf = now();
  await store.flush();
  const flushS = (now() - tf) / 1000;
  const stats = await store.stats();
  if (stats.footprint.rows !== c.ids.length) throw new Error(`store holds ${stats.footprint.rows} rows, expected ${c.ids.length}`);
  return {
    store,
    index_s: upsertS + flushS,
    upsert_s: upsertS,
    flush_s: flushS,
    json_build_s: jsonBuildS,
    json_mb: bodies.reduce((s, b) => s + b.length, 0) / 1e6,
    text_index_bytes: stats.text_index_bytes,
  };
}

/** The other indexing path: rows stored first, then the schema declared (indexes them once), then flush. */
async function declareAfter(bodies: Buffer[], n: number): Promise<Record<string, unknown>> {
  const store = await Store.open({ inMemory: true, dimension: 0, queryThreads: 1 });
  try {
    for (const b of bodies) await store.upsert(COLLECTION, b);
    await store.flush();
    const t = now();
    await store.setFtsSchema(COLLECTION, ['text']);
    const declareS = (now() - t) / 1000;
    const tf = now();
    await store.flush();
    const flushS = (now() - tf) / 1000;
    return { declare_s: round(declareS, 3), flush_s: round(flushS, 3), docs_per_s: Math.round(n / (declareS + flushS)) };
  } finally {
    await store.close();
  }
}

interface Env {
  tesseraReason: string | null;
  xapianReason: string | null;
  MiniSearch: MiniSearchCtor;
  miniVersion: string;
  orama: OramaModule;
  oramaVersion: string;
}

async function runCorpus(c: Corpus, env: Env): Promise<Record<string, unknown>> {
  const n = c.ids.length;
  const nq = c.queries.length;
  log(
    `${c.name}: ${c.source}; ${c.query_source}; e.g. ${c.queries
      .slice(0, 4)
      .map((q) => JSON.stringify(q))
      .join(', ')}`,
  );
  const idIndex = new Map<string, number>(c.ids.map((id, i) => [id, i]));
  const toDocs = (ids: string[]): number[] => ids.map((id) => idIndex.get(id) ?? -1);

  // The independent BM25 (not timed against anyone).
  let t = now();
  const oracle = new Bm25Oracle(c.texts, K1, B);
  const oracleBuildS = (now() - t) / 1000;
  t = now();
  const truth = c.queries.map((q) => oracle.search(q, TOP_K));
  const oracleQueryS = (now() - t) / 1000;
  const emptyQueries = truth.filter((r) => r.matched === 0).length;
  const meanMatched = truth.reduce((s, r) => s + r.matched, 0) / nq;
  log(
    `  oracle: N=${oracle.n} avgdl=${oracle.avgdl.toFixed(2)} vocabulary ${oracle.vocabulary} terms, built in ${oracleBuildS.toFixed(1)} s; ` +
      `queries match ${Math.round(meanMatched)} docs on average, ${emptyQueries} match none`,
  );

  // Index builds, one engine at a time.
  const docs = c.ids.map((id, i) => ({ id, text: c.texts[i] }));
  let tessera: TesseraSetup | null = null;
  let tesseraReason = env.tesseraReason;
  let declared: Record<string, unknown> | null = null;
  if (!tesseraReason) {
    try {
      t = now();
      const bodies = upsertBodies(c);
      const jsonBuildS = (now() - t) / 1000;
      tessera = await buildTessera(c, bodies, jsonBuildS);
      log(
        `  tessera: indexed ${n} in ${tessera.index_s.toFixed(2)} s (upserts ${tessera.upsert_s.toFixed(2)} s + flush ${tessera.flush_s.toFixed(2)} s) = ${Math.round(n / tessera.index_s)} docs/s`,
      );
      try {
        declared = await declareAfter(bodies, n);
        log(`  tessera (schema declared after the rows): ${JSON.stringify(declared)}`);
      } catch (e) {
        declared = { error: (e as Error).message };
        log(`  tessera (schema declared after the rows) FAILED: ${(e as Error).message}`);
      }
    } catch (e) {
      tesseraReason = `tessera failed to index: ${(e as Error).stack ?? e}`;
      log(`  ${tesseraReason}`);
      if (tessera) await tessera.store.close();
      tessera = null;
    }
  }

  t = now();
  const mini = new env.MiniSearch({ fields: ['text'] });
  mini.addAll(docs);
  const miniIndexS = (now() - t) / 1000;
  log(`  minisearch: indexed in ${miniIndexS.toFixed(2)} s = ${Math.round(n / miniIndexS)} docs/s`);

  t = now();
  const odb = env.orama.create({ schema: { text: 'string' } });
  await env.orama.insertMultiple(odb, docs, 1000);
  const oramaIndexS = (now() - t) / 1000;
  if (env.orama.count(odb) !== n) throw new Error(`orama holds ${env.orama.count(odb)} docs, expected ${n}`);
  log(
    `  orama: indexed in ${oramaIndexS.toFixed(2)} s = ${Math.round(n / oramaIndexS)} docs/s, heap ${(process.memoryUsage().heapUsed / 2 ** 30).toFixed(2)} GiB`,
  );

  // Queries, interleaved.
  const engines: Engine[] = [];
  if (tessera) {
    const store = tessera.store;
    const jsonBodies = c.queries.map((q) => Buffer.from(JSON.stringify({ field: 'text', query: q, top_k: TOP_K, include_attributes: [] }), 'utf8'));
    engines.push(
      {
        name: 'tessera',
        search: (q) => store.textSearch({ field: 'text', query: c.queries[q], top_k: TOP_K, include_attributes: [] }),
        ids: (r) => (r as Hit[]).map((h) => h.id),
        scores: (r) => (r as Hit[]).map((h) => h.score),
      },
      {
        name: 'tessera_attrs',
        search: (q) => store.textSearch({ field: 'text', query: c.queries[q], top_k: TOP_K }),
        ids: (r) => (r as Hit[]).map((h) => h.id),
      },
      {
        name: 'tessera_json',
        search: (q) => store.textSearchJson(jsonBodies[q]),
        ids: (r) => (JSON.parse((r as Buffer).toString('utf8')) as Hit[]).map((h) => h.id),
      },
    );
  }
  engines.push(
    {
      name: 'minisearch',
      search: (q) => mini.search(c.queries[q], { combineWith: 'OR' }),
      ids: (r) => (r as MiniSearchResult[]).slice(0, TOP_K).map((x) => String(x.id)),
    },
    {
      name: 'orama',
      search: (q) => env.orama.search(odb, { term: c.queries[q], limit: TOP_K, properties: ['text'] }),
      ids: (r) => (r as { hits: { id: string }[] }).hits.map((h) => h.id),
    },
  );
  const runs = await runQueries(engines, nq, c.name);

  const per: Record<string, Record<string, unknown>> = {};
  const results: Record<string, number[][]> = {};
  for (const e of engines) {
    const r = runs.get(e.name)!;
    results[e.name] = r.raw.map((x) => toDocs(e.ids(x)));
    per[e.name] = { ...queryStats(r.ms, r.all), ...overlapStats(truth, results[e.name]) };
  }

  // Our scores against the oracle's, and a few disagreements for whoever reads the log.
  let scoreCheck: Record<string, unknown> | null = null;
  if (tessera) {
    const raw = runs.get('tessera')!.raw;
    let maxRel = 0;
    let sumRel = 0;
    let compared = 0;
    let notMatching = 0;
    let short = 0;
    let shown = 0;
    let worst = null as { q: number; id: string; ours: number; exact: number } | null;
    for (let q = 0; q < nq; q++) {
      const ids = engines[0].ids(raw[q]);
      const scores = engines[0].scores!(raw[q]);
      if (ids.length < Math.min(TOP_K, truth[q].matched)) short++;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i];
        const s = truth[q].scores.get(idIndex.get(id) ?? -1);
        if (s === undefined) {
          notMatching++;
          continue;
        }
        const rel = Math.abs(scores[i] - s) / Math.max(1e-12, Math.abs(s));
        if (rel > maxRel) worst = { q, id, ours: scores[i], exact: s };
        maxRel = Math.max(maxRel, rel);
        sumRel += rel;
        compared++;
      }
      const o = overlapAt(TOP_K, truth[q], results.tessera[q]);
      if (o && o.tie_aware < 1 && shown < 3) {
        shown++;
        log(
          `  disagreement on ${JSON.stringify(c.queries[q])} (terms ${JSON.stringify([...new Set(analyze(c.queries[q]))])}): ` +
            `ours ${ids.map((id, i) => `${id}:${scores[i].toFixed(4)}`).join(' ')} | ` +
            `oracle ${truth[q].top.map((x) => `${c.ids[x.doc]}:${x.score.toFixed(4)}`).join(' ')}`,
        );
      }
    }
    if (worst && maxRel > 1e-5) {
      const d = idIndex.get(worst.id)!;
      log(
        `  largest score difference: query ${JSON.stringify(c.queries[worst.q])} doc ${worst.id} ours ${worst.ours} exact ${worst.exact}; ` +
          `doc text ${JSON.stringify(c.texts[d])} analyzes to ${JSON.stringify(analyze(c.texts[d]))}`,
      );
    }
    scoreCheck = {
      hits_compared: compared,
      score_max_rel_err: round(maxRel, 8),
      score_mean_rel_err: round(sumRel / Math.max(1, compared), 8),
      worst: worst && maxRel > 1e-5 ? { query: c.queries[worst.q], id: worst.id, ours: worst.ours, exact: round(worst.exact, 7) } : undefined,
      hits_not_matching: notMatching,
      queries_with_fewer_hits_than_oracle: short,
    };
  }

  // Xapian, in its own process, after the in-process engines are done with the CPU.
  let xapian: Record<string, unknown> | null = null;
  let xapianReason = env.xapianReason;
  if (!xapianReason) {
    try {
      t = now();
      const x = runXapian(c, c.queries);
      if (x.docs !== n) throw new Error(`xapian indexed ${x.docs} docs, expected ${n}`);
      const xDocs = x.results.map(toDocs);
      xapian = {
        version: x.version,
        backend: `${x.backend} (temp dir, commit included in index time)`,
        index_s: round(x.index_s, 3),
        index_docs_per_s: Math.round(n / x.index_s),
        ...queryStats(x.query_ms, x.query_ms_all),
        ...overlapStats(truth, xDocs),
        parse_fallbacks: x.parse_fallbacks,
        wall_s: round((now() - t) / 1000, 1),
      };
      log(
        `  xapian ${x.version}: indexed at ${Math.round(n / x.index_s)} docs/s, queries p50 ${(xapian.p50_ms as number).toFixed(3)} ms, overlap@10 ${xapian.overlap_at_10}`,
      );
    } catch (e) {
      xapianReason = `xapian run failed: ${(e as Error).message}`;
      log(`  ${xapianReason}`);
    }
  }

  const index: Record<string, unknown> = {
    minisearch: { index_s: round(miniIndexS, 3), docs_per_s: Math.round(n / miniIndexS) },
    orama: { index_s: round(oramaIndexS, 3), docs_per_s: Math.round(n / oramaIndexS) },
    xapian: xapian ? { index_s: xapian.index_s, docs_per_s: xapian.index_docs_per_s } : null,
  };
  const bestPeerIndex = Math.max(n / miniIndexS, n / oramaIndexS);
  const fasterIndexPeer = n / miniIndexS >= n / oramaIndexS ? 'minisearch' : 'orama';
  const miniQ = per.minisearch as unknown as QueryStats;
  const oramaQ = per.orama as unknown as QueryStats;
  const fasterQueryPeer = miniQ.qps >= oramaQ.qps ? 'minisearch' : 'orama';
  const peerQ = fasterQueryPeer === 'minisearch' ? miniQ : oramaQ;
  let ratios: Record<string, number | string | null> = { faster_query_peer: fasterQueryPeer, faster_index_peer: fasterIndexPeer };
  if (tessera) {
    index.tessera = {
      index_s: round(tessera.index_s, 3),
      docs_per_s: Math.round(n / tessera.index_s),
      upsert_s: round(tessera.upsert_s, 3),
      flush_s: round(tessera.flush_s, 3),
      json_mb: round(tessera.json_mb, 1),
      json_build_s_untimed: round(tessera.json_build_s, 3),
      text_index_bytes_per_doc: Math.round(tessera.text_index_bytes / n),
      schema_declared_after_rows: declared,
    };
    const ours = per.tessera as unknown as QueryStats;
    const withAttrs = per.tessera_attrs as unknown as QueryStats;
    const x = xapian as unknown as (QueryStats & { index_docs_per_s: number }) | null;
    // Typical per-query speed-up: geometric mean over queries of the faster-on-average peer's time / ours.
    const peerMs = runs.get(fasterQueryPeer)!.ms;
    const oursMs = runs.get('tessera')!.ms;
    ratios = {
      ...ratios,
      query_ratio: round(ours.qps / peerQ.qps, 3),
      query_ratio_per_query_geomean: round(geomean(oursMs.map((m, q) => peerMs[q] / m)), 3),
      query_ratio_p50: round(ours.qps_p50 / Math.max(miniQ.qps_p50, oramaQ.qps_p50), 3),
      query_ratio_with_attrs: round(withAttrs.qps / peerQ.qps, 3),
      index_ratio: round(n / tessera.index_s / bestPeerIndex, 3),
      xapian_query_ratio: x ? round(ours.qps / x.qps, 3) : null,
      xapian_query_ratio_p50: x ? round(ours.qps_p50 / x.qps_p50, 3) : null,
      xapian_index_ratio: x ? round(n / tessera.index_s / x.index_docs_per_s, 3) : null,
    };
    log(
      `  ${c.name}: ours ${ours.qps} q/s (p50 ${ours.p50_ms} ms), minisearch ${miniQ.qps} q/s, orama ${oramaQ.qps} q/s, ` +
        `query_ratio ${ratios.query_ratio}, index_ratio ${ratios.index_ratio}, overlap@10 ${(per.tessera as unknown as OverlapStats).overlap_at_10}`,
    );
    await tessera.store.close();
  } else {
    log(`  ${c.name}: minisearch ${miniQ.qps} q/s, orama ${oramaQ.qps} q/s (ours not measured: ${tesseraReason})`);
  }

  return {
    docs: n,
    source: c.source,
    queries: nq,
    query_source: c.query_source,
    example_queries: c.queries.slice(0, 5),
    oracle: {
      n: oracle.n,
      avgdl: round(oracle.avgdl, 3),
      vocabulary: oracle.vocabulary,
      mean_matched_docs: Math.round(meanMatched),
      queries_matching_nothing: emptyQueries,
      build_s: round(oracleBuildS, 2),
      query_s: round(oracleQueryS, 2),
    },
    ratios,
    index,
    query: per,
    xapian,
    xapian_null_reason: xapian ? undefined : xapianReason,
    tessera_null_reason: tessera ? undefined : tesseraReason,
    score_check: scoreCheck,
    loadavg_1m: round(os.loadavg()[0], 2),
  };
}

async function main(): Promise<void> {
  const t0 = now();
  const machineStart = machine();
  log(`bench:text on ${JSON.stringify(machineStart)}`);

  const MiniSearch = require('minisearch') as MiniSearchCtor;
  const orama = require('@orama/orama') as OramaModule;
  let tesseraReason: string | null = null;
  try {
    // Full text is new in the core: a library or addon without it is reported, not guessed at.
    const probe = await Store.open({ inMemory: true, dimension: 0 });
    try {
      await probe.upsert(COLLECTION, { records: [{ id: 'p', attrs: { text: { Str: 'probe text' } } }] });
      await probe.setFtsSchema(COLLECTION, ['text']);
      const hits = await probe.textSearch({ field: 'text', query: 'probe', top_k: TOP_K });
      if (hits.length !== 1 || hits[0].id !== 'p') throw new Error(`probe query returned ${JSON.stringify(hits)}`);
    } finally {
      await probe.close();
    }
  } catch (e) {
    tesseraReason = `full text does not work in this build: ${(e as Error).message}`;
  }
  if (tesseraReason) log(`WARNING: ours is not measured: ${tesseraReason}`);
  ensureDeps();
  const xapianReason = xapianAvailable();
  if (xapianReason) log(`WARNING: no Xapian numbers: ${xapianReason}`);
  const env: Env = { tesseraReason, xapianReason, MiniSearch, miniVersion: pkgVersion('minisearch'), orama, oramaVersion: pkgVersion('@orama/orama') };

  const corpora: Record<string, Record<string, unknown> | null> = {};
  const unavailable: Record<string, string> = {};
  for (const load of [loadWordnet, loadNlpCorpus]) {
    const t = now();
    const l = load();
    if ('unavailable' in l) {
      log(`${l.name}: SKIPPED: ${l.unavailable}`);
      corpora[l.name] = null;
      unavailable[l.name] = l.unavailable;
      continue;
    }
    log(`${l.corpus.name}: loaded ${l.corpus.ids.length} docs and ${l.corpus.queries.length} queries in ${((now() - t) / 1000).toFixed(1)} s`);
    corpora[l.corpus.name] = await runCorpus(l.corpus, env);
  }

  // Headlines over the corpora measured: geometric means of the ratios, pooled mean overlap.
  const done = Object.values(corpora).filter((c): c is Record<string, unknown> => c !== null);
  const ratioOf = (key: string): number[] =>
    done.map((c) => (c.ratios as Record<string, unknown>)[key]).filter((x): x is number => typeof x === 'number' && x > 0);
  const headline = (key: string): number | null => {
    const xs = ratioOf(key);
    return xs.length ? round(geomean(xs), 3) : null;
  };
  const pooled = (engine: string): number | null => {
    let sum = 0;
    let n = 0;
    for (const c of done) {
      const e = engine === 'xapian' ? (c.xapian as OverlapStats | null) : (c.query as Record<string, OverlapStats>)[engine];
      if (!e) continue;
      sum += e.overlap_at_10 * e.scored_queries;
      n += e.scored_queries;
    }
    return n ? round(sum / n, 4) : null;
  };
  const xapianDone = done.filter((c) => c.xapian);
  const nullReasons: Record<string, string> = { ...unavailable };
  if (tesseraReason) nullReasons.tessera = tesseraReason;
  if (xapianReason) nullReasons.xapian = xapianReason;
  for (const [name, c] of Object.entries(corpora)) {
    if (c?.tessera_null_reason) nullReasons[`${name}.tessera`] = c.tessera_null_reason as string;
    if (c?.xapian_null_reason) nullReasons[`${name}.xapian`] = c.xapian_null_reason as string;
  }

  emit({
    bench: 'text',
    query_ratio: headline('query_ratio'),
    index_ratio: headline('index_ratio'),
    overlap_at_10: pooled('tessera'),
    query_ratio_p50: headline('query_ratio_p50'),
    query_ratio_per_query_geomean: headline('query_ratio_per_query_geomean'),
    query_ratio_with_attrs: headline('query_ratio_with_attrs'),
    xapian_query_ratio: headline('xapian_query_ratio'),
    xapian_index_ratio: headline('xapian_index_ratio'),
    peer_overlap_at_10: { minisearch: pooled('minisearch'), orama: pooled('orama'), xapian: xapianDone.length ? pooled('xapian') : null },
    headline_definition:
      `query_ratio = our queries/s (1000 / mean over queries of each query's best-of-${ROUNDS} ms, one query at a time, textSearch with include_attributes [] -> Hit[]) / the faster JS peer's; ` +
      "index_ratio = our index docs/s (upserts of prebuilt JSON bodies of 1,000 + flush, schema declared first) / the faster JS peer's; " +
      'both geometric means over the corpora measured. overlap_at_10 = mean over all queries (that the oracle matches) of |our top-10 ∩ ' +
      'documents scoring >= the 10th exact BM25 score| / min(10, matches), the exact BM25 computed in the bench (bench/bm25_oracle.ts, k1 1.2, b 0.75) ' +
      'from docs/full-text.md; _strict variants in the details break ties by corpus order. query_ratio_p50 compares medians and ' +
      "query_ratio_per_query_geomean is the geometric mean over queries of (that peer's ms / ours): the peers keep stopwords, so a query " +
      'holding "a" or "of" touches most documents for them, which weighs on their mean far more than on their median.',
    null_reasons: Object.keys(nullReasons).length ? nullReasons : undefined,
    peers: {
      minisearch: `minisearch ${env.miniVersion}: fields ['text'], default options (BM25+ k 1.2 b 0.7 d 0.5, lowercase, no stemming, no stopwords), combineWith OR; returns every match, we keep the first 10`,
      orama: `@orama/orama ${env.oramaVersion}: schema {text: 'string'}, insertMultiple batches of 1,000, search {term, limit 10, properties ['text']} (default tokenizer: english, no stemming, no stopwords; threshold 1 = any term)`,
      xapian: xapianReason
        ? null
        : 'Xapian via /usr/bin/python3 (bench/xapian_bm25.py): glass WritableDatabase in a temp dir, TermGenerator (english stemmer, STEM_SOME); QueryParser default op OR, STEM_SOME, Lucene English stopwords as query stopper; BM25Weight(k1 1.2, k2 0, k3 1, b 0.75, min_normlen 0.5); timed inside python',
    },
    ours: 'Store.open({inMemory: true, dimension: 0, queryThreads: 1}); setFtsSchema(docs, {fields: [text]}) (defaults k1 1.2, b 0.75, english); tessera = textSearch include_attributes []; tessera_attrs = textSearch with the text attr; tessera_json = textSearchJson on prebuilt bytes, Buffer not parsed',
    timing: `one query at a time, ${WARMUP} warm-up queries per engine, engines interleaved query by query in a seeded random order, best of ${ROUNDS} rounds per query; in-process engines share the JS thread; Xapian runs after them in its own process`,
    corpora,
    machine_start: machineStart,
    machine: machine(),
    total_s: round((now() - t0) / 1000, 1),
  });
}

runBench(main);
