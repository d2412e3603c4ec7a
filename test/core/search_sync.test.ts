// Store.searchSync: /search run on the calling thread when the core estimates it reads at most
// kSyncMaxBytes (4 MiB) of vectors and codes, an indexed walk included; null when it would cost
// more, and then search() answers it; the same hits either way, as objects or as arrays.
import test from 'ava';
import { Store } from '../../lib/index';
import { prng, randomVector, tempDir } from './helpers';

const DIM = 128;
/** kSyncMaxBytes (tessera/prepared_read.h). */
const SYNC_MAX_BYTES = 4 * 1024 * 1024;

async function fill(store: Store, rows: number, seed = 1, collection = 'c'): Promise<void> {
  const rand = prng(seed);
  for (let b = 0; b < rows; b += 2000) {
    const records = Array.from({ length: Math.min(2000, rows - b) }, (_, i) => ({
      id: `r${b + i}`,
      vector: randomVector(rand, DIM),
      attrs: { n: { Int: b + i } },
    }));
    await store.upsert(collection, { records });
  }
}

async function memoryStore(rows: number): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  await fill(store, rows);
  return store;
}

/** A store on disk whose one sealed segment has its HNSW graph (and Int8 codes: the defaults). */
async function indexedStore(rows: number): Promise<Store> {
  const store = await Store.open({ path: tempDir('sync'), dimension: DIM, distance: 'Euclidean' });
  await fill(store, rows);
  await store.flush();
  await store.waitForIndexes();
  return store;
}

const inlineReads = (store: Store) => store.footprintCached().reads_inline;

test('searchSync answers what search answers, run on the calling thread', async (t) => {
  const store = await memoryStore(1000);
  t.teardown(() => store.close());
  const request = { query: randomVector(prng(2), DIM), top_k: 10 };
  const before = inlineReads(store);
  const now = store.searchSync(request);
  t.is(inlineReads(store), before + 1);
  t.deepEqual(now, await store.search(request));
  t.is(now?.length, 10);
});

test('an indexed walk runs synchronously, and answers the hits the queued walk answers', async (t) => {
  const store = await indexedStore(5000);
  t.teardown(() => store.close());
  for (let q = 0; q < 5; q++) {
    const query = Float32Array.from(randomVector(prng(10 + q), DIM));
    const planned = store.searchSync({ query, top_k: 10, plan: true });
    t.is(planned?.plan.path, 'ann', 'the walk answered, not a scan');
    t.deepEqual(store.searchSync({ query, top_k: 10 }), await store.search({ query, top_k: 10 }));
  }
});

test('a search estimated to read more than 4 MiB is left to search(): null, and search answers it', async (t) => {
  // Exact scans of 128-d f32 rows: 8,000 of them are 4,096,000 bytes, 8,500 are 4,352,000.
  const under = await memoryStore(8000);
  t.teardown(() => under.close());
  t.true(8000 * DIM * 4 < SYNC_MAX_BYTES);
  const request = { query: randomVector(prng(3), DIM), top_k: 5 };
  t.is(under.searchSync(request)?.length, 5);
  const over = await memoryStore(8500);
  t.teardown(() => over.close());
  t.true(8500 * DIM * 4 > SYNC_MAX_BYTES);
  const before = inlineReads(over);
  t.is(over.searchSync(request), null);
  t.is(inlineReads(over), before, 'nothing ran');
  t.is((await over.search(request)).length, 5);
});

test('what the bytes do not bound is left to search(): a filter, limit_per, diversity, more than 256 hits', async (t) => {
  const store = await memoryStore(100);
  t.teardown(() => store.close());
  const query = randomVector(prng(4), DIM);
  t.is(store.searchSync({ query, top_k: 5, filter: [{ Ge: ['n', { Int: 0 }] }] }), null);
  t.is(store.searchSync({ query, top_k: 5, limit_per: { field: 'n', max: 1 } }), null);
  t.is(store.searchSync({ query, top_k: 5, diversity: 0.5 }), null);
  t.is(store.searchSync({ query, top_k: 257 }), null);
  t.is(store.searchSync({ query, top_k: 256 })?.length, 100);
});

