// The store the SQL equivalence tests read: three collections and an alias, full-text fields,
// named vectors, chunk attributes for expand, and attributes of every Value type (Int at the
// Int64 edges and past 2^53, -0.0, Null, Lists, missing keys, names that need quotes or are
// keywords). Built from a seed, so every run sees the same records; `FIXTURE` keeps them for
// answers worked out by hand.
import type { RecordInput, Value } from '../../lib/index';
import { prng, randomVector } from '../core/helpers';

export const DIM = 8;
export const COLLECTIONS = ['papers', 'docs-2024', '2024-notes'] as const;
/** `pub` resolves to papers. */
export const ALIAS = { pub: 'papers' };
export const VECTOR_NAMES = ['title_vec', 'body_vec'];
/** Full-text fields per collection. */
export const FTS: Record<string, string[]> = {
  papers: ['title', 'body', 'text'],
  'docs-2024': ['title', 'body', 'text'],
  '2024-notes': ['title', 'text', 'code'],
};
/** expand reads these chunk attributes (callers cannot write the svc.* ones). */
export const CHUNK_FIELDS = { parent_field: 'doc', index_field: 'part', text_field: 'text' };

/** 2024-05-01T00:00:00Z */
export const ORIGIN = 1714521600000;
export const DAY = 86_400_000;
/** 0050-06-15T00:00:00Z */
export const ANCIENT = -60575040000000;

export const WORDS = [
  'river',
  'delta',
  'vector',
  'search',
  'graph',
  'index',
  'memory',
  'neural',
  'sparse',
  'dense',
  'query',
  'token',
  'café',
  'naïve',
  'straße',
  '中文',
  'rust',
  'running',
  'run',
  'ann',
];
export const TAGS = ['ann', 'bm25', 'graph', 'db', "o'reilly", 'ünï', 'x y'];
export const VENUES: Value[] = [{ Str: 'arXiv' }, { Str: 'SIGIR' }, { Str: "O'Reilly" }, { Str: 'NeurIPS' }, { Str: 'Café "Q"' }, { Str: '会议' }, 'Null'];
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const EDGE_INTS = [0n, 1n, -1n, 42n, 2n ** 53n, 2n ** 53n + 1n, INT64_MIN, INT64_MAX, 2n ** 53n - 1n, -(2n ** 53n) - 1n];
export const FLOATS = [-1.5, -0, 0, 0.25, 2, 1e300, 3.5, 0.1, -2.5e-7];
/** Pieces of random strings: quotes, multi-byte and astral characters, SQL and glob specials. */
const PIECES = ["'", '"', "''", 'é', '😀', '中', 'a', 'B', ' ', '%', '_', '*', '?', '\\', '[', ']', '--', '/*', '*/', '\u0001', '\n', 'river', 'x y'];

export const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
export const int = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

export function sample<T>(rand: () => number, xs: readonly T[], lo: number, hi: number): T[] {
  const pool = [...xs];
  const out: T[] = [];
  for (let n = int(rand, lo, Math.min(hi, xs.length)); n > 0; n--) out.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]);
  return out;
}

export const words = (rand: () => number, lo: number, hi: number) => Array.from({ length: int(rand, lo, hi) }, () => pick(rand, WORDS)).join(' ');

export function randomString(rand: () => number): string {
  return Array.from({ length: int(rand, 0, 6) }, () => pick(rand, PIECES)).join('');
}

/** Any Int64: small, at an edge, or 64 random bits. */
export function randomInt(rand: () => number): bigint {
  const r = rand();
  if (r < 0.4) return BigInt(int(rand, -5, 50));
  if (r < 0.7) return pick(rand, EDGE_INTS);
  return BigInt.asIntN(64, (BigInt(Math.floor(rand() * 2 ** 32)) << 32n) | BigInt(Math.floor(rand() * 2 ** 32)));
}

export function randomFloat(rand: () => number): number {
  const r = rand();
  if (r < 0.5) return pick(rand, FLOATS);
  if (r < 0.8) return Math.round((rand() * 2 - 1) * 1000) / 100;
  return (rand() * 2 - 1) * 10 ** int(rand, -300, 300);
}

export function randomDateTime(rand: () => number): bigint {
  const r = rand();
  if (r < 0.7) return BigInt(ORIGIN - int(rand, -30, 60) * DAY + pick(rand, [0, 0, 1, 3_600_000, 123]));
  if (r < 0.85) return BigInt(int(rand, -(2 ** 40), 2 ** 42));
  return pick(rand, [INT64_MIN, INT64_MAX, 0n, -1n]);
}

export function randomValue(rand: () => number): Value {
  switch (Math.floor(rand() * 8)) {
    case 0:
      return { Str: randomString(rand) };
    case 1:
      return { Int: randomInt(rand) };
    case 2:
      return { Float: randomFloat(rand) };
    case 3:
      return { Bool: rand() < 0.5 };
    case 4:
      return { DateTime: randomDateTime(rand) };
    case 5:
      return { List: Array.from({ length: int(rand, 0, 3) }, () => (rand() < 0.6 ? pick(rand, TAGS) : randomString(rand))) };
    case 6:
      return 'Null';
    default:
      return { Str: pick(rand, WORDS) };
  }
}

export interface FixtureRecord {
  collection: string;
  record: RecordInput;
}

