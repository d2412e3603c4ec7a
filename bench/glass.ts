// glass (github.com/zilliztech/pyglass, MIT, header-only C++), bench:ann's state-of-the-art HNSW peer
// (issue 48), through our driver bench/glass_driver.cc, which bench/glass-deps.sh builds into the
// git-ignored bench/.glass/ when glass's source is on the machine. The driver runs in a child process:
// the base vectors and queries go over as files, every query's time and top-k rows come back as JSON
// lines, and the caller scores recall with its own ground truth.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freshDir, log, removeDir } from './common';

export interface GlassConfig {
  /** Graph degree at level 0 (glass's HNSW keeps R / 2 links on the upper levels, hnswlib's M = R / 2). */
  R: number;
  /** efConstruction. */
  L: number;
  /** Quantizer the graph is built with, e.g. SQ8U. */
  quant: string;
  /** Searchers to sweep: QUANT or QUANT+REFINE (e.g. SQ8U+FP32: SQ8U walk, FP32 rescore of 1.5 x k). */
  searchers: string[];
  k: number;
  efs: number[];
  /** Timed passes per ef after one warm-up pass; each query's time comes from the pass with the lowest mean. */
  runs: number;
}

export interface GlassEf {
  ef: number;
  /** Top-k row numbers of the base, nearest first, per query. */
  ids: number[][];
  times_us: number[];
}

export type GlassRun =
  | { available: false; note: string }
  | {
      available: true;
      source: string | null;
      R: number;
      L: number;
      quant: string;
      /** Wall time of Build() (quantizer training + graph + conversion) on build_threads. */
      build_s: number;
      /** glass's own figure: the insert loop alone. */
      construction_s: number;
      build_threads: number;
      setup: Record<string, { set_data_s: number; optimize_s: number }>;
      curves: Record<string, GlassEf[]>;
    };

const HOW = 'GLASS_SRC=<checkout of https://github.com/zilliztech/pyglass> sh bench/glass-deps.sh';

/** The built driver: $GLASS_DRIVER, else bench/.glass/glass_driver above this file (src or dist) or the working directory. */
export function glassDriver(): string | null {
  if (process.env.GLASS_DRIVER) return fs.existsSync(process.env.GLASS_DRIVER) ? process.env.GLASS_DRIVER : null;
  const roots: string[] = [];
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    roots.push(dir);
    if (path.dirname(dir) === dir) break;
  }
  roots.push(process.cwd());
  for (const root of roots) {
    const file = path.join(root, 'bench', '.glass', 'glass_driver');
    if (fs.existsSync(file)) return file;
  }
  return null;
}

/** u32 rows, u32 dim, then the f32 values row-major: the driver's input format. */
function writeMatrix(file: string, rows: number, dim: number, values: Float32Array): void {
  const header = Buffer.alloc(8);
  header.writeUInt32LE(rows, 0);
  header.writeUInt32LE(dim, 4);
  fs.writeFileSync(file, Buffer.concat([header, Buffer.from(values.buffer, values.byteOffset, values.byteLength)]));
}

interface DriverLine {
  type: 'build' | 'searcher' | 'ef';
  [key: string]: unknown;
}

/** Builds glass on `vectors` (rows x dim) and sweeps every searcher over `queries`; `available: false` with the reason when it cannot run. */
export async function runGlass(vectors: Float32Array, dim: number, queries: Float32Array[], cfg: GlassConfig): Promise<GlassRun> {
  const driver = glassDriver();
  if (!driver) return { available: false, note: `glass skipped: bench/.glass/glass_driver is not built (no glass source here); to add it: ${HOW}` };
  const sourceFile = path.join(path.dirname(driver), 'source');
  const source = fs.existsSync(sourceFile) ? fs.readFileSync(sourceFile, 'utf8').trim() : null;
  const dir = freshDir('ann-glass');
  try {
    const q = new Float32Array(queries.length * dim);
    for (let i = 0; i < queries.length; i++) q.set(queries[i], i * dim);
    writeMatrix(path.join(dir, 'base.bin'), vectors.length / dim, dim, vectors);
    writeMatrix(path.join(dir, 'queries.bin'), queries.length, dim, q);
    const args = [
      path.join(dir, 'base.bin'),
      path.join(dir, 'queries.bin'),
      dir,
      String(cfg.R),
      String(cfg.L),
      cfg.quant,
      cfg.searchers.join(','),
      String(cfg.k),
      cfg.efs.join(','),
      String(cfg.runs),
    ];
    const lines = await runDriver(driver, args);
    if ('error' in lines) return { available: false, note: `glass skipped: ${lines.error}` };
    const build = lines.out.find((l) => l.type === 'build');
    if (!build) return { available: false, note: 'glass skipped: the driver reported no build' };
    const setup: Record<string, { set_data_s: number; optimize_s: number }> = {};
    const curves: Record<string, GlassEf[]> = Object.fromEntries(cfg.searchers.map((s) => [s, []]));
    for (const l of lines.out) {
      if (l.type === 'searcher') setup[l.searcher as string] = { set_data_s: l.set_data_s as number, optimize_s: l.optimize_s as number };
      if (l.type === 'ef') curves[l.searcher as string].push({ ef: l.ef as number, ids: l.ids as number[][], times_us: l.times_us as number[] });
    }
    return {
      available: true,
      source,
      R: cfg.R,
      L: cfg.L,
      quant: cfg.quant,
      build_s: build.build_s as number,
      construction_s: build.construction_s as number,
      build_threads: build.threads as number,
      setup,
      curves,
    };
  } finally {
    removeDir(dir);
  }
}

/** Runs the driver, logging its progress; its JSON lines, or the error with the tail of its stderr. */
function runDriver(driver: string, args: string[]): Promise<{ out: DriverLine[] } | { error: string }> {
  const proc = spawn(driver, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: DriverLine[] = [];
  let pending = '';
  let stderr = '';
  let garbled: string | null = null;
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (d: string) => {
    pending += d;
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const text = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      let line: DriverLine;
      try {
        line = JSON.parse(text) as DriverLine;
      } catch {
        garbled ??= text.slice(0, 200);
        continue;
      }
      out.push(line);
      if (line.type === 'build') log(`  glass build ${line.build_s} s (${line.quant}, R ${line.R}, L ${line.L}, ${line.threads} threads)`);
      if (line.type === 'searcher') log(`  glass ${line.searcher}: SetData ${line.set_data_s} s, Optimize ${line.optimize_s} s (1 thread)`);
      if (line.type === 'ef') log(`  glass ${line.searcher} ef ${line.ef}: mean ${line.mean_us} us`);
    }
  });
  // glass prints progress bars; keep the tail for an error message only.
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  return new Promise((resolve) => {
    proc.on('error', (e) => resolve({ error: `${driver} did not start: ${e.message}` }));
    proc.on('close', (code, signal) => {
      if (code === 0 && garbled === null) resolve({ out });
      else if (code === 0) resolve({ error: `${driver} printed a line that is not JSON: ${garbled}` });
      else resolve({ error: `${driver} exited with ${code ?? signal}: ${stderr.trim().split('\n').slice(-3).join(' | ')}` });
    });
  });
}
