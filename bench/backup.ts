// bench:backup — issue 50's backups on a 1M x 128 store with text (BACKUP_ROWS shrinks it), all
// through `tessera serve --backup-to DIR` and `tessera restore`, each against plain file copies of
// the same bytes in the same run, on the same disk:
//
//   1. full backup (POST /backups into an empty target) against `cp -r` of the store directory, and
//      against `cp -r` followed by `sync` (a backup fsyncs every file it writes; plain cp leaves
//      them in the page cache). BENCH_ROUNDS rounds after one untimed cp, the order alternated
//      round by round, a `sync` before every timed step; the backup is deleted between rounds so
//      each one copies it all. MB/s are each side's own bytes over the median seconds.
//   2. incremental, twice the same way: 1% of the rows overwritten (same ids, new vectors, same
//      text, upserts of 1,000 over HTTP), POST /flush, the new segments' indexes left to build,
//      POST /backups: new_bytes / bytes; then whatever compaction the flush set off is left to
//      finish. A backup asked for while a compaction runs waits for it (the store's waitForIndexes),
//      so the source server runs with --write-timeout 30m. Beside the full backups, a pass that only
//      checksums the store's files as the backup does (4 at a time) shows what the copy pays for
//      content-named keys.
//   3. restore of a last backup, taken once the compactions settled (`tessera restore --from TARGET/NAME --data
//      NEWDIR`, a fresh process, timed spawn to exit) against `cp` of the backup's files back under
//      their store names, and that followed by `sync`; rounds and order as in 1.
//   4. `tessera serve` on the restored directory: spawn to /ready, then BENCH_QUERIES /search top-10
//      (plan asked) one at a time, twice over: the first search, the rest of the first pass and
//      the second pass, against the same passes on the source server (its first searches too) made
//      before it stopped, and on a fresh server on the source directory; the answers compared hit
//      for hit, the restored server's index builds pending and derived indexes built from rows
//      (both 0 when it serves from the restored files).
//
// Data: no real 128-d set is reachable (../shared/DATA.md), so the vectors are seeded random unit
// vectors (synthetic, as bench:cluster's 1M x 128); a backup copies files whose sizes depend on the
// row count and dimension, not on the values. The text attribute is real English: the 100,000
// nlp-corpus@4.4.0 sentences, cycled, under an fts-schema (so the backup carries text postings).
// The store is built once (ingest with no index, then reopened with the defaults of a store on
// disk, HNSW + Int8, and left to build its indexes, both timed) and cached under BACKUP_DIR
// (default os.tmpdir()); each run copies it to a work directory beside the targets.
// Progress goes to stderr; the last stdout line is one JSON object.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type BackupCreated, Store } from '../lib/index';
import { checksumFile } from '../lib/store/file_checksum';
import {
  CLI,
  emit,
  freshDir,
  log,
  machine,
  now,
  nlpSentences,
  pkgVersion,
  Rng,
  randomUnitVectors,
  removeDir,
  round,
  run,
  runBench,
  writeAscii,
  writeVector,
} from './common';
import { call, metrics, type Serving, serve, stop, untilReady } from './http_rig';

const ROWS = Number(process.env.BACKUP_ROWS ?? 1_000_000);
const DIM = 128;
const COLLECTION = 'docs';
const BUILD_BATCH = 10_000;
const UPSERT_BATCH = 1_000;
const OVERWRITE_FRACTION = 0.01;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 20);
const TOP_K = 10;
/** The source server's --write-timeout: a backup waits for the index builds in flight (minutes at 1M rows when one was just queued). */
const WRITE_TIMEOUT = '30m';
const ROOT = process.env.BACKUP_DIR ?? os.tmpdir();
const CACHE = path.join(ROOT, `tessera-bench-backup-${ROWS}x${DIM}-text-seed7`);
const BUILT = `${CACHE}.built`;
const MB = 1e6;

// --- data ---------------------------------------------------------------------------------------

