// bench:micro — the hot paths a change can slow, each timed with `benchmark` beside a calibration
// of comparable work in the same run, so a regression shows as a ratio that moves while the
// machine's speed (shared, noisy) cancels out. bench/micro_compare.ts holds a run against the
// committed baseline (bench/micro-baseline.json).
//
// Each hot path is reached through the smallest public call it dominates (the library's *Json
// methods, the addon's runKernel, one HTTP request); bench/README.md lists the cases.
// Every case and its calibration run back to back, taking turns over BENCH_ROUNDS rounds (the
// order swapped each round); the ratio is the case's fastest benchmark cycle over all rounds to its
// calibration's fastest (noise on a shared machine only ever adds time).
//
// BENCH_SECONDS: benchmark's maxTime for each timing (default 0.5); BENCH_ROUNDS (default 5).
// Progress goes to stderr; the last stdout line is one JSON object.
import Benchmark from 'benchmark';
import { Store } from '../lib/index';
import { native } from '../lib/native';
import { Rng, emit, log, machine, nlpSentences, now, randomUnitVectors, round, runBench, searchBody, upsertBody } from './common';
import { CLI, connection, post, serveBare, start } from './http_rig';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 0.5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** One timed call; an async one is awaited (a deferred benchmark). */
interface Timed {
  what: string;
  op: () => unknown;
  async?: boolean;
  /** Runs before each timing of the call, untimed. */
  before?: () => Promise<void>;
}

interface Case {
  name: string;
  /** The hot path the case guards. */
  hot_path: string;
  measured: Timed;
  calibration: Timed;
}

/** What a case needs released after the run (stores, server processes, sockets). */
const cleanup: (() => unknown)[] = [];

async function openStore(dimension: number): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension });
  cleanup.push(() => store.close());
  return store;
}

function check(name: string, ok: boolean, got: unknown): void {
  if (!ok) throw new Error(`${name}: unexpected answer ${String(got).slice(0, 200)}`);
}

/** A 768-d /search body over one row: simdjson's parse of 768 floats is most of the call. */
async function requestParsing(): Promise<Case> {
  const dim = 768;
  const store = await openStore(dim);
  const v = randomUnitVectors(new Rng(1), 2, dim);
  await store.upsert('one', upsertBody(v, dim, 0, 1));
  const body = searchBody(v, 1, dim, 1, false);
  const text = body.toString();
  check('request_parsing', JSON.parse((await store.searchJson(body)).toString()).length === 1, text);
  return {
    name: 'request_parsing',
    hot_path: '/search body parsing (simdjson, the query vector into floats, the parameters)',
    measured: {
      what: `store.searchJson of a ${body.length}-byte /search body (768-d query, top_k 1) over a 1-row store, parsed and run inline`,
      op: () => store.searchJson(body),
      async: true,
    },
    calibration: { what: 'JSON.parse of the same body text', op: () => JSON.parse(text) },
  };
}

/** /search top_k 256 over 256 small rows with five attrs each: writing the hits is most of the call. */
async function hitSerialization(): Promise<Case> {
  const dim = 16;
  const n = 256;
  const store = await openStore(dim);
  const sentences = nlpSentences(n);
  const rng = new Rng(2);
  const v = randomUnitVectors(rng, n, dim);
  const attrs = sentences.map(
    (s, i) =>
      // Ints across the 64-bit range, so writing them is not only small numbers.
      `{"title":{"Str":${JSON.stringify(s)}},"views":{"Int":${i % 3 === 0 ? BigInt(i) * 36028797018963967n : rng.int(1_000_000)}},` +
      `"rating":{"Float":${(rng.next() * 5).toFixed(4)}},"tags":{"List":${JSON.stringify(s.toLowerCase().split(/\W+/).filter(Boolean).slice(0, 3))}},"draft":{"Bool":${i % 2 === 0}}}`,
  );
  await store.upsert(
    'hits',
    upsertBody(v, dim, 0, n, { attrs: (buf, pos, r) => pos + buf.write(attrs[r], pos, 'utf8'), attrsBound: (r) => Buffer.byteLength(attrs[r]) }),
  );
  const body = searchBody(v, 0, dim, n, false);
  const answer = await store.searchJson(body);
  const hits = JSON.parse(answer.toString()) as unknown[];
  check('hit_serialization', hits.length === n, answer);
  return {
    name: 'hit_serialization',
    hot_path: 'hit writing (ids, scores, attrs of every Value type as JSON bytes)',
    measured: {
      what: `store.searchJson top_k ${n} over ${n} x ${dim} rows with 5 attrs (Str sentence, Int, Float, List, Bool), run inline; answer ${answer.length} bytes`,
      op: () => store.searchJson(body),
      async: true,
    },
    calibration: { what: 'JSON.stringify of the same hits, parsed', op: () => JSON.stringify(hits) },
  };
}

