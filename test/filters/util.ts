// Shared pieces of the filter and attribute-route tests: small stores built from literal records,
// a check that runs one filter through both /list and /search, and labels that print bigint.
// Temp dirs, the PRNG and the search oracle come from ../core/helpers.
import type { ExecutionContext } from 'ava';
import { type Filter, type Hit, type RecordInput, type Value, Store, stringifyExact } from '../../lib/index';

export const DIM = 4;

/** A JSON-ish label for assertion messages (bigint and -0 printed exactly). */
export function label(x: unknown): string {
  return x === undefined ? 'undefined' : stringifyExact(x).toString('utf8');
}

export function ids(hits: Hit[]): string[] {
  return hits.map((h) => h.id);
}

export function sortedIds(hits: Hit[]): string[] {
  return ids(hits).sort();
}

/** Vector of the i-th fixture record: distinct, never zero, exact f32. */
export function vec(i: number): number[] {
  return [1, Math.fround(((i * 37) % 101) / 101), Math.fround(((i * 53) % 97) / 97 - 0.5), Math.fround(((i * 11) % 13) / 13)];
}

export const QUERY = [0.5, -0.25, 1, 0.125];

/**
 * A store holding one collection `coll` with a record per entry of `attrs` (id -> attrs, or
 * id -> undefined for a record without attrs). Every record has a vector so /search sees it too.
 */
export async function storeWith(attrs: Record<string, Record<string, Value> | undefined>, coll = 'c'): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  const records: RecordInput[] = Object.entries(attrs).map(([id, a], i) => ({ id, vector: vec(i), ...(a ? { attrs: a } : {}) }));
  if (records.length) await store.upsert(coll, { records });
  return store;
}

/** Upsert from raw JSON text (e.g. to send -0.0 or digits the JS number type cannot hold). */
export async function rawUpsert(store: Store, coll: string, text: string): Promise<void> {
  await store.upsert(coll, Buffer.from(text, 'utf8'));
}

/** Ids matched by `filter` through /list (limit 10000). */
export async function listed(store: Store, filter: Filter | unknown, scope?: string[]): Promise<string[]> {
  return sortedIds(await store.list({ filter: filter as Filter, limit: 10000, ...(scope ? { scope } : {}) }));
}

/** Ids matched by `filter` through /search (every record has a vector; top_k large). */
export async function searched(store: Store, filter: Filter | unknown, scope?: string[]): Promise<string[]> {
  return sortedIds(await store.search({ query: QUERY, filter: filter as Filter, top_k: 10000, ...(scope ? { scope } : {}) }));
}

/** Asserts that /list and /search both return exactly `expected` (as a set) for `filter`. */
export async function expectMatches(t: ExecutionContext, store: Store, filter: Filter | unknown, expected: string[], scope?: string[]): Promise<void> {
  const want = [...expected].sort();
  t.deepEqual(await listed(store, filter, scope), want, `/list ${label(filter)}`);
  t.deepEqual(await searched(store, filter, scope), want, `/search ${label(filter)}`);
}

/** Every id of the store's collection `coll`, sorted. */
export async function allIds(store: Store, coll = 'c'): Promise<string[]> {
  return (await store.records(coll)).map((r) => r.id).sort();
}

export function without(all: string[], drop: string[]): string[] {
  const d = new Set(drop);
  return all.filter((x) => !d.has(x));
}