function record(rand: () => number, id: string, i: number, withVector: boolean): RecordInput {
  const attrs: Record<string, Value> = {};
  const maybe = (p: number, key: string, value: () => Value) => {
    if (rand() < p) attrs[key] = value();
  };
  attrs.title = { Str: words(rand, 2, 5) };
  maybe(0.9, 'body', () => ({ Str: words(rand, 6, 14) }));
  maybe(0.9, 'year', () => (rand() < 0.15 ? { Float: 2015 + int(rand, 0, 9) } : { Int: 2015 + int(rand, 0, 9) }));
  maybe(0.9, 'n', () => ({ Int: pick(rand, EDGE_INTS) }));
  maybe(0.8, 'f', () => ({ Float: pick(rand, FLOATS) }));
  maybe(0.8, 'ok', () => ({ Bool: rand() < 0.5 }));
  maybe(0.85, 'ts', () => (rand() < 0.1 ? { Int: ORIGIN - int(rand, 0, 30) * DAY } : { DateTime: ORIGIN - int(rand, -10, 60) * DAY }));
  maybe(0.8, 'tags', () => ({ List: sample(rand, TAGS, 0, 3) }));
  maybe(0.85, 'venue', () => pick(rand, VENUES));
  maybe(0.9, 'mixed', () => randomValue(rand));
  maybe(0.9, 'g', () => ({ Str: pick(rand, ['x', 'y', 'z']) }));
  attrs.doc = { Str: `d${i % 6}` };
  attrs.part = { Int: Math.floor(i / 6) };
  attrs.text = { Str: `${words(rand, 3, 8)} part ${Math.floor(i / 6)}` };
  maybe(0.3, 'page-count', () => ({ Int: int(rand, 0, 500) }));
  maybe(0.3, 'say "hi"', () => ({ Str: pick(rand, ["it's", 'hé "x"', 'plain', '😀']) }));
  maybe(0.3, 'naïve', () => ({ Str: pick(rand, ['straße', 'café', 'x']) }));
  maybe(0.3, 'a.b', () => ({ Bool: rand() < 0.5 }));
  maybe(0.2, '', () => ({ Int: int(rand, 0, 3) }));
  maybe(0.3, 'not', () => ({ Int: int(rand, 1, 3) }));
  maybe(0.3, 'count', () => ({ Str: pick(rand, ['one', 'two']) }));
  const r: RecordInput = { id, attrs };
  if (withVector) {
    r.vector = randomVector(rand, DIM);
    const vectors: Record<string, number[]> = {};
    if (i % 3 !== 0) vectors.title_vec = randomVector(rand, DIM);
    if (i % 2 === 0) vectors.body_vec = randomVector(rand, DIM);
    if (Object.keys(vectors).length > 0) r.vectors = vectors;
  }
  return r;
}

/** Patterns whose characters are SQL LIKE or glob specials, read literally by LIKE (docs/sql.md §6). */
export const SPECIAL_CODES = ['x*y', 'x?y', 'xay', 'x[1]y', 'x1y', '50%_off', '50% off', 'C:\\dir\\file', 'C:/dir/file', 'ab]c'];

function build(): FixtureRecord[] {
  const rand = prng(20240501);
  const out: FixtureRecord[] = [];
  for (let i = 0; i < 40; i++) out.push({ collection: 'papers', record: record(rand, `p${String(i).padStart(2, '0')}`, i, true) });
  for (let i = 0; i < 30; i++) out.push({ collection: 'docs-2024', record: record(rand, `d${String(i).padStart(2, '0')}`, i, true) });
  // Notes: half of them text-only (no vector: only BM25 and the attribute routes see them).
  for (let i = 0; i < 20; i++) out.push({ collection: '2024-notes', record: record(rand, `n${String(i).padStart(2, '0')}`, i, i % 2 === 0) });
  SPECIAL_CODES.forEach((code, i) => {
    out.push({
      collection: '2024-notes',
      record: { id: `code${i}`, vector: randomVector(rand, DIM), attrs: { code: { Str: code }, title: { Str: `code ${code}` } } },
    });
  });
  // A DateTime in the year 50, for TIMESTAMP literals before the year 100.
  out.push({ collection: '2024-notes', record: { id: 'ancient', attrs: { ts: { DateTime: ANCIENT }, title: { Str: 'ancient river' } } } });
  return out;
}

export const FIXTURE: readonly FixtureRecord[] = build();

/** Every value each attribute holds somewhere in the fixture: filters built from them match. */
export const VALUES_BY_KEY: ReadonlyMap<string, Value[]> = (() => {
  const m = new Map<string, Value[]>();
  for (const { record } of FIXTURE) for (const [k, v] of Object.entries(record.attrs ?? {})) m.set(k, [...(m.get(k) ?? []), v]);
  return m;
})();

/** The record bodies of each collection, as upsert takes them. */
export function recordsOf(collection: string): RecordInput[] {
  return FIXTURE.filter((r) => r.collection === collection).map((r) => r.record);
}

/** Loads the fixture through any store-like writer (the library, or HTTP calls). */
export interface Writer {
  createCollection(name: string): Promise<unknown>;
  setVectorNames(name: string, names: string[]): Promise<unknown>;
  setFtsSchema(name: string, fields: string[]): Promise<unknown>;
  upsert(name: string, body: { records: RecordInput[] }): Promise<unknown>;
  putAlias(name: string, target: string): Promise<unknown>;
}

export async function load(w: Writer): Promise<void> {
  for (const c of COLLECTIONS) {
    await w.createCollection(c);
    await w.setVectorNames(c, VECTOR_NAMES);
    await w.setFtsSchema(c, FTS[c]);
    await w.upsert(c, { records: recordsOf(c) });
  }
  for (const [alias, target] of Object.entries(ALIAS)) await w.putAlias(alias, target);
}
