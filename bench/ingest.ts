// bench:ingest — upsert of 100k x 128 records with four attrs (Str, Int, Float, List) in batches
// of 1,000, sent as raw JSON bytes, against JSON.parse of the same bodies alone, in the same run.
// Vectors are seeded random unit vectors (128-d real vectors are not reachable here; ingest cost
// does not depend on their geometry). Progress goes to stderr; the last stdout line is one JSON object.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../lib/index';
import { Rng, emit, freshDir, log, machine, now, randomUnitVectors, removeDir, round, runBench, summarize, upsertBody, writeAscii, writeFixed } from './common';

const N = Number(process.env.BENCH_N ?? 100_000);
const DIM = 128;
const BATCH = 1000;
const RUNS = 3;
const IN_FLIGHT = 4; // secondary figure: concurrent batches share group commits
const COLLECTION = 'ingest';

const WORDS = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliett',
  'kilo',
  'lima',
  'mike',
  'november',
  'oscar',
  'papa',
];

/** Prebuilds every body: {"records":[{"id","vector",attrs:{Str,Int,Float,List}}, ...]}. */
function buildBodies(rng: Rng): Buffer[] {
  const vectors = randomUnitVectors(rng, N, DIM);
  const bodies: Buffer[] = [];
  for (let from = 0; from < N; from += BATCH) {
    const to = Math.min(N, from + BATCH);
    const body = upsertBody(vectors, DIM, from, to, {
      idPrefix: 'doc-',
      attrsBound: () => 256,
      attrs: (buf, pos, r) => {
        pos = writeAscii(buf, pos, `{"title":{"Str":"${WORDS[r % 16]} ${WORDS[(r >> 4) % 16]} record ${r}"},"views":{"Int":`);
        // Spread over the 64-bit range so Int parsing is not only small numbers.
        pos = writeAscii(buf, pos, r % 3 === 0 ? `${BigInt(r) * 92233720368547n}` : String(rng.int(1_000_000)));
        pos = writeAscii(buf, pos, '},"rating":{"Float":');
        pos = writeFixed(buf, pos, rng.next() * 5);
        return writeAscii(buf, pos, `},"tags":{"List":["${WORDS[rng.int(16)]}","${WORDS[rng.int(16)]}","t${r % 97}"]}}`);
      },
    });
    bodies.push(Buffer.from(body)); // exact-size copy
  }
  return bodies;
}