/** The predicates of the filter case, cycled. */
const PREDICATES: ((i: number) => object)[] = [
  (i) => ({ Eq: [`f${i}`, { Int: i }] }),
  (i) => ({ In: [`s${i}`, [{ Str: 'red' }, { Str: 'green' }, { Str: 'blue' }]] }),
  (i) => ({ Not: { Lt: [`n${i}`, { Float: 1.5 }] } }),
  (i) => ({ Glob: [`g${i}`, 'ab*c?d'] }),
  (i) => ({ ContainsAllTokens: [`t${i}`, 'quick brown fox'] }),
  (i) => ({ Any: [{ Eq: [`b${i}`, { Bool: true }] }, { Ge: [`m${i}`, { Int: 3 }] }] }),
  (i) => ({ Fuzzy: [`z${i}`, 'colour', 2] }),
  (i) => ({ ContainsAny: [`l${i}`, [{ Str: 'x' }, { Str: 'y' }]] }),
];

/** Calls of the filter case in flight at once. */
const IN_FLIGHT = 16;

/**
 * /list with a 200-predicate filter over an empty collection: compiling the filter is the call.
 * The body is parsed and its filter compiled where the call is made; the (empty) listing then
 * runs on a query thread, which has gone to sleep meanwhile, and waking it costs as much again
 * on a busy machine. IN_FLIGHT calls at once, as a server's concurrent requests would be, let
 * each wake overlap the next compilation.
 */
async function filterCompilation(): Promise<Case> {
  const store = await openStore(0);
  await store.createCollection('empty');
  // Every 16th predicate a Regex: RE2's compile costs about six of the others, so more would make
  // this RE2's benchmark.
  const filter = Array.from({ length: 200 }, (_, i) => (i % 16 === 15 ? { Regex: [`r${i}`, '(?i)ab[0-9]+c'] } : PREDICATES[i % PREDICATES.length](i)));
  const text = JSON.stringify({ scope: ['empty'], filter, limit: 10 });
  const body = Buffer.from(text);
  check('filter_compilation', (await store.listJson(body)).toString() === '[]', text);
  const calls = Array.from({ length: IN_FLIGHT }, () => body);
  return {
    name: 'filter_compilation',
    hot_path: 'filter validation and compilation (predicate tree, keys, text conjuncts, Glob, Fuzzy, Regex)',
    measured: {
      what: `${IN_FLIGHT} store.listJson calls at once, each with a ${filter.length}-predicate filter (${body.length} bytes) over an empty collection`,
      op: () => Promise.all(calls.map((b) => store.listJson(b))),
      async: true,
    },
    calibration: {
      what: `JSON.parse of the same body text, ${IN_FLIGHT} times`,
      op: () => {
        for (let i = 0; i < IN_FLIGHT; i++) JSON.parse(text);
      },
    },
  };
}

/** /text-search of ~10,000 characters of English over an empty full-text field: analysing the query is the call. */
async function tokenizer(): Promise<Case> {
  const store = await openStore(0);
  await store.createCollection('text');
  await store.setFtsSchema('text', ['body']);
  let query = '';
  for (const s of nlpSentences(1000)) {
    if (query.length + s.length > 10_000) break;
    query += `${s} `;
  }
  const body = Buffer.from(JSON.stringify({ scope: ['text'], field: 'body', query, top_k: 10 }));
  check('tokenizer', (await store.textSearchJson(body)).toString() === '[]', body);
  return {
    name: 'tokenizer',
    hot_path: 'the English analyzer (Unicode tokenizer, lowercase, stopwords, Snowball stemmer)',
    measured: {
      what: `store.textSearchJson of ${query.length} characters of nlp-corpus sentences (real) over an empty full-text field, run inline`,
      // A read this cheap runs inline and answers a Buffer, not a promise (Store.readJson).
      op: () => Promise.resolve(store.textSearchJson(body)),
      async: true,
    },
    calibration: { what: 'the same text lowercased and split on /[\\p{L}\\p{N}]+/gu in JS', op: () => query.toLowerCase().match(/[\p{L}\p{N}]+/gu) },
  };
}

