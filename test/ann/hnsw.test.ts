// HNSW per sealed segment through the library: recall against exact search, the plan of each path,
// deleted rows never returned, filters never broken and falling back when starved, the index saved
// and reused at open, and exact: true bypassing it.
import test from 'ava';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { Cancellation, Store } from '../../lib/index';
import type { Filter, Hit, PlannedHits } from '../../lib/index';
import { tempDir } from '../core/helpers';
import { clustered, indexedStore, queriesNear, recallAt, upsertAll } from './data';

const data = clustered(12000);
const queries = queriesNear(data, 60);

test('HNSW recall@10 against exact search is at least 0.95, on the ann path', async (t) => {
  const { store } = await indexedStore(data, { ann: 'hnsw' });
  t.teardown(() => store.close());
  const recall = await recallAt(store, queries, 10);
  t.log(`recall@10 ${recall.toFixed(4)}`);
  t.true(recall >= 0.95, `recall ${recall}`);
  const { plan } = await store.search({ query: queries[0], top_k: 10, plan: true });
  t.is(plan.path, 'ann');
  t.false('rows_scanned' in plan);
  t.true(plan.candidates!.surfaced >= plan.candidates!.survived && plan.candidates!.survived >= 10);
  t.true('walk_us' in plan.timings && 'total_us' in plan.timings);
});

test("the short plan a walk leaves on its Cancellation (the slow-query log's) has the plan's path and candidates, no rows_scanned", async (t) => {
  const { store } = await indexedStore(data.slice(0, 3000), { ann: 'hnsw' });
  t.teardown(() => store.close());
  const { plan } = await store.search({ query: queries[1], top_k: 10, plan: true });
  const cancellation = new Cancellation();
  await store.search({ query: queries[1], top_k: 10 }, { cancellation });
  const short = JSON.parse(cancellation.token.planSummary() ?? '{}');
  t.is(short.path, 'ann');
  t.deepEqual(short.candidates, plan.candidates);
  // A walk surfaces more rows than it keeps: at most ef = max(ef_search 64, overscan 4 x top_k 10) survive.
  t.true(short.candidates.survived <= 64 && short.candidates.survived >= 10 && short.candidates.surfaced > short.candidates.survived);
  t.false('rows_scanned' in short);
  t.true(Number.isInteger(short.total_us));
});

test('exact: true bypasses the index: the exact path, every row scanned', async (t) => {
  const { store } = await indexedStore(data.slice(0, 3000), { ann: 'hnsw' });
  t.teardown(() => store.close());
  const { plan } = await store.search({ query: queries[0], exact: true, plan: true });
  t.is(plan.path, 'exact');
  t.is(plan.rows_scanned, 3000);
  t.false('candidates' in plan);
});

test('deleted and overwritten rows are never returned by a walk', async (t) => {
  const { store } = await indexedStore(data, { ann: 'hnsw' });
  t.teardown(() => store.close());
  const victims = (await store.search({ query: queries[1], top_k: 10 })) as Hit[];
  await store.delete('c', { ids: victims.slice(0, 5).map((h) => h.id) });
  // Overwriting moves a record to the memory segment: its old sealed row is dead.
  await store.upsert('c', { records: victims.slice(5).map((h) => ({ id: h.id, vector: data[0].map((x) => -x) })) });
  const after = await store.search({ query: queries[1], top_k: 10, plan: true });
  const gone = new Set(victims.map((h) => h.id));
  t.false(after.hits.some((h) => gone.has(h.id)));
  t.is(after.hits.length, 10);
  t.true(after.plan.candidates!.dropped_stale >= 10);
  t.is(after.plan.path, 'segmented'); // the overwritten records live in the memory segment, scanned exactly
});

test('a filtered walk returns only rows passing the filter, and top_k of them', async (t) => {
  const { store } = await indexedStore(data, { ann: 'hnsw' });
  t.teardown(() => store.close());
  const filter: Filter = [{ Not: { Eq: ['g', { Int: 3 }] } }];
  for (const query of queries.slice(0, 20)) {
    const { hits, plan } = await store.search({ query, top_k: 10, filter, plan: true });
    t.is(hits.length, 10);
    t.true(hits.every((h) => (h.attrs.g as { Int: bigint }).Int !== 3n));
    t.is(plan.path, 'ann');
  }
  t.true((await recallAt(store, queries, 10, { filter })) >= 0.9);
});

