// Shared helpers for the benchmarks: progress on stderr, one JSON object as the last stdout line,
// a seeded RNG, and a fast float -> JSON text writer so bodies never go through JSON.stringify.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The built `tessera` command line (dist/lib/cli/main.js). */
export const CLI = path.join(__dirname, '..', 'lib', 'cli', 'main.js');

/** `tessera <args>` in a child process, once it prints its listening line. */
export function forkServer(args: string[]): Promise<{ url: string; proc: ChildProcess }> {
  const proc = fork(CLI, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) resolve({ url: m[1], proc });
    });
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

/** Runs a command to its end; resolves its wall seconds and stdout (a failure throws). */
export function run(cmd: string, args: string[]): Promise<{ s: number; stdout: string }> {
  const t0 = now();
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  proc.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => {
      const s = (now() - t0) / 1000;
      if (code === 0) resolve({ s, stdout });
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}`));
    });
  });
}

const t0 = performance.now();

/** Progress line on stderr, stamped with seconds since start. */
export function log(msg: string): void {
  process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${msg}\n`);
}

/** Prints the result: exactly one JSON object, the last line of stdout. */
export function emit(result: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export const now = (): number => performance.now();

/** A peer library, or null (logged) when it is not installed here. */
export function tryRequire<T>(name: string): T | null {
  try {
    return require(name) as T;
  } catch (e) {
    log(`peer ${name} unavailable: ${(e as Error).message.split('\n')[0]}`);
    return null;
  }
}

/** Seeded PRNG (mulberry32) with a Box-Muller normal. Deterministic across runs. */
export class Rng {
  private s: number;
  private spare: number | null = null;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  normal(): number {
    if (this.spare !== null) {
      const v = this.spare;
      this.spare = null;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    const a = 2 * Math.PI * this.next();
    this.spare = r * Math.sin(a);
    return r * Math.cos(a);
  }
}

/**
 * Decimal places the writer keeps (writeFixed prints exactly 8): |x| ~ 0.036, typical in a 768-d
 * unit vector, keeps ~7 significant digits, and every value round-trips to the same f32.
 */
export const DECIMALS = 8;
const SCALE = 10 ** DECIMALS;

/** Rounds every value to what writeFixed prints, so peers and the store see the same numbers. */
export function quantize(v: Float32Array): void {
  for (let i = 0; i < v.length; i++) v[i] = Math.round(v[i] * SCALE) / SCALE;
}

/** Unit-normalized copy (what a Cosine store keeps), for Cosine ground truth distances. */
export function normalized(v: Float32Array, dim: number): Float32Array {
  const out = new Float32Array(v.length);
  for (let o = 0; o < v.length; o += dim) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += v[o + j] * v[o + j];
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let j = 0; j < dim; j++) out[o + j] = v[o + j] * inv;
  }
  return out;
}

/** Random unit vectors (Gaussian, normalized), quantized to the printed decimals. */
export function randomUnitVectors(rng: Rng, n: number, dim: number): Float32Array {
  const out = new Float32Array(n * dim);
  for (let r = 0; r < n; r++) {
    const o = r * dim;
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      const x = rng.normal();
      out[o + j] = x;
      norm += x * x;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let j = 0; j < dim; j++) out[o + j] = Math.round(out[o + j] * inv * SCALE) / SCALE;
  }
  return out;
}

// "0000".."9999" as bytes, 4 per entry.
const DIGITS4 = new Uint8Array(40000);
for (let i = 0; i < 10000; i++) {
  DIGITS4[4 * i] = 48 + Math.floor(i / 1000);
  DIGITS4[4 * i + 1] = 48 + (Math.floor(i / 100) % 10);
  DIGITS4[4 * i + 2] = 48 + (Math.floor(i / 10) % 10);
  DIGITS4[4 * i + 3] = 48 + (i % 10);
}

/** Appends ASCII; returns the new position. */
export function writeAscii(buf: Buffer, pos: number, s: string): number {
  for (let i = 0; i < s.length; i++) buf[pos++] = s.charCodeAt(i);
  return pos;
}