test('a rerank is left to search(): its provider is called between two phases', async (t) => {
  const store = await memoryStore(10);
  t.teardown(() => store.close());
  const request = { query: randomVector(prng(5), DIM), top_k: 5, rerank: { query: 'shoes' } };
  t.is(store.searchSync(request), null);
  t.is(store.searchSync(Buffer.from(JSON.stringify(request))), null);
});

test('a collection the handle does not hold is left to search(), which fetches it or says so', async (t) => {
  const dir = tempDir('sync-resident');
  const writer = await Store.open({ path: dir, dimension: DIM, ann: 'none', quantization: 'none' });
  await fill(writer, 10, 1, 'a');
  await fill(writer, 10, 2, 'b');
  await writer.close();
  const reader = await Store.open({ path: dir, readOnly: true, resident: ['a'] });
  t.teardown(() => reader.close());
  const query = randomVector(prng(9), DIM);
  t.is(reader.searchSync({ query, top_k: 3, scope: ['a'] })?.length, 3, 'a held collection is answered at once');
  t.is(reader.searchSync({ query, top_k: 3, scope: ['b'] }), null);
  const refused = await t.throwsAsync(reader.search({ query, top_k: 3, scope: ['b'] }));
  t.is((refused as { status?: number }).status, 503);
});

test('a bad body throws the 400 search rejects with, at once; a closed store throws 503', async (t) => {
  const store = await memoryStore(10);
  const wrong = t.throws(() => store.searchSync({ query: [1, 2, 3], top_k: 1 }));
  t.is((wrong as { status?: number }).status, 400);
  t.regex(wrong?.message ?? '', /query has length 3 but the store dimension is 128/);
  const malformed = t.throws(() => store.searchSync(Buffer.from('{"query": [')));
  t.is((malformed as { status?: number }).status, 400);
  await store.close();
  const closed = t.throws(() => store.searchSync({ query: randomVector(prng(6), DIM), top_k: 1 }));
  t.is((closed as { status?: number }).status, 503);
});

test('with arrays: the same page as parallel collections, ids and float scores', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  t.teardown(() => store.close());
  await fill(store, 300, 1, 'a');
  await fill(store, 300, 2, 'b');
  const request = { query: Float32Array.from(randomVector(prng(7), DIM)), top_k: 20, offset: 3 };
  const hits = store.searchSync(request);
  const arrays = store.searchSync(request, { arrays: true });
  t.truthy(hits && arrays);
  t.deepEqual(
    arrays?.collections,
    hits?.map((h) => h.collection),
  );
  t.deepEqual(
    arrays?.ids,
    hits?.map((h) => h.id),
  );
  t.true(arrays?.scores instanceof Float32Array);
  t.deepEqual(
    Array.from(arrays?.scores ?? []),
    hits?.map((h) => Math.fround(h.score)),
  );
  t.true(new Set(arrays?.collections).size === 2, 'both collections are in the page');
});

test('with arrays: plan and expand are refused, naming the field; a miss is null as without', async (t) => {
  const store = await memoryStore(20);
  t.teardown(() => store.close());
  const query = randomVector(prng(8), DIM);
  const plan = t.throws(() => store.searchSync({ query, top_k: 3, plan: true }, { arrays: true }));
  t.regex(plan?.message ?? '', /^plan: /);
  const expand = t.throws(() => store.searchSync({ query, top_k: 3, expand: { radius: 0 } }, { arrays: true }));
  t.regex(expand?.message ?? '', /^expand: /);
  t.is(store.searchSync({ query, top_k: 3, limit_per: { field: 'n', max: 1 } }, { arrays: true }), null);
});