test('a selective filter falls back to the exact scan and still returns the exact top rows', async (t) => {
  const { store } = await indexedStore(data, { ann: 'hnsw' });
  t.teardown(() => store.close());
  const filter: Filter = [{ Eq: ['rare', { Bool: true }] }]; // 12 rows of 12000
  const all = await store.search({ query: queries[2], top_k: 20, filter, plan: true });
  t.deepEqual(all.hits.map((h) => h.id).sort(), Array.from({ length: 12 }, (_, i) => `r${7 + 1000 * i}`).sort());
  t.is(all.plan.path, 'ann_prefilter_fallback');
  t.true(typeof all.plan.rows_scanned === 'number' && all.plan.rows_scanned > 0);
  const top = await store.search({ query: queries[2], top_k: 10, filter });
  t.deepEqual(top, await store.search({ query: queries[2], top_k: 10, filter, exact: true }));
});

test('a selective filter with a memory segment beside the index: no walk ran, so the plan says ann_prefilter_fallback with rows_scanned', async (t) => {
  const { store } = await indexedStore(data, { ann: 'hnsw' });
  t.teardown(() => store.close());
  await upsertAll(
    store,
    data.slice(0, 10).map((v) => v.map((x) => -x)),
    20100,
  ); // rows in the memory segment, none rare
  const filter: Filter = [{ Eq: ['rare', { Bool: true }] }];
  const { hits, plan } = await store.search({ query: queries[2], top_k: 20, filter, plan: true });
  t.is(hits.length, 12);
  t.is(plan.path, 'ann_prefilter_fallback');
  t.true(typeof plan.rows_scanned === 'number' && plan.rows_scanned > 0, JSON.stringify(plan));
  t.false('walk_us' in plan.timings);
});

test('a store reopened with HNSW serves the saved graph at once and never rebuilds it', async (t) => {
  const { store, path: dir } = await indexedStore(data, { ann: 'hnsw' });
  const before = await store.search({ query: queries[3], top_k: 10 });
  await store.close();
  const graphs = (await import('node:fs')).readdirSync(dir).filter((f) => f.endsWith('.hnsw'));
  t.true(graphs.length > 0);
  const stamps = graphs.map((f) => statSync(path.join(dir, f)).mtimeMs);
  const reopened = await Store.open({ path: dir });
  t.teardown(() => reopened.close());
  const { hits, plan } = await reopened.search({ query: queries[3], top_k: 10, plan: true });
  t.is(plan.path, 'ann', 'the graph is attached at open, before any build could finish');
  t.deepEqual(hits, before);
  await reopened.waitForIndexes();
  t.deepEqual(
    graphs.map((f) => statSync(path.join(dir, f)).mtimeMs),
    stamps,
  );
});

test('a damaged graph file is not used: the segment is rebuilt in the background', async (t) => {
  const { store, path: dir } = await indexedStore(data.slice(0, 4000), { ann: 'hnsw' });
  await store.close();
  const fs = await import('node:fs');
  const graph = fs.readdirSync(dir).find((f) => f.endsWith('.hnsw'))!;
  fs.writeFileSync(path.join(dir, graph), Buffer.from('not a graph at all'));
  const reopened = await Store.open({ path: dir });
  t.teardown(() => reopened.close());
  await reopened.waitForIndexes();
  const { plan } = (await reopened.search({ query: queries[0], plan: true })) as PlannedHits;
  t.is(plan.path, 'ann');
  t.true(fs.statSync(path.join(dir, graph)).size > 1000);
});

test('segments too small for an index and the memory segment are scanned beside the walk (segmented)', async (t) => {
  const { store } = await indexedStore(data.slice(0, 5000), { ann: 'hnsw' });
  t.teardown(() => store.close());
  await upsertAll(store, data.slice(5000, 5100), 5000);
  const { hits, plan } = await store.search({ query: data[5050], top_k: 3, plan: true });
  t.is(plan.path, 'segmented');
  t.false('rows_scanned' in plan, 'rows_scanned is absent on the segmented path');
  t.true(plan.candidates!.surfaced > 0);
  t.is(hits[0].id, 'r5050');
  t.true('walk_us' in plan.timings && 'score_us' in plan.timings);
});