/** Appends a non-negative integer; returns the new position. */
export function writeUint(buf: Buffer, pos: number, n: number): number {
  if (n < 10) {
    buf[pos++] = 48 + n;
    return pos;
  }
  let len = 0;
  for (let m = n; m > 0; m = Math.floor(m / 10)) len++;
  let p = pos + len;
  while (n > 0) {
    buf[--p] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return pos + len;
}

/** Appends x with DECIMALS fixed decimals (trailing zeros kept, 0 as "0"); returns the new position. */
export function writeFixed(buf: Buffer, pos: number, x: number): number {
  let n = Math.round(x * SCALE);
  if (n === 0) {
    buf[pos++] = 48;
    return pos;
  }
  if (n < 0) {
    buf[pos++] = 45;
    n = -n;
  }
  let frac: number;
  if (n < SCALE) {
    buf[pos++] = 48; // the common case (|x| < 1): small-integer arithmetic only
    frac = n | 0;
  } else {
    const whole = Math.floor(n / SCALE);
    frac = (n - whole * SCALE) | 0;
    pos = writeUint(buf, pos, whole);
  }
  buf[pos++] = 46;
  const hi = (frac / 10000) | 0;
  const lo = frac - hi * 10000;
  let d = 4 * hi;
  buf[pos] = DIGITS4[d];
  buf[pos + 1] = DIGITS4[d + 1];
  buf[pos + 2] = DIGITS4[d + 2];
  buf[pos + 3] = DIGITS4[d + 3];
  d = 4 * lo;
  buf[pos + 4] = DIGITS4[d];
  buf[pos + 5] = DIGITS4[d + 1];
  buf[pos + 6] = DIGITS4[d + 2];
  buf[pos + 7] = DIGITS4[d + 3];
  return pos + 8;
}

/** Appends a JSON array of the row's values; returns the new position. */
export function writeVector(buf: Buffer, pos: number, v: Float32Array, offset: number, dim: number): number {
  buf[pos++] = 91; // [
  for (let j = 0; j < dim; j++) {
    if (j > 0) buf[pos++] = 44; // ,
    pos = writeFixed(buf, pos, v[offset + j]);
  }
  buf[pos++] = 93; // ]
  return pos;
}

/** Upper bound of the bytes writeVector can take for one row. */
export const vectorTextBound = (dim: number): number => 2 + dim * (DECIMALS + 6);

export interface RecordText {
  /** Prepended to the row number to make the id. */
  idPrefix?: string;
  /** Writes the record's attrs object (`{...}`) for a row; returns the new position. */
  attrs?: (buf: Buffer, pos: number, row: number) => number;
  /** An upper bound of the bytes attrs writes for a row. */
  attrsBound?: (row: number) => number;
}

/** The upsert body for rows [from, to) of row-major vectors: {"records":[{"id","vector","attrs"?}, ...]}. */
export function upsertBody(vectors: Float32Array, dim: number, from: number, to: number, text: RecordText = {}): Buffer {
  const { idPrefix = '', attrs, attrsBound } = text;
  let bytes = 32;
  for (let r = from; r < to; r++) bytes += vectorTextBound(dim) + idPrefix.length + 40 + (attrsBound ? attrsBound(r) : 0);
  const buf = Buffer.allocUnsafe(bytes);
  let pos = writeAscii(buf, 0, '{"records":[');
  for (let r = from; r < to; r++) {
    pos = writeAscii(buf, pos, r === from ? '{"id":"' : ',{"id":"');
    pos = writeAscii(buf, pos, idPrefix);
    pos = writeUint(buf, pos, r);
    pos = writeAscii(buf, pos, '","vector":');
    pos = writeVector(buf, pos, vectors, r * dim, dim);
    if (attrs) pos = attrs(buf, writeAscii(buf, pos, ',"attrs":'), r);
    buf[pos++] = 125; // }
  }
  pos = writeAscii(buf, pos, ']}');
  return buf.subarray(0, pos);
}

/** `{"query":[...],"top_k":k,"exact":true}` for row `row` of `v`; `extra`: more members, each after a comma. */
export function searchBody(v: Float32Array, row: number, dim: number, topK: number, exact = true, extra = ''): Buffer {
  const buf = Buffer.allocUnsafe(vectorTextBound(dim) + 64 + extra.length);
  let pos = writeAscii(buf, 0, '{"query":');
  pos = writeVector(buf, pos, v, row * dim, dim);
  pos = writeAscii(buf, pos, `,"top_k":${topK},"exact":${exact}${extra}}`);
  return buf.subarray(0, pos);
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export interface TimingSummary {
  n: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  mean_ms: number;
  min_ms: number;
}

export function summarize(ms: number[]): TimingSummary {
  const s = [...ms].sort((a, b) => a - b);
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  return {
    n: ms.length,
    p50_ms: round(percentile(s, 50), 3),
    p90_ms: round(percentile(s, 90), 3),
    p99_ms: round(percentile(s, 99), 3),
    mean_ms: round(mean, 3),
    min_ms: round(s[0], 3),
  };
}

export function round(x: number, digits = 3): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** A fresh empty directory under os.tmpdir(). */
export function freshDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `tessera-bench-${prefix}-`));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A segment file's kind (`seg-3.q8` -> `q8`, `seg-3.del.7` -> `del`); null for the store's other files. */
export const segmentFileKind = (name: string): string | null => /^seg-\d+\.([a-z0-9]+)/.exec(name)?.[1] ?? null;