/** The kernel cases: one 768-d dot (the binding's cost), and 1,000 x 768 rows (the kernels' throughput). */
function kernels(): Case[] {
  const dim = 768;
  const rowsN = 1000;
  const family = native.activeKernels();
  const v = randomUnitVectors(new Rng(3), rowsN + 2, dim);
  const a = v.slice(0, dim);
  const b = v.slice(dim, 2 * dim);
  const rows = v.slice(2 * dim);
  const bytes = Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength);
  const copy = Buffer.from(bytes);
  const memcmp: Timed = { what: `Buffer.compare of two equal ${bytes.length}-byte buffers (memcmp, reads both)`, op: () => Buffer.compare(bytes, copy) };
  const rowsCase = (op: 'dot_rows' | 'l2sq_rows'): Case => ({
    name: `kernel_${op}`,
    hot_path: `the ${family} ${op} kernel (the exact scan's inner loop)`,
    measured: {
      what: `native.runKernel('${family}', '${op}') of a 768-d query against ${rowsN} x ${dim} rows`,
      op: () => native.runKernel(family, op, a, rows),
    },
    calibration: memcmp,
  });
  return [
    {
      name: 'kernel_call',
      hot_path: 'a kernel call through the binding (argument conversion, dispatch, one 768-d dot)',
      measured: { what: `native.runKernel('${family}', 'dot') of two 768-d vectors`, op: () => native.runKernel(family, 'dot', a, b) },
      calibration: {
        what: 'native.activeKernels(): a call through the binding that does nothing but return a constant string',
        op: () => native.activeKernels(),
      },
    },
    rowsCase('dot_rows'),
    rowsCase('l2sq_rows'),
  ];
}

/** POST /search of body on a keep-alive connection, opened anew before each timing: uWebSockets.js closes one idle for 10 s. */
function keepAlive(port: number, body: string): { open: () => Promise<void>; send: () => Promise<string> } {
  let conn: Awaited<ReturnType<typeof connection>> | null = null;
  cleanup.push(() => conn?.close());
  return {
    open: async () => {
      conn?.close();
      conn = await connection(port, '/search', [body]);
    },
    send: () => conn!.send(0),
  };
}

/** One small /search through `tessera serve` (hooks, router, body reader, the library, the reply) against a bare uWebSockets.js endpoint answering as many bytes. */
async function httpDispatch(): Promise<Case> {
  const serve = await start(CLI, ['serve', '--in-memory', '--dimension', '4', '--port', '0', '--log-level', 'warn']);
  cleanup.push(() => serve.proc.kill());
  await post(`${serve.url}/collections/bench/upsert`, JSON.stringify({ records: [{ id: 'doc-1', vector: [0.5, 0.5, 0.5, 0.5], attrs: { n: { Int: 1 } } }] }));
  const body = JSON.stringify({ query: [0.1, 0.2, 0.3, 0.4], top_k: 1 });
  const answer = await post(`${serve.url}/search`, body);
  check('http_dispatch', JSON.parse(answer).length === 1, answer);
  const bare = await start(__filename, ['bare', `/search=${Buffer.byteLength(answer)}`]);
  cleanup.push(() => bare.proc.kill());
  const ours = keepAlive(serve.port, body);
  const theirs = keepAlive(bare.port, body);
  return {
    name: 'http_dispatch',
    hot_path: 'the HTTP request path (uWebSockets.js dispatch, hooks, body reader, route, reply)',
    measured: {
      what: `POST /search (4-d query, top_k 1, one row; ${answer.length}-byte answer) to \`tessera serve --in-memory\`, one request at a time on a keep-alive socket`,
      op: ours.send,
      async: true,
      before: ours.open,
    },
    calibration: { what: 'the same request to a bare uWebSockets.js endpoint answering as many bytes', op: theirs.send, async: true, before: theirs.open },
  };
}

