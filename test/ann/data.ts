// Seeded clustered vectors for the approximate-path tests: real embeddings cluster, and uniform
// noise in many dimensions has no neighbours worth finding, so recall on it means nothing.
import { Store } from '../../lib/index';
import type { Distance, Hit, OpenOptions } from '../../lib/index';
import { prng, tempDir } from '../core/helpers';

export const DIM = 32;

export function clustered(n: number, seed = 1, dim = DIM): number[][] {
  const rand = prng(seed);
  const centers = Array.from({ length: 40 }, () => Array.from({ length: dim }, () => (rand() * 2 - 1) * 2));
  return Array.from({ length: n }, (_, i) => centers[i % centers.length].map((c) => Math.fround(c + (rand() * 2 - 1) * 0.6)));
}

/** Queries near the data: stored vectors with noise added. */
export function queriesNear(data: number[][], count: number, seed = 9): number[][] {
  const rand = prng(seed);
  return Array.from({ length: count }, (_, i) => data[(i * 7919) % data.length].map((x) => Math.fround(x + (rand() * 2 - 1) * 0.2)));
}

/** A store holding `data` as records r0.. in collection c (attrs g = floor(i / 40) % 10, so every cluster holds every g; rare = i % 1000 == 7), flushed so sealed segments exist, indexes built. */
export async function indexedStore(data: number[][], options: Partial<OpenOptions> & { distance?: Distance }, path = tempDir('ann')) {
  const store = await Store.open({ path, dimension: data[0].length, distance: 'Euclidean', ...options });
  await upsertAll(store, data);
  await store.flush();
  await store.waitForIndexes();
  return { store, path };
}

/** One batch: the rows land in one memory segment, so no test's segment layout depends on when the quiet-period seal runs. */
export async function upsertAll(store: Store, data: number[][], first = 0, collection = 'c') {
  const records = data.map((vector, j) => {
    const i = first + j;
    return { id: `r${i}`, vector, attrs: { g: { Int: Math.floor(i / 40) % 10 }, rare: { Bool: i % 1000 === 7 } } };
  });
  await store.upsert(collection, { records });
}

/** Mean fraction of the exact top k that the approximate answer holds. */
export async function recallAt(store: Store, queries: number[][], k: number, extra: Record<string, unknown> = {}): Promise<number> {
  let found = 0;
  let wanted = 0;
  for (const query of queries) {
    const exact = (await store.search({ query, top_k: k, exact: true, ...extra })) as Hit[];
    const approx = (await store.search({ query, top_k: k, ...extra })) as Hit[];
    const ids = new Set(exact.map((h) => h.id));
    found += approx.filter((h) => ids.has(h.id)).length;
    wanted += exact.length;
  }
  return wanted === 0 ? 1 : found / wanted;
}