async function ingestOnce(
  bodies: Buffer[],
  opts: { inMemory?: boolean; inFlight?: number },
): Promise<{ seconds: number; close_s: number; batch_ms: number[] }> {
  const dir = opts.inMemory ? null : freshDir('ingest');
  try {
    const store = await Store.open(dir ? { path: dir, dimension: DIM, distance: 'Cosine' } : { inMemory: true, dimension: DIM, distance: 'Cosine' });
    const batchMs: number[] = [];
    const t = now();
    const inFlight = opts.inFlight ?? 1;
    if (inFlight === 1) {
      for (const body of bodies) {
        const tb = now();
        await store.upsert(COLLECTION, body);
        batchMs.push(now() - tb);
      }
    } else {
      let next = 0;
      const worker = async () => {
        while (next < bodies.length) await store.upsert(COLLECTION, bodies[next++]);
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
    }
    const seconds = (now() - t) / 1000;
    const stats = await store.stats();
    if (stats.footprint.rows !== N || stats.footprint.doc_count !== N) throw new Error(`store holds ${JSON.stringify(stats.footprint)}, expected ${N} rows`);
    const tc = now();
    await store.close();
    const closeS = (now() - tc) / 1000;
    return { seconds, close_s: closeS, batch_ms: batchMs };
  } finally {
    if (dir) removeDir(dir);
  }
}

/** Reopens a durable store once and checks a record came through intact (Int exact at 64 bits). */
async function verify(bodies: Buffer[]): Promise<void> {
  const dir = freshDir('ingest-verify');
  try {
    let store = await Store.open({ path: dir, dimension: DIM, distance: 'Cosine' });
    for (const b of bodies.slice(0, 4)) await store.upsert(COLLECTION, b);
    await store.close();
    store = await Store.open({ path: dir });
    const want = (
      JSON.parse(bodies[3].toString('utf8').replace(/"Int":(\d+)/g, '"Int":"$1"')) as {
        records: { id: string; vector: number[]; attrs: Record<string, unknown> }[];
      }
    ).records[0];
    const hits = await store.search({ query: want.vector, top_k: 1, exact: true });
    const got = hits[0];
    if (got?.id !== want.id) throw new Error(`verify: nearest to ${want.id} is ${got?.id}`);
    const views = (got.attrs.views as { Int: bigint }).Int;
    if (String(views) !== (want.attrs.views as { Int: string }).Int) throw new Error(`verify: Int ${views} != ${(want.attrs.views as { Int: string }).Int}`);
    await store.close();
  } finally {
    removeDir(dir);
  }
}

/** fsync latency of a small append on the store's filesystem: the durable path's floor per batch. */
function fsyncFloor(): number {
  const dir = freshDir('fsync');
  try {
    const fd = fs.openSync(path.join(dir, 'probe'), 'w');
    const chunk = Buffer.alloc(4096, 1);
    const ms: number[] = [];
    for (let i = 0; i < 30; i++) {
      fs.writeSync(fd, chunk);
      const t = now();
      fs.fsyncSync(fd);
      ms.push(now() - t);
    }
    fs.closeSync(fd);
    return summarize(ms).p50_ms;
  } finally {
    removeDir(dir);
  }
}

async function main(): Promise<void> {
  const t0 = now();
  log(`bench:ingest on ${JSON.stringify(machine())}`);
  log(`building ${N / BATCH} bodies of ${BATCH} records x ${DIM}-d (seeded random unit vectors) + 4 attrs`);
  const bodies = buildBodies(new Rng(0x1e57));
  const bytes = bodies.reduce((a, b) => a + b.length, 0);
  const mb = bytes / 1e6;
  log(`  ${mb.toFixed(1)} MB of JSON (${(bytes / N).toFixed(0)} bytes/record)`);

  await verify(bodies);
  log('  verified: a reopened store returns a record with its vector and exact Int');

  // Baseline: JSON.parse of the same bodies alone. The text is decoded outside the timed region
  // (strictest for us); the decode-included time is reported too.
  const texts = bodies.map((b) => b.toString('utf8'));
  const parseS: number[] = [];
  const decodeParseS: number[] = [];
  let sink = 0;
  for (let run = 0; run < RUNS; run++) {
    let t = now();
    for (const s of texts) sink += (JSON.parse(s) as { records: unknown[] }).records.length;
    parseS.push((now() - t) / 1000);
    t = now();
    for (const b of bodies) sink += (JSON.parse(b.toString('utf8')) as { records: unknown[] }).records.length;
    decodeParseS.push((now() - t) / 1000);
    log(`  JSON.parse run ${run + 1}: ${(mb / parseS[run]).toFixed(1)} MB/s (with utf8 decode ${(mb / decodeParseS[run]).toFixed(1)} MB/s)`);
  }
  if (sink !== 2 * RUNS * N) throw new Error('JSON.parse baseline miscounted');
  texts.length = 0;
  const parseBest = Math.min(...parseS);

  const fsyncMs = fsyncFloor();
  log(`  fsync of a 4 KiB append on ${os.tmpdir()}: p50 ${fsyncMs.toFixed(2)} ms`);

  const durable: { seconds: number; close_s: number; batch_ms: number[] }[] = [];
  const memory: number[] = [];
  const pipelined: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const d = await ingestOnce(bodies, {});
    durable.push(d);
    log(
      `  durable run ${run + 1}: ${Math.round(N / d.seconds)} records/s, ${(mb / d.seconds).toFixed(1)} MB/s, batch p50 ${summarize(d.batch_ms).p50_ms.toFixed(2)} ms, close ${d.close_s.toFixed(2)} s`,
    );
    const m = await ingestOnce(bodies, { inMemory: true });
    memory.push(m.seconds);
    log(`  in-memory run ${run + 1}: ${Math.round(N / m.seconds)} records/s, ${(mb / m.seconds).toFixed(1)} MB/s`);
    const p = await ingestOnce(bodies, { inFlight: IN_FLIGHT });
    pipelined.push(p.seconds);
    log(`  durable, ${IN_FLIGHT} batches in flight, run ${run + 1}: ${Math.round(N / p.seconds)} records/s, ${(mb / p.seconds).toFixed(1)} MB/s`);
  }
  const best = durable.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ourMbs = mb / best.seconds;
  const parseMbs = mb / parseBest;
  const batch = summarize(best.batch_ms);

  emit({
    bench: 'ingest',
    data: `synthetic: ${N} records x ${DIM}-d seeded random unit vectors (8 decimals) + attrs Str, Int (up to ~9.2e18), Float, List of 3; ${N / BATCH} bodies of ${BATCH}, prebuilt`,
    records: N,
    batch: BATCH,
    json_mb: round(mb, 2),
    bytes_per_record: Math.round(bytes / N),
    records_per_s: Math.round(N / best.seconds),
    json_mb_per_s: round(ourMbs, 2),
    json_parse_mb_per_s: round(parseMbs, 2),
    vs_json_parse: round(ourMbs / parseMbs, 3),
    vs_json_parse_median: round(mb / median(durable.map((d) => d.seconds)) / (mb / median(parseS)), 3),
    json_parse_with_decode_mb_per_s: round(mb / Math.min(...decodeParseS), 2),
    durable: `fsync per batch (one upsert in flight), fresh store directory in os.tmpdir() per run; best of ${RUNS}`,
    batch_ms_p50: batch.p50_ms,
    batch_ms_p90: batch.p90_ms,
    fsync_ms_p50: round(fsyncMs, 3),
    fsync_share_of_batch: round(fsyncMs / batch.p50_ms, 3),
    close_s: round(best.close_s, 3),
    in_memory_records_per_s: Math.round(N / Math.min(...memory)),
    in_memory_vs_json_parse: round(mb / Math.min(...memory) / parseMbs, 3),
    durable_in_flight: IN_FLIGHT,
    durable_in_flight_records_per_s: Math.round(N / Math.min(...pipelined)),
    runs_s: {
      durable: durable.map((d) => round(d.seconds, 3)),
      in_memory: memory.map((s) => round(s, 3)),
      in_flight: pipelined.map((s) => round(s, 3)),
      json_parse: parseS.map((s) => round(s, 3)),
    },
    machine: machine(),
    total_s: round((now() - t0) / 1000, 1),
  });
}

runBench(main);