test('named vectors are scanned exactly, and the plan says so', async (t) => {
  const { store } = await indexedStore(data.slice(0, 3000), { ann: 'hnsw' });
  t.teardown(() => store.close());
  await store.setVectorNames('c', ['title']);
  await store.upsert('c', { records: [{ id: 'named', vector: data[1], vectors: { title: data[2] } }] });
  const { hits, plan } = await store.search({ query: data[2], names: ['title'], top_k: 1, plan: true });
  t.is(plan.path, 'exact');
  t.is(hits[0].id, 'named');
});

test('a memory segment that stops growing seals and gets its index after a quiet period, with no flush', async (t) => {
  const store = await Store.open({ path: tempDir('quiet'), dimension: data[0].length, distance: 'Euclidean' });
  t.teardown(() => store.close());
  await upsertAll(store, data.slice(0, 2000)); // below the seal bound: only the quiet period seals them
  // The seal comes a second after the last write; the build follows it.
  const deadline = Date.now() + 60_000;
  let { plan } = await store.search({ query: queries[0], top_k: 10, plan: true });
  while (plan.path !== 'ann' && Date.now() < deadline) {
    await store.waitForIndexes();
    plan = (await store.search({ query: queries[0], top_k: 10, plan: true })).plan;
    if (plan.path !== 'ann') await new Promise((r) => setTimeout(r, 50));
  }
  t.is(plan.path, 'ann');
  t.deepEqual(
    (await store.search({ query: queries[0], top_k: 10 })).map((h) => h.id),
    (await store.search({ query: queries[0], top_k: 10, exact: true })).map((h) => h.id),
  );
});

test('a filter passing 0.1% of rows returns top_k hits whenever that many match, all passing, the exact ones', async (t) => {
  const { store } = await indexedStore(data, {});
  t.teardown(() => store.close());
  const filter: Filter = [{ Eq: ['rare', { Bool: true }] }]; // 12 rows of 12,000
  for (const query of queries.slice(0, 20)) {
    const { hits, plan } = await store.search({ query, top_k: 10, filter, plan: true });
    t.is(hits.length, 10);
    t.true(hits.every((h) => (h.attrs.rare as { Bool: boolean }).Bool));
    t.deepEqual(hits, await store.search({ query, top_k: 10, filter, exact: true }), plan.path);
  }
});

test("a filter passing a fifth of the rows, none of them in the query's own cluster, returns top_k passing rows, the exact ones", async (t) => {
  // Clusters are i % 40 (data.ts): the walk starts among rows the filter refuses and must leave
  // them, or give up on the walk for the scan.
  const store = await Store.open({ path: tempDir('far'), dimension: data[0].length, distance: 'Euclidean' });
  t.teardown(() => store.close());
  await store.upsert('c', { records: data.map((vector, i) => ({ id: `r${i}`, vector, attrs: { cluster: { Int: i % 40 } } })) });
  await store.flush();
  await store.waitForIndexes();
  const filter: Filter = [{ Ge: ['cluster', { Int: 20 }] }, { Lt: ['cluster', { Int: 28 }] }];
  let found = 0;
  for (let i = 0; i < 10; i++) {
    const query = data[i * 40].map((x) => Math.fround(x + 0.01)); // cluster 0
    const hits = await store.search({ query, top_k: 10, filter, include_attributes: ['cluster'] });
    t.is(hits.length, 10);
    t.true(hits.every((h) => Number((h.attrs.cluster as { Int: bigint }).Int) >= 20 && Number((h.attrs.cluster as { Int: bigint }).Int) < 28));
    const exact = new Set((await store.search({ query, top_k: 10, filter, exact: true })).map((h) => h.id));
    found += hits.filter((h) => exact.has(h.id)).length;
  }
  t.true(found / 100 >= 0.95, `recall@10 ${found / 100}`);
});
