// Shared pieces of the core (library-level) tests: temp dirs, a seeded PRNG, a brute-force search
// oracle written from the spec's rules, and a child process that drives a Store over stdin/stdout
// so tests can SIGKILL it at a chosen moment. Nothing here imports ava at run time, because
// child.ts (the process side) imports this file too.
import type { ExecutionContext } from 'ava';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { Distance, Hit, Stats, StoreError } from '../../lib/index';

const dirs: string[] = [];

/** A fresh directory under the OS temp dir, removed when the test process exits. */
export function tempDir(label = 'core'): string {
  const dir = mkdtempSync(path.join(tmpdir(), `tessera-${label}-`));
  if (dirs.length === 0) {
    process.once('exit', () => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
  }
  dirs.push(dir);
  return dir;
}

/** This process's mappings of files under dir (a real path): each file's name, resident KiB and VmFlags (Linux /proc/self/smaps). */
export function fileMappings(dir: string): { file: string; rssKiB: number; flags: string[] }[] {
  const out: { file: string; rssKiB: number; flags: string[] }[] = [];
  let current: { file: string; rssKiB: number; flags: string[] } | null = null;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s+(.*)$/.exec(line);
    if (mapping) {
      current = mapping[1].startsWith(`${dir}/`) ? { file: path.basename(mapping[1]), rssKiB: 0, flags: [] } : null;
      if (current) out.push(current);
    } else if (current && line.startsWith('Rss:')) current.rssKiB = Number.parseInt(line.slice('Rss:'.length), 10);
    else if (current && line.startsWith('VmFlags:')) current.flags = line.slice('VmFlags:'.length).trim().split(/\s+/);
  }
  return out;
}

/** A deterministic PRNG (mulberry32), so any failing case replays from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random vector whose components are exact f32 values in [-1, 1), so the store reads them unchanged. */
export function randomVector(rand: () => number, dim: number): number[] {
  return Array.from({ length: dim }, () => Math.fround(rand() * 2 - 1));
}

/** What the store keeps for a vector it was sent: f32 components, unit length under Cosine. */
export function stored(v: number[], metric: Distance): number[] {
  const f = v.map(Math.fround);
  if (metric !== 'Cosine') return f;
  const norm = Math.sqrt(f.reduce((s, x) => s + x * x, 0));
  return f.map((x) => x / norm);
}

/** The spec's score: dot product for Cosine (of normalized vectors) and DotProduct, minus squared distance for Euclidean. */
export function score(q: number[], v: number[], metric: Distance): number {
  let s = 0;
  if (metric === 'Euclidean') {
    for (let i = 0; i < q.length; i++) s += (q[i] - v[i]) ** 2;
    return -s;
  }
  for (let i = 0; i < q.length; i++) s += q[i] * v[i];
  return s;
}

export interface OracleRecord {
  collection: string;
  id: string;
  /** The main vector as sent (null for a text-only record). */
  vector: number[] | null;
  /** Named vectors as sent. */
  vectors?: Record<string, number[]>;
}

export interface OracleQuery {
  query: number[];
  scope?: string[];
  top_k?: number;
  offset?: number;
  min_score?: number;
  names?: string[];
  name_weights?: Record<string, number>;
  pool?: 'Max' | 'Sum';
}

export interface Ranked {
  collection: string;
  id: string;
  score: number;
}

const byteCompare = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The spec's tie-break: score descending, then collection, then id. */
export function ranksBefore(a: Ranked, b: Ranked): number {
  if (a.score !== b.score) return b.score - a.score;
  return byteCompare(a.collection, b.collection) || byteCompare(a.id, b.id);
}

/**
 * Brute-force /search written from the spec (rules 1-4 and the named-vector fields): every record
 * of the scope is scored, ranked by (score desc, collection, id), cut once at [offset, offset+top_k).
 * `aliases` resolves scope names one hop.
 */
