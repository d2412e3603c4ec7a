// bench:open — how long a large store takes to open: 1M records (8-d seeded random unit vectors,
// synthetic) whose `body` (6-10 English words, bench/vocabulary.ts) is declared in the fts-schema
// and the filter index. Measured in fresh processes: Store.open in the library, and a server's
// spawn to /ready 200. The peer, in the same run, is the same store without the derived files
// (text postings, filter indexes, id indexes) beside its segments, as an older build left it: that
// open rebuilds them. The store is built once under BENCH_OPEN_DIR (default os.tmpdir()) and kept.
// Progress goes to stderr; the last stdout line is one JSON object.
import { type ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../lib/index';
import { benchSize, CLI, emit, log, machine, now, randomUnitVectors, Rng, round, runBench, upsertBody, writeAscii } from './common';
import { drawIndex, loadVocabulary } from './vocabulary';

const { n: N } = benchSize(1_000_000, 0);
const DIM = 8;
const BATCH = 10_000;
const COLLECTION = 'docs';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DIR = path.join(process.env.BENCH_OPEN_DIR ?? os.tmpdir(), `tessera-open-${N}`);
const BUILT = path.join(DIR, '..', `tessera-open-${N}.built`);
// The derived files of a sealed segment (storage/file_names.h); an older build wrote none.
const DERIVED = /^seg-\d+\.(text|filter|ids)$/;

async function buildStore(): Promise<void> {
  fs.rmSync(DIR, { recursive: true, force: true });
  const vocab = loadVocabulary();
  const rng = new Rng(7);
  const vectors = randomUnitVectors(rng, N, DIM);
  const body = (r: number): string => {
    const words: string[] = [];
    const len = 6 + (r % 5);
    for (let i = 0; i < len; i++) words.push(vocab.words[drawIndex(vocab.cumulative, rng.next())]);
    return words.join(' ');
  };
  const store = await Store.open({ path: DIR, dimension: DIM, distance: 'Cosine' });
  await store.createCollection(COLLECTION);
  await store.setFtsSchema(COLLECTION, ['body']);
  await store.setFilterIndex(COLLECTION, ['body']);
  for (let from = 0; from < N; from += BATCH) {
    const to = Math.min(N, from + BATCH);
    const texts = new Map<number, string>();
    for (let r = from; r < to; r++) texts.set(r, body(r));
    const bytes = upsertBody(vectors, DIM, from, to, {
      idPrefix: 'r',
      attrsBound: (r) => 32 + (texts.get(r)?.length ?? 0),
      attrs: (buf, pos, r) => writeAscii(buf, writeAscii(buf, writeAscii(buf, pos, '{"body":{"Str":"'), texts.get(r) ?? ''), '"}}'),
    });
    await store.upsert(COLLECTION, bytes);
    if (from % 100_000 === 0) log(`built ${from} / ${N}`);
  }
  await store.flush();
  await store.close();
  fs.writeFileSync(BUILT, `${source(vocab.source)}\n`);
}

const source = (vocab: string) => `${N} x ${DIM} Cosine, body from ${vocab}`;

/** A copy of the store (hard links: nothing in it is ever rewritten in place) without its derived files. */
function copyWithoutDerived(): string {
  const copy = fs.mkdtempSync(path.join(path.dirname(DIR), 'tessera-open-bare-'));
  for (const name of fs.readdirSync(DIR)) {
    if (DERIVED.test(name) || name === 'LOCK') continue;
    fs.linkSync(path.join(DIR, name), path.join(copy, name));
  }
  return copy;
}

function derivedBytes(dir: string): number {
  return fs
    .readdirSync(dir)
    .filter((f) => DERIVED.test(f))
    .reduce((s, f) => s + fs.statSync(path.join(dir, f)).size, 0);
}

// --- fresh processes ---------------------------------------------------------------------------

interface OpenReport {
  open_s: number;
}

/** Store.open of dir in a fresh process (then close). */
function libraryOpen(dir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = fork(__filename, ['--child', dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    proc.once('message', (m) => resolve((m as OpenReport).open_s));
    proc.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`open child exited ${code}`))));
  });
}

async function child(dir: string): Promise<void> {
  const t = now();
  const store = await Store.open({ path: dir });
  const openS = (now() - t) / 1000;
  await store.close();
  process.send?.({ open_s: openS } satisfies OpenReport);
  process.disconnect();
}

function getStatus(port: number, route: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: route }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', () => resolve(0));
  });
}

/** Seconds from spawning `tessera serve` on dir to its first /ready 200, and to its listening line. */
async function serverReady(dir: string): Promise<{ ready_s: number; listening_s: number }> {
  const t = now();
  const proc: ChildProcess = fork(CLI, ['serve', '--data', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      proc.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      proc.once('exit', (code) => reject(new Error(`server exited ${code} before listening`)));
    });
    const listening = (now() - t) / 1000;
    // /ready answers 503 until the store is open; each probe is one round trip on loopback.
    while ((await getStatus(port, '/ready')) !== 200) if (proc.exitCode !== null) throw new Error('server exited before ready');
    return { ready_s: (now() - t) / 1000, listening_s: listening };
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  if (!fs.existsSync(BUILT) || !fs.existsSync(DIR)) {
    log(`building the store at ${DIR} (once; kept for later runs)`);
    await buildStore();
  }
  // A first open by this build writes whatever derived files the store lacks (a store built by an
  // older build has none); every measured open after it finds them.
  await libraryOpen(DIR);
  const with_files = { library_s: [] as number[], ready_s: [] as number[], listening_s: [] as number[] };
  const without = { library_s: [] as number[], ready_s: [] as number[] };
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    // Peers alternate so machine noise hits both alike; each bare open gets a fresh bare copy
    // (a writer's open saves the files it rebuilt).
    with_files.library_s.push(await libraryOpen(DIR));
    let bare = copyWithoutDerived();
    without.library_s.push(await libraryOpen(bare));
    fs.rmSync(bare, { recursive: true, force: true });
    const served = await serverReady(DIR);
    with_files.ready_s.push(served.ready_s);
    with_files.listening_s.push(served.listening_s);
    bare = copyWithoutDerived();
    without.ready_s.push((await serverReady(bare)).ready_s);
    fs.rmSync(bare, { recursive: true, force: true });
    log(`round ${round_ + 1}: open ${round(with_files.library_s.at(-1) ?? 0)}s (without files ${round(without.library_s.at(-1) ?? 0)}s)`);
  }
  const open_s = median(with_files.library_s);
  const ready_s = median(with_files.ready_s);
  emit({
    bench: 'open',
    store: fs.readFileSync(BUILT, 'utf8').trim(),
    rounds: ROUNDS,
    open_s: round(open_s),
    ready_s: round(ready_s),
    listening_s: round(median(with_files.listening_s)),
    peer: 'the same store without its derived files (rebuilt at open)',
    peer_open_s: round(median(without.library_s)),
    peer_ready_s: round(median(without.ready_s)),
    open_speedup: round(median(without.library_s) / open_s, 2),
    derived_file_bytes: derivedBytes(DIR),
    samples: { with_files, without },
    targets: { open_s: '< 1', ready_s: '< 1' },
    machine: machine(),
  });
}

if (process.argv[2] === '--child') void child(process.argv[3]);
else runBench(main);
