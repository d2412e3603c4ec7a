// bench:code — code ingestion and /code-search (issue 13) on a real code base shipped in npm
// packages: the `re2` dependency's whole package tree (RE2 and abseil C++ sources and headers, its
// JS binding, scripts, docs and abseil's binary zoneinfo test data, which the walk skips) plus the
// TypeScript standard library declarations (`lib.*.d.ts` of @typescript/typescript-linux-x64, the
// typescript devDependency's platform package). Measured, keyword-only (dimension 0, BM25):
// - ingest of the corpus once: files/s, chunks/s, the store's index bytes (/stats);
// - ingest of the corpus copied side by side until it holds >= BENCH_SCALE_FILES text files
//   (default 10,000; the copies are real files under distinct paths), and its unchanged re-ingest;
// - /code-search p50/p99 through the library and over HTTP (`tessera serve` on the same store);
// - retrieval: 200 documented symbols chosen with a seeded RNG, each queried with the first words
//   of its doc comment, BM25 alone: mrr_at_10 of the defining file (files ranked by best symbol).
// Plus the single-corpus ingest with the offline `hash:256` embedder. The last stdout line is one
// JSON object. BENCH_QUERIES: library and HTTP queries (default 500).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { Store } from '../lib/index';
import { benchSize, CLI, emit, freshDir, log, machine, now, pkgRoot, pkgVersion, removeDir, Rng, round, runBench, summarize } from './common';

const { queries: QUERIES } = benchSize(0, 500);
const SCALE_FILES = Number(process.env.BENCH_SCALE_FILES ?? 10_000);
const SYMBOLS = 200;
const COLLECTION = 'code';
const STOPWORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/** The corpus: copies of both trees under `root/copy{i}`. */
function corpus(root: string, copies: number): void {
  const tsLib = path.join(path.dirname(require.resolve('@typescript/typescript-linux-x64/package.json')), 'lib');
  for (let i = 0; i < copies; i++) {
    mkdirSync(path.join(root, `copy${i}`), { recursive: true });
    cpSync(pkgRoot('re2'), path.join(root, `copy${i}`, 're2'), { recursive: true });
    cpSync(tsLib, path.join(root, `copy${i}`, 'typescript-lib'), { recursive: true });
  }
}

async function ingest(dir: string, tree: string, embedProvider?: string) {
  const store = await Store.open({ path: dir, dimension: embedProvider ? 256 : 0, embedProvider });
  const t0 = now();
  const result = await store.ingestCode(COLLECTION, tree);
  const seconds = (now() - t0) / 1000;
  return { store, result, seconds };
}

/** The first six distinct non-stopword words (3+ letters) of a doc comment. */
const docWords = (doc: string): string[] => [...new Set((doc.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((w) => !STOPWORDS.has(w)))].slice(0, 6);

async function documented(store: Store): Promise<{ path: string; symbol: string; query: string }[]> {
  const all: { path: string; symbol: string; query: string }[] = [];
  for (let offset = 0; ; offset += 10_000) {
    const page = await store.list({
      scope: [COLLECTION],
      filter: [{ Ne: ['doc', { Str: '' }] }],
      offset,
      limit: 10_000,
      include_attributes: ['path', 'symbol', 'doc'],
    });
    for (const h of page) {
      const words = docWords((h.attrs.doc as { Str: string }).Str);
      if (words.length >= 3 && h.attrs.symbol)
        all.push({ path: (h.attrs.path as { Str: string }).Str, symbol: (h.attrs.symbol as { Str: string }).Str, query: words.join(' ') });
    }
    if (page.length < 10_000) break;
  }
  const rng = new Rng(0xc0de13);
  for (let i = all.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [all[i], all[j]] = [all[j], all[i]];
  }
  log(`${all.length} documented symbols with 3+ doc words; taking ${SYMBOLS}`);
  return all.slice(0, SYMBOLS);
}

async function serve(data: string): Promise<{ url: string; stop(): void }> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--data', data, '--port', '0', '--log-level', 'warn', '--read-only'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`tessera serve exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) if ((await fetch(`${url}/ready`).catch(() => null))?.status === 200) break;
  return { url, stop: () => proc.kill() };
}