export function oracleSearch(records: OracleRecord[], metric: Distance, q: OracleQuery, aliases: Record<string, string> = {}): Ranked[] {
  const query = stored(q.query, metric);
  const scope = q.scope?.length ? new Set(q.scope.map((n) => aliases[n] ?? n)) : null;
  const names = q.names ?? [];
  const out: Ranked[] = [];
  for (const r of records) {
    if (scope && !scope.has(r.collection)) continue;
    let s: number | null = null;
    if (names.length === 0) {
      if (r.vector) s = score(query, stored(r.vector, metric), metric);
    } else {
      for (const name of names) {
        const v = name === 'default' ? r.vector : r.vectors?.[name];
        if (!v) continue; // a record missing a name is not penalized
        const x = score(query, stored(v, metric), metric) * (q.name_weights?.[name] ?? 1);
        s = s === null ? x : q.pool === 'Sum' ? s + x : Math.max(s, x);
      }
    }
    if (s === null) continue;
    if (q.min_score !== undefined && s < q.min_score) continue;
    out.push({ collection: r.collection, id: r.id, score: s });
  }
  out.sort(ranksBefore);
  const offset = q.offset ?? 0;
  return out.slice(offset, offset + (q.top_k ?? 10));
}

/**
 * Compares a page of hits with the oracle's page. Scores must agree within `tol`, and the ids at
 * each position must be the same except where the two candidates are an f32-level near tie (the
 * core scores in f32, the oracle in f64). The page must also be in the spec's exact order by the
 * core's own scores.
 */
export function assertMatchesOracle(t: ExecutionContext, hits: Hit[], expected: Ranked[], tol = 1e-4, label = ''): void {
  t.is(hits.length, expected.length, `${label} page length`);
  const oracleScore = new Map(expected.map((e) => [`${e.collection}\u0000${e.id}`, e.score]));
  for (let i = 0; i < Math.min(hits.length, expected.length); i++) {
    const h = hits[i];
    const e = expected[i];
    if (Math.abs(h.score - e.score) > tol * Math.max(1, Math.abs(e.score))) {
      t.fail(`${label} position ${i}: score ${h.score} (${h.collection}/${h.id}), oracle ${e.score} (${e.collection}/${e.id})`);
      return;
    }
    if (h.collection !== e.collection || h.id !== e.id) {
      const mine = oracleScore.get(`${h.collection}\u0000${h.id}`);
      if (mine === undefined || Math.abs(mine - e.score) > 1e-5 * Math.max(1, Math.abs(e.score))) {
        t.fail(`${label} position ${i}: got ${h.collection}/${h.id}, oracle has ${e.collection}/${e.id} (scores ${h.score} vs ${e.score})`);
        return;
      }
    }
    if (i > 0 && ranksBefore(hits[i - 1], h) > 0) {
      t.fail(`${label} positions ${i - 1} and ${i} are out of (score desc, collection, id) order`);
      return;
    }
  }
  t.pass();
}

/** Expects `promise` to reject with a StoreError of `status`; returns it for message checks. */
export async function rejectsWith(t: ExecutionContext, promise: Promise<unknown>, status: number, label = ''): Promise<StoreError> {
  const e = await t.throwsAsync(promise, undefined, label);
  t.is((e as StoreError | undefined)?.name, 'StoreError', `${label}: ${e?.message}`);
  t.is((e as StoreError | undefined)?.status, status, `${label}: ${e?.message}`);
  return e as StoreError;
}

// ---- deterministic records for durability tests (shared by the parent and the child) ----

/**
 * `stats` less the bytes of derived structures (codes, graphs, id indexes, the live-id table): those follow the
 * background builds (an id index attached after a seal), not what was written.
 */
export function statsOfWrites(stats: Stats): Omit<Stats, 'footprint'> & {
  footprint: Omit<Stats['footprint'], 'code_bytes' | 'ann_index_bytes' | 'id_index_bytes' | 'live_id_table_bytes'>;
} {
  const { code_bytes, ann_index_bytes, id_index_bytes, live_id_table_bytes, ...footprint } = stats.footprint;
  return { ...stats, footprint };
}