interface Timing {
  /** Seconds per call of the fastest cycle. */
  best_s: number;
  hz: number;
  rme: number;
}

/** Times one call with benchmark (maxTime SECONDS); a failed call fails the run. */
async function measure(name: string, t: Timed): Promise<Timing> {
  await t.before?.();
  return new Promise((resolve, reject) => {
    let failure: unknown = null;
    const bench = new Benchmark(name, {
      maxTime: SECONDS,
      // Cycles of 2 ms (benchmark's default: 50 ms): on a shared machine a cycle that short often
      // runs whole within one time slice, and the fastest is then clean.
      minTime: 0.002,
      // A deferred benchmark's cycles are a timer tick apart (benchmark's default: 5 ms more).
      delay: 0,
      defer: !!t.async,
      fn: t.async
        ? (deferred: Benchmark.Deferred) =>
            (t.op() as Promise<unknown>).then(
              () => deferred.resolve(),
              (e) => {
                failure ??= e;
                deferred.resolve();
              },
            )
        : t.op,
      onError: () => reject(bench.error),
      onComplete: () => {
        if (failure) return reject(failure);
        if (bench.error) return reject(bench.error);
        resolve({ best_s: Math.min(...(bench.stats.sample as number[])), hz: bench.hz, rme: bench.stats.rme });
      },
    });
    // A synchronous call's cycles run back to back.
    bench.run({ async: false });
  });
}

type Side = 'measured' | 'calibration';
const SIDES: Side[] = ['measured', 'calibration'];

async function main(): Promise<void> {
  const t0 = now();
  try {
    const cases = [await requestParsing(), await hitSerialization(), await filterCompilation(), await tokenizer(), ...kernels(), await httpDispatch()];
    const best = new Map<string, Record<Side, number>>(cases.map((c) => [c.name, { measured: Infinity, calibration: Infinity }]));
    const roundRatios = new Map<string, number[]>(cases.map((c) => [c.name, []]));
    const last = new Map<string, Record<Side, Timing>>();
    for (let r = 0; r < ROUNDS; r++) {
      for (const c of cases) {
        // The order alternates round by round, so a drift during a pair weighs on both sides alike.
        const timings = {} as Record<Side, Timing>;
        for (const side of r % 2 === 0 ? SIDES : [...SIDES].reverse()) timings[side] = await measure(`${c.name} ${side}`, c[side]);
        const b = best.get(c.name)!;
        for (const side of SIDES) b[side] = Math.min(b[side], timings[side].best_s);
        const ratio = timings.measured.best_s / timings.calibration.best_s;
        roundRatios.get(c.name)!.push(ratio);
        last.set(c.name, timings);
        log(`round ${r + 1} ${c.name.padEnd(20)} ratio ${ratio.toFixed(3)}  (${timings.measured.hz.toFixed(0)} vs ${timings.calibration.hz.toFixed(0)} ops/s)`);
      }
    }
    const out: Record<string, unknown> = {};
    for (const c of cases) {
      const rs = roundRatios.get(c.name)!;
      const b = best.get(c.name)!;
      const { measured, calibration } = last.get(c.name)!;
      out[c.name] = {
        ratio: round(b.measured / b.calibration, 4),
        round_ratios: rs.map((x) => round(x, 4)),
        best_us: round(b.measured * 1e6, 3),
        calibration_best_us: round(b.calibration * 1e6, 3),
        ops_per_s: Math.round(measured.hz),
        calibration_ops_per_s: Math.round(calibration.hz),
        rme_pct: round(measured.rme, 2),
        hot_path: c.hot_path,
        measured: c.measured.what,
        calibration: c.calibration.what,
      };
    }
    emit({
      bench: 'micro',
      arch: process.arch,
      kernels: native.activeKernels(),
      benchmark: Benchmark.version,
      seconds: SECONDS,
      rounds: ROUNDS,
      ratio:
        "the case's fastest cycle over all rounds / its calibration's fastest cycle; lower is faster. round_ratios: the same within each round; ops_per_s (benchmark's mean) from the last round",
      cases: out,
      machine: machine(),
      total_s: round((now() - t0) / 1000, 1),
    });
  } finally {
    for (const release of cleanup.reverse()) await release();
  }
}

if (process.argv[2] === 'bare') serveBare(process.argv.slice(3));
else runBench(main);