async function main(): Promise<void> {
  log(`bench:code on ${JSON.stringify(machine())}`);
  const tree = freshDir('code-tree');
  corpus(tree, 1);
  const data = freshDir('code-store');
  const once = await ingest(data, tree);
  const stats = await once.store.stats();
  log(`corpus: ${once.result.files} text files (${once.result.skipped.binary} binary skipped), ${once.result.chunks} chunks in ${once.seconds.toFixed(1)} s`);

  const targets = await documented(once.store);
  let rrSum = 0;
  let hits = 0;
  for (const s of targets) {
    const { files } = await once.store.codeSearch({ collection: COLLECTION, query: s.query, limit: 10, vector: false });
    const rank = files.findIndex((f) => f.path === s.path);
    if (rank >= 0) {
      rrSum += 1 / (rank + 1);
      hits++;
    }
  }
  const mrr = rrSum / targets.length;
  log(`mrr_at_10 ${mrr.toFixed(3)}, defining file in the top 10 for ${hits}/${targets.length}`);

  const queries = Array.from({ length: QUERIES }, (_, i) => targets[i % targets.length].query);
  for (const q of queries.slice(0, 20)) await once.store.codeSearch({ collection: COLLECTION, query: q });
  const libMs: number[] = [];
  for (const q of queries) {
    const t = now();
    await once.store.codeSearch({ collection: COLLECTION, query: q });
    libMs.push(now() - t);
  }
  await once.store.close();
  const server = await serve(data);
  const httpMs: number[] = [];
  try {
    for (const q of queries) {
      const t = now();
      const res = await fetch(`${server.url}/code-search`, { method: 'POST', body: JSON.stringify({ collection: COLLECTION, query: q }) });
      if (res.status !== 200) throw new Error(`/code-search answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      httpMs.push(now() - t);
    }
  } finally {
    server.stop();
  }
  removeDir(data);

  const hashed = await ingest(freshDir('code-hash'), tree, 'hash:256');
  await hashed.store.close();
  log(`hash:256 ingest: ${hashed.seconds.toFixed(1)} s`);

  const copies = Math.max(1, Math.ceil(SCALE_FILES / once.result.files));
  const scaledTree = freshDir('code-scaled');
  corpus(scaledTree, copies);
  const scaledData = freshDir('code-scaled-store');
  const scaled = await ingest(scaledData, scaledTree);
  log(`scaled: ${scaled.result.files} files, ${scaled.result.chunks} chunks in ${scaled.seconds.toFixed(1)} s`);
  const t0 = now();
  const again = await scaled.store.ingestCode(COLLECTION, scaledTree);
  const reSeconds = (now() - t0) / 1000;
  await scaled.store.close();
  for (const dir of [tree, scaledTree, scaledData]) removeDir(dir);

  emit({
    bench: 'code',
    data: `real: the re2@${pkgVersion('re2')} package tree (RE2 + abseil C++, JS, docs, binary test data) and @typescript/typescript-linux-x64@${pkgVersion('typescript')} lib/*.d.ts; keyword-only store (dimension 0)`,
    corpus: { files: once.result.files, binary_skipped: once.result.skipped.binary, chunks: once.result.chunks },
    ingest: {
      seconds: round(once.seconds, 2),
      files_per_s: round(once.result.files / once.seconds, 1),
      chunks_per_s: round(once.result.chunks / once.seconds, 1),
    },
    index_bytes: { text_index_bytes: stats.text_index_bytes, rows: stats.footprint.rows },
    ingest_hash_256: {
      seconds: round(hashed.seconds, 2),
      files_per_s: round(hashed.result.files / hashed.seconds, 1),
      chunks_per_s: round(hashed.result.chunks / hashed.seconds, 1),
    },
    scaled: {
      copies,
      files: scaled.result.files,
      chunks: scaled.result.chunks,
      seconds: round(scaled.seconds, 2),
      files_per_s: round(scaled.result.files / scaled.seconds, 1),
      unchanged_reingest_seconds: round(reSeconds, 2),
      unchanged: again.unchanged,
    },
    code_search_library: summarize(libMs),
    code_search_http: summarize(httpMs),
    retrieval: {
      symbols: targets.length,
      query: 'first 6 distinct non-stopword words (3+ letters) of the doc comment',
      mode: 'BM25 (vector: false)',
      mrr_at_10: round(mrr, 4),
      found_in_top_10: hits,
    },
    targets: { ingest: '10k files under 60 s on 2 cores', mrr_at_10: '>= 0.6' },
  });
}

runBench(main);