/** A store directory's bytes, and its segment files' bytes by kind (segmentFileKind). */
export function storeFiles(dir: string): { files: Record<string, number>; segments: number; disk: number } {
  const files: Record<string, number> = {};
  const segs = new Set<string>();
  let disk = 0;
  for (const f of fs.readdirSync(dir)) {
    const size = fs.statSync(path.join(dir, f)).size;
    disk += size;
    const kind = segmentFileKind(f);
    if (!kind) continue;
    segs.add(f.slice(0, f.indexOf('.')));
    files[kind] = (files[kind] ?? 0) + size;
  }
  return { files, segments: segs.size, disk };
}

/** Rows per segment, from the .vec sizes, in segment order. */
export function segmentRows(dir: string, dim: number): number[] {
  return fs
    .readdirSync(dir)
    .map((f) => /^seg-(\d+)\.vec$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => fs.statSync(path.join(dir, m[0])).size / (dim * 4));
}

/**
 * Probe of the machine's sequential memory-read bandwidth: Buffer.compare of two identical
 * `bytes`-long buffers is one memcmp that reads both, so one pass reads 2 x bytes. `pass()` returns
 * the pass's bytes/s; keep the probe around to sample it under the same load as the measured code.
 */
export class ReadBandwidthProbe {
  private a: Buffer;
  private b: Buffer;
  readonly samples: number[] = [];
  constructor(readonly bytes: number) {
    this.a = Buffer.alloc(bytes, 7);
    this.b = Buffer.alloc(bytes, 7);
  }
  pass(): number {
    const t = now();
    const c = Buffer.compare(this.a, this.b);
    const dt = (now() - t) / 1000;
    if (c !== 0) throw new Error('buffers differ');
    const bw = (2 * this.bytes) / dt;
    this.samples.push(bw);
    return bw;
  }
  best(): number {
    return Math.max(...this.samples);
  }
  median(): number {
    const s = [...this.samples].sort((x, y) => x - y);
    return s[Math.floor(s.length / 2)];
  }
  release(): void {
    this.a = this.b = Buffer.alloc(0);
  }
}

export function machine(): Record<string, unknown> {
  return {
    cpus: os.cpus().length,
    loadavg_1m: round(os.loadavg()[0], 2),
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    total_mem_gib: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
  };
}

/** Runs a bench's main; a failure is logged with its stack and exits 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((e) => {
    log(`FAILED: ${(e as Error).stack ?? e}`);
    process.exit(1);
  });
}

/** BENCH_N and BENCH_QUERIES shrink a run for a quick check; these are the bench's defaults. */
export function benchSize(n: number, queries: number): { n: number; queries: number } {
  return { n: Number(process.env.BENCH_N ?? n), queries: Number(process.env.BENCH_QUERIES ?? queries) };
}

/** The version of an installed package, found by walking up from its entry point (minisearch and nlp-corpus do not export package.json). */
export function pkgVersion(name: string): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(pkgRoot(name), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The directory of an installed package (the one whose package.json names it). */
export function pkgRoot(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (
    !fs.existsSync(path.join(dir, 'package.json')) ||
    (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name
  ) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`package root of ${name} not found`);
    dir = up;
  }
  return dir;
}

/** The first `max` sentences of nlp-corpus (a devDependency: builds/doc-0..99.json, 1,000 English sentences each). */
export function nlpSentences(max: number): string[] {
  const dir = path.join(pkgRoot('nlp-corpus'), 'builds');
  const texts: string[] = [];
  for (let f = 0; texts.length < max && fs.existsSync(path.join(dir, `doc-${f}.json`)); f++)
    texts.push(...(JSON.parse(fs.readFileSync(path.join(dir, `doc-${f}.json`), 'utf8')) as string[]));
  texts.length = Math.min(texts.length, max);
  return texts;
}