/** The sentences as JSON string literals in ASCII (non-ASCII as \u escapes), for writeAscii. */
function sentenceLiterals(): string[] {
  return nlpSentences(100_000).map((t) => JSON.stringify(t).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** Upsert body of rows `rows` (ids `d<row>`) with `vectors` (row-major, one per entry) and row r's sentence. */
function recordsBody(rows: number[], vectors: Float32Array, texts: string[]): Buffer {
  let bytes = 32;
  for (const r of rows) bytes += DIM * 14 + 64 + texts[r % texts.length].length;
  const buf = Buffer.allocUnsafe(bytes);
  let pos = writeAscii(buf, 0, '{"records":[');
  rows.forEach((r, i) => {
    pos = writeAscii(buf, pos, `${i ? ',' : ''}{"id":"d${r}","vector":`);
    pos = writeVector(buf, pos, vectors, i * DIM, DIM);
    pos = writeAscii(buf, pos, `,"attrs":{"text":{"Str":${texts[r % texts.length]}}}}`);
  });
  pos = writeAscii(buf, pos, ']}');
  return buf.subarray(0, pos);
}

interface Built {
  rows: number;
  ingest_s: number;
  index_build_s: number;
  segments: number;
  built_at: string;
}

/** Builds the cached store: ingest without an index (seals large segments), then HNSW + Int8 built on reopen. */
async function buildStore(texts: string[]): Promise<Built> {
  removeDir(CACHE);
  fs.rmSync(BUILT, { force: true });
  log(`building ${ROWS} x ${DIM} with text at ${CACHE} (once; later runs reuse it)`);
  let store = await Store.open({ path: CACHE, dimension: DIM, distance: 'Cosine', ann: 'none', quantization: 'none' });
  await store.createCollection(COLLECTION);
  await store.setFtsSchema(COLLECTION, ['text']);
  const rng = new Rng(7);
  const t0 = now();
  let pending: Promise<unknown> | null = null;
  for (let from = 0; from < ROWS; from += BUILD_BATCH) {
    const to = Math.min(ROWS, from + BUILD_BATCH);
    const vectors = randomUnitVectors(rng, to - from, DIM);
    const body = recordsBody(
      Array.from({ length: to - from }, (_, i) => from + i),
      vectors,
      texts,
    );
    if (pending) await pending;
    pending = store.upsert(COLLECTION, body);
    if ((to / BUILD_BATCH) % 10 === 0) log(`  upserted ${to} / ${ROWS}`);
  }
  await pending;
  await store.flush();
  await store.close();
  const ingest = (now() - t0) / 1000;
  log(`  ingest + flush ${ingest.toFixed(1)} s; reopening with HNSW + Int8 and building the indexes`);
  const t1 = now();
  store = await Store.open({ path: CACHE, ann: 'hnsw', quantization: 'int8' });
  await store.waitForIndexes();
  const build = (now() - t1) / 1000;
  const stats = (await store.stats()) as { footprint: { rows: number; segments: number } };
  await store.close();
  if (stats.footprint.rows !== ROWS) throw new Error(`the built store holds ${stats.footprint.rows} rows, not ${ROWS}`);
  const built: Built = {
    rows: ROWS,
    ingest_s: round(ingest, 1),
    index_build_s: round(build, 1),
    segments: stats.footprint.segments,
    built_at: new Date().toISOString(),
  };
  log(`  indexes built in ${build.toFixed(1)} s (${built.segments} segments)`);
  fs.writeFileSync(BUILT, `${JSON.stringify(built)}\n`);
  return built;
}

// --- processes and requests ---------------------------------------------------------------------

/**
 * Waits until no index build (and, with `compactions`, no compaction) is queued or running, three
 * readings in a row; throws after `ms`. Resolves the last reading.
 */
async function settle(url: string, compactions = true, ms = 1_800_000): Promise<Record<string, number>> {
  const t0 = now();
  let quiet = 0;
  for (;;) {
    const m = await metrics(url);
    quiet = m.svc_index_builds_pending === 0 && (!compactions || m.svc_compactions_running === 0) ? quiet + 1 : 0;
    if (quiet >= 3) return m;
    if (now() - t0 > ms) throw new Error(`indexes or compactions still pending after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Writes back whatever dirty pages earlier steps left, so a timed step pays only for its own. */
const syncAll = () => run('sync', []);

/** Bytes of the plain files under dir (recursively). */
function dirBytes(dir: string): number {
  let sum = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) sum += dirBytes(p);
    else if (entry.isFile()) sum += fs.statSync(p).size;
  }
  return sum;
}

// --- the target's catalogs (lib/features/backups/backups.ts: backups/<name>.json, sealed) --------

interface CatalogFile {
  name: string;
  key: string;
  bytes: number;
}

function catalogFiles(target: string, name: string): CatalogFile[] {
  const sealed = JSON.parse(fs.readFileSync(path.join(target, 'backups', `${name}.json`), 'utf8')) as { catalog: string };
  return (JSON.parse(sealed.catalog) as { files: CatalogFile[] }).files;
}

/** A store file's kind: `seg-N.vec` -> `.vec`, `seg-N.del.V` -> `.del`, others by name. */
const kindOf = (name: string) => /^seg-\d+(\.[a-z0-9]+)/.exec(name)?.[1] ?? name;

// --- statistics -------------------------------------------------------------------------------

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mbps = (bytes: number, s: number) => round(bytes / MB / s, 1);

// --- main ---------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const wall0 = now();
  log(`bench:backup: ${ROWS} x ${DIM} with text, ${ROUNDS} rounds, on ${JSON.stringify(machine())}`);
  const texts = sentenceLiterals();
  let built: Built & { cached?: boolean };
  if (fs.existsSync(BUILT) && fs.existsSync(CACHE)) {
    built = { ...(JSON.parse(fs.readFileSync(BUILT, 'utf8')) as Built), cached: true };
    log(`store cached at ${CACHE} (built ${built.built_at}: ingest ${built.ingest_s} s, indexes ${built.index_build_s} s)`);
  } else built = { ...(await buildStore(texts)), cached: false };

  const work = freshDir('backup');
  const source = path.join(work, 'source');
  const target = path.join(work, 'target');
  const servers: Serving[] = [];
  try {
    log(`copying the cached store to ${source}`);
    await run('cp', ['-r', CACHE, source]);
    const server = await serve(source, ['--backup-to', target, '--write-timeout', WRITE_TIMEOUT]);
    servers.push(server);
    await untilReady(server.url);
    const before = await settle(server.url);
    const storeBytes = dirBytes(source);
    log(`source served: ${before.svc_store_docs} docs, ${before.svc_store_segments} segments, ${(storeBytes / MB).toFixed(0)} MB on disk`);

    // 1. Full backups against cp -r (and cp -r + sync), order alternated. One cp -r first, not
    // timed: this VM pays a host fault for page-cache pages it touches for the first time.
    await run('cp', ['-r', source, path.join(work, 'cp-copy')]);
    removeDir(path.join(work, 'cp-copy'));
    const full = { backup_s: [] as number[], backup_server_s: [] as number[], cp_s: [] as number[], cp_sync_s: [] as number[] };
    let lastFull: BackupCreated | null = null;
    for (let r = 0; r < ROUNDS; r++) {
      const copy = path.join(work, 'cp-copy');
      const steps: [string, () => Promise<void>][] = [
        [
          'cp',
          async () => {
            full.cp_s.push((await run('cp', ['-r', source, copy])).s);
            removeDir(copy);
          },
        ],
        [
          'cp+sync',
          async () => {
            const t0 = now();
            await run('cp', ['-r', source, copy]);
            await syncAll();
            full.cp_sync_s.push((now() - t0) / 1000);
            removeDir(copy);
          },
        ],
        [
          'backup',
          async () => {
            const t0 = now();
            const b = await call<BackupCreated>(`${server.url}/backups`, 'POST', JSON.stringify({ name: `full-${r}` }));
            full.backup_s.push((now() - t0) / 1000);
            full.backup_server_s.push(b.seconds);
            if (b.new_bytes !== b.bytes) throw new Error(`full backup ${r} copied ${b.new_bytes} of ${b.bytes} bytes: the target was not empty`);
            lastFull = b;
          },
        ],
      ];
      if (r % 2 === 1) steps.reverse();
      for (const [, step] of steps) {
        await syncAll();
        await step();
      }
      log(
        `round ${r + 1}: backup ${full.backup_s[r].toFixed(2)} s, cp -r ${full.cp_s[r].toFixed(2)} s, cp -r + sync ${full.cp_sync_s[r].toFixed(2)} s (${steps.map(([n]) => n).join(', ')})`,
      );
      if (r < ROUNDS - 1) await call(`${server.url}/backups/full-${r}`, 'DELETE');
    }
    const fullBackup = lastFull as unknown as BackupCreated;
    const backupMbps = mbps(fullBackup.bytes, median(full.backup_s));
    const cpMbps = mbps(storeBytes, median(full.cp_s));
    const cpSyncMbps = mbps(storeBytes, median(full.cp_sync_s));

    // What the backup's time goes to beside the copy: a pass that checksums every file (the key it
    // would have in the target) before any is copied, as the backup makes it (4 files at a time).
    const checksumS: number[] = [];
    for (let r = 0; r < 3; r++) {
      const names = catalogFiles(target, fullBackup.name).map((f) => f.name);
      const t0 = now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let i = next++; i < names.length; i = next++) await checksumFile(path.join(source, names[i]));
        }),
      );
      checksumS.push((now() - t0) / 1000);
    }

    // 2. Incremental, twice the same way: 1% of the rows overwritten, POST /flush, the new segments'
    // indexes built, POST /backups; then whatever compaction the flush set off left to finish.
    const changed = Math.max(1, Math.round(ROWS * OVERWRITE_FRACTION));
    const stride = Math.floor(ROWS / changed);
    /** A backup `name` now: its answer, wall seconds, the compactions running when it was asked for, and its new files by kind. */
    const backupNow = async (name: string, previous: string) => {
      await syncAll();
      const running = (await metrics(server.url)).svc_compactions_running;
      const t0 = now();
      const b = await call<BackupCreated>(`${server.url}/backups`, 'POST', JSON.stringify({ name }));
      const s = (now() - t0) / 1000;
      const held = new Set(catalogFiles(target, previous).map((f) => f.key));
      const byKind: Record<string, { files: number; bytes: number }> = {};
      for (const f of catalogFiles(target, name)) {
        if (held.has(f.key)) continue;
        const k = kindOf(f.name);
        byKind[k] ??= { files: 0, bytes: 0 };
        byKind[k].files++;
        byKind[k].bytes += f.bytes;
      }
      log(`${name}: ${b.new_bytes} new of ${b.bytes} bytes (${((100 * b.new_bytes) / b.bytes).toFixed(2)}%) in ${s.toFixed(2)} s`);
      return { ...b, wall_s: s, compactions_running_when_asked: running, new_by_kind: byKind };
    };
    const incremental = async (k: number, name: string, previous: string) => {
      const rng = new Rng(1234 + k);
      const ids = Array.from({ length: changed }, (_, i) => i * stride + rng.int(stride));
      const vectors = randomUnitVectors(new Rng(4321 + k), changed, DIM);
      log(`${name}: overwriting ${changed} rows (one in each run of ${stride}; new vectors, same text; upserts of ${UPSERT_BATCH})`);
      const m0 = await metrics(server.url);
      for (let from = 0; from < changed; from += UPSERT_BATCH) {
        const to = Math.min(changed, from + UPSERT_BATCH);
        await call(
          `${server.url}/collections/${COLLECTION}/upsert`,
          'POST',
          recordsBody(ids.slice(from, to), vectors.subarray(from * DIM, to * DIM), texts).toString('latin1'),
        );
      }
      await call(`${server.url}/flush`, 'POST');
      const t0 = now();
      const flushed = await settle(server.url, false);
      const indexedS = (now() - t0) / 1000;
      log(`  flushed: ${flushed.svc_store_segments} segments, indexed in ${indexedS.toFixed(1)} s, ${flushed.svc_compactions_running} compactions running`);
      const b = await backupNow(name, previous);
      const t1 = now();
      const settled = await settle(server.url);
      const settleS = (now() - t1) / 1000;
      const compactions = (settled.svc_compactions_total ?? 0) - (m0.svc_compactions_total ?? 0);
      log(`  settled ${settleS.toFixed(1)} s after the backup: ${settled.svc_store_segments} segments, ${compactions} compactions since the overwrite`);
      return {
        rows_overwritten: changed,
        segments_after_flush: flushed.svc_store_segments,
        index_build_after_flush_s: round(indexedS, 1),
        compactions_running_when_asked: b.compactions_running_when_asked,
        files: b.files,
        bytes: b.bytes,
        new_bytes: b.new_bytes,
        backup_s: round(b.wall_s, 3),
        new_by_kind: b.new_by_kind,
        new_bytes_ratio: round(b.new_bytes / b.bytes, 4),
        compactions_since_overwrite: compactions,
        settled_after_backup_s: round(settleS, 1),
        segments_settled: settled.svc_store_segments,
      };
    };
    const inc1 = await incremental(1, 'incremental-1', fullBackup.name);
    const inc2 = await incremental(2, 'incremental-2', 'incremental-1');
    // What is restored: the store once its compactions settled, the shape the source serves from
    // here on. A backup asked for while a merge ran holds the segments before it, and a writer
    // opened on its restore starts that merge again under the queries compared below.
    const LAST = 'settled';
    const last = await backupNow(LAST, 'incremental-2');

    // 4a. The source's answers and times for the queries (the restored server is compared with them).
    const queries = randomUnitVectors(new Rng(99), QUERIES, DIM);
    const bodies = Array.from({ length: QUERIES }, (_, q) => {
      const buf = Buffer.allocUnsafe(DIM * 14 + 64);
      let pos = writeAscii(buf, 0, '{"query":');
      pos = writeVector(buf, pos, queries, q * DIM, DIM);
      return buf.subarray(0, writeAscii(buf, pos, `,"top_k":${TOP_K},"include_attributes":[],"plan":true}`)).toString('latin1');
    });
    const exactBody = (q: number) => bodies[q].replace('"plan":true', '"exact":true,"plan":true');
    type Answer = { hits: { id: string }[]; plan: { path: string } };
    const timedSearch = async (url: string, body: string): Promise<{ ms: number; answer: Answer }> => {
      const t = now();
      const answer = await call<Answer>(`${url}/search`, 'POST', body);
      return { ms: now() - t, answer };
    };
    /**
     * Two passes over the queries, one at a time: each pass's times, pass 1's answers and plan
     * paths; then each query exact (the records themselves: a graph walk's answer also depends on
     * how the rows are split into segments, which a compaction after the backup changes).
     */
    const passes = async (url: string) => {
      const out = {
        first_pass_ms: [] as number[],
        second_pass_ms: [] as number[],
        ids: [] as string[],
        exact_ids: [] as string[],
        plans: {} as Record<string, number>,
      };
      for (let pass = 0; pass < 2; pass++)
        for (let q = 0; q < QUERIES; q++) {
          const { ms, answer } = await timedSearch(url, bodies[q]);
          if (pass === 1) {
            out.second_pass_ms.push(ms);
            continue;
          }
          out.first_pass_ms.push(ms);
          out.ids.push(answer.hits.map((h) => h.id).join(','));
          out.plans[answer.plan.path] = (out.plans[answer.plan.path] ?? 0) + 1;
        }
      for (let q = 0; q < QUERIES; q++) out.exact_ids.push((await timedSearch(url, exactBody(q))).answer.hits.map((h) => h.id).join(','));
      return out;
    };
    const src = await passes(server.url);
    const exactMs: number[] = [];
    for (let q = 0; q < 3; q++) exactMs.push((await timedSearch(server.url, exactBody(q))).ms);
    await stop(server);
    servers.length = 0;

    /** A fresh `tessera serve` on `dir`: spawn to listening and to /ready, then the passes and its store gauges. */
    const freshServer = async (dir: string) => {
      await syncAll();
      const t0 = now();
      const fresh = await serve(dir);
      servers.push(fresh);
      const listening = (now() - t0) / 1000;
      await untilReady(fresh.url);
      const ready = (now() - t0) / 1000;
      const searched = await passes(fresh.url);
      const gauges = await metrics(fresh.url);
      await stop(fresh);
      servers.length = 0;
      return { listening_s: listening, ready_s: ready, ...searched, gauges };
    };
    // The peer of the restored server: a fresh process on the source directory (as warm, as new).
    log('a fresh server on the source directory: the same passes');
    const srcFresh = await freshServer(source);

    // 3. Restore against cp of the backup's files back, order alternated.
    const files = catalogFiles(target, LAST);
    const script = (dir: string) =>
      [`set -e`, `mkdir -p '${dir}'`, ...files.map((f) => `cp '${path.join(target, f.key)}' '${path.join(dir, f.name)}'`)].join('\n');
    const rest = { restore_s: [] as number[], restore_reported_s: [] as number[], cp_s: [] as number[], cp_sync_s: [] as number[] };
    let restored = '';
    for (let r = 0; r < ROUNDS; r++) {
      const copy = path.join(work, 'cp-back');
      const into = path.join(work, `restored-${r}`);
      const steps: [string, () => Promise<void>][] = [
        [
          'restore',
          async () => {
            const { s, stdout } = await run(process.execPath, [CLI, 'restore', '--from', path.join(target, LAST), '--data', into]);
            rest.restore_s.push(s);
            rest.restore_reported_s.push((JSON.parse(stdout.trim().split('\n').at(-1)!) as { seconds: number }).seconds);
          },
        ],
        [
          'cp',
          async () => {
            rest.cp_s.push((await run('sh', ['-c', script(copy)])).s);
            removeDir(copy);
          },
        ],
        [
          'cp+sync',
          async () => {
            const t0 = now();
            await run('sh', ['-c', script(copy)]);
            await syncAll();
            rest.cp_sync_s.push((now() - t0) / 1000);
            removeDir(copy);
          },
        ],
      ];
      if (r % 2 === 1) steps.reverse();
      for (const [, step] of steps) {
        await syncAll();
        await step();
      }
      log(`restore round ${r + 1}: restore ${rest.restore_s[r].toFixed(2)} s, cp ${rest.cp_s[r].toFixed(2)} s, cp + sync ${rest.cp_sync_s[r].toFixed(2)} s`);
      if (restored) removeDir(restored);
      restored = into;
    }

    // 4b. The restored store served at once: spawn to /ready, the first search, the next ones.
    log('a fresh server on the restored directory: the same passes');
    const dst = await freshServer(restored);
    const mismatched = dst.ids.filter((ids, q) => ids !== src.ids[q]).length;
    const exactMismatched = dst.exact_ids.filter((ids, q) => ids !== src.exact_ids[q]).length;
    const backMetrics = dst.gauges;

    const sourceP50 = median(src.second_pass_ms);
    const firstMs = dst.first_pass_ms[0];
    const floor = await run(process.execPath, [CLI, '--help']);
    const result = {
      bench: 'backup',
      data: `${ROWS} x ${DIM} Cosine: seeded random unit vectors (synthetic: no real 128-d set is reachable), attr text = the ${texts.length} sentences of nlp-corpus@${pkgVersion('nlp-corpus')} (real), cycled, under an fts-schema; HNSW (m 16, ef_construction 200) + Int8`,
      rows: ROWS,
      rounds: ROUNDS,
      store: {
        bytes: storeBytes,
        segments: before.svc_store_segments,
        built_in_this_run: !built.cached,
        ingest_s: built.ingest_s,
        index_build_s: built.index_build_s,
      },
      full_backup: {
        bytes: fullBackup.bytes,
        files: fullBackup.files,
        backup_s: full.backup_s.map((s) => round(s, 3)),
        backup_server_s: full.backup_server_s.map((s) => round(s, 3)),
        cp_s: full.cp_s.map((s) => round(s, 3)),
        cp_sync_s: full.cp_sync_s.map((s) => round(s, 3)),
        backup_mb_per_s: backupMbps,
        cp_mb_per_s: cpMbps,
        cp_sync_mb_per_s: cpSyncMbps,
      },
      backup_over_cp: round(backupMbps / cpMbps, 3),
      backup_over_cp_sync: round(backupMbps / cpSyncMbps, 3),
      checksum_pass_s: checksumS.map((x) => round(x, 3)),
      checksum_pass_over_backup: round(median(checksumS) / median(full.backup_s), 3),
      incremental: inc1,
      incremental_new_bytes_ratio: inc1.new_bytes_ratio,
      incremental_again: inc2,
      incremental_again_new_bytes_ratio: inc2.new_bytes_ratio,
      restore: {
        backup: LAST,
        bytes: last.bytes,
        restore_s: rest.restore_s.map((s) => round(s, 3)),
        restore_reported_s: rest.restore_reported_s.map((s) => round(s, 3)),
        process_floor_s: round(floor.s, 3),
        cp_s: rest.cp_s.map((s) => round(s, 3)),
        cp_sync_s: rest.cp_sync_s.map((s) => round(s, 3)),
        restore_mb_per_s: mbps(last.bytes, median(rest.restore_s)),
        cp_mb_per_s: mbps(last.bytes, median(rest.cp_s)),
        cp_sync_mb_per_s: mbps(last.bytes, median(rest.cp_sync_s)),
      },
      restore_s: round(median(rest.restore_s), 3),
      cp_back_s: round(median(rest.cp_s), 3),
      cp_back_sync_s: round(median(rest.cp_sync_s), 3),
      restore_over_cp: round(median(rest.cp_s) / median(rest.restore_s), 3),
      restore_over_cp_sync: round(median(rest.cp_sync_s) / median(rest.restore_s), 3),
      first_search_after_restore_ms: round(firstMs, 2),
      first_search_over_source_p50: round(firstMs / sourceP50, 2),
      after_restore: {
        listening_s: round(dst.listening_s, 3),
        ready_s: round(dst.ready_s, 3),
        process_floor_s: round(floor.s, 3),
        first_search_ms: round(firstMs, 2),
        first_pass_rest_p50_ms: round(median(dst.first_pass_ms.slice(1)), 2),
        second_pass_p50_ms: round(median(dst.second_pass_ms), 2),
        plans: dst.plans,
        source_first_search_ms: round(src.first_pass_ms[0], 2),
        source_first_pass_rest_p50_ms: round(median(src.first_pass_ms.slice(1)), 2),
        source_second_pass_p50_ms: round(sourceP50, 2),
        source_plans: src.plans,
        source_exact_p50_ms: round(median(exactMs), 2),
        fresh_source: {
          ready_s: round(srcFresh.ready_s, 3),
          first_search_ms: round(srcFresh.first_pass_ms[0], 2),
          first_pass_rest_p50_ms: round(median(srcFresh.first_pass_ms.slice(1)), 2),
          second_pass_p50_ms: round(median(srcFresh.second_pass_ms), 2),
          plans: srcFresh.plans,
        },
        first_over_fresh_source_first: round(firstMs / srcFresh.first_pass_ms[0], 2),
        second_pass_p50_over_fresh_source: round(median(dst.second_pass_ms) / median(srcFresh.second_pass_ms), 2),
        answers_differing_from_source: mismatched,
        exact_answers_differing_from_source: exactMismatched,
        index_builds_pending: backMetrics.svc_index_builds_pending,
        derived_indexes_built_from_rows: backMetrics.svc_derived_indexes_built,
        derived_indexes_mapped: backMetrics.svc_derived_indexes_mapped,
      },
      targets: { backup_over_cp: '>= 0.8', incremental_new_bytes_ratio: '<= 0.05' },
      wall_s: round((now() - wall0) / 1000, 1),
      machine: machine(),
    };
    emit(result);
  } finally {
    for (const s of servers) s.proc.kill('SIGKILL');
    if (process.env.BACKUP_KEEP !== '1') removeDir(work);
  }
}

runBench(main);