/** Vector of record i: exact f32 values, never all zero. */
export function genVector(i: number, dim: number): number[] {
  return Array.from({ length: dim }, (_, k) => Math.fround(((((i + 1) * 2654435761 + k * 40503) >>> 0) % 20001) / 10000 - 1 + (k === 0 ? 3 : 0)));
}

/** Upsert body text for records [start, start + count) tagged `tag`; ids `${tag}-${i}`, attrs tag and i. */
export function genBatchBody(tag: string, start: number, count: number, dim: number): string {
  const parts: string[] = [];
  for (let i = start; i < start + count; i++) {
    parts.push(`{"id":"${tag}-${i}","vector":[${genVector(i, dim).join(',')}],"attrs":{"tag":{"Str":"${tag}"},"i":{"Int":${i}}}}`);
  }
  return `{"records":[${parts.join(',')}]}`;
}

// ---- a Store in a child process, driven line by line ----

export interface Reply {
  id: number;
  ok: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: the child's JSON result; each test reads the fields it asserts
  result?: any;
  status?: number | null;
  message?: string;
  /** Set on replies synthesized because the child died first. */
  exited?: boolean;
}

export const CHILD_SCRIPT = path.join(__dirname, 'child.js');
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

/**
 * A node process running child.js. Each request is one JSON line; each reply one JSON line,
 * written synchronously (stdout is a pipe) right after the Store call settles.
 */
export class Child {
  readonly proc: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Called for every reply, synchronously as its line is read (before the request's promise settles). */
  onReply: ((r: Reply) => void) | null = null;
  stderr = '';
  private nextId = 1;
  private readonly waiting = new Map<number, (r: Reply) => void>();

  constructor(env: NodeJS.ProcessEnv = {}, cwd?: string) {
    this.proc = spawn(process.execPath, [CHILD_SCRIPT], { env: { ...process.env, ...env }, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    live.add(this.proc);
    this.proc.stderr!.on('data', (d) => (this.stderr += d));
    readline.createInterface({ input: this.proc.stdout! }).on('line', (line) => {
      const r = JSON.parse(line) as Reply;
      this.onReply?.(r);
      const w = this.waiting.get(r.id);
      this.waiting.delete(r.id);
      w?.(r);
    });
    this.exited = new Promise((resolve) =>
      this.proc.on('close', (code, signal) => {
        // after the last reply line is read
        live.delete(this.proc);
        for (const [id, w] of this.waiting) w({ id, ok: false, exited: true, message: 'the child exited' });
        this.waiting.clear();
        resolve({ code, signal });
      }),
    );
    this.proc.stdin!.on('error', () => {}); // writing to a killed child
  }

  /** Sends one request; the promise resolves with the reply (never rejects). */
  send(op: string, args: Record<string, unknown> = {}): Promise<Reply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) return resolve({ id, ok: false, exited: true });
      this.waiting.set(id, resolve);
      this.proc.stdin!.write(`${JSON.stringify({ id, op, ...args })}\n`);
    });
  }

  /** Sends one request and returns its result, throwing an Error carrying `status` on failure. */
  // biome-ignore lint/suspicious/noExplicitAny: the child's JSON result; each test reads the fields it asserts
  async call(op: string, args: Record<string, unknown> = {}): Promise<any> {
    const r = await this.send(op, args);
    if (r.ok) return r.result;
    const e = new Error(`child ${op} failed: ${r.message}${r.exited ? `\nstderr: ${this.stderr}` : ''}`) as Error & { status?: number | null };
    e.status = r.status;
    throw e;
  }

  /** SIGKILL now, synchronously (safe from inside onReply). */
  killNow(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }

  async kill(): Promise<void> {
    this.killNow();
    await this.exited;
  }
}
