// Every /search option keeps working on the ann path: paging, projection, min_score, limit_per,
// diversity, rank_by (reordering within the approximate candidates), scope across collections,
// and /search/similar (its source excluded by identity, counted as out of scope).
import test from 'ava';
import { Store } from '../../lib/index';
import type { Hit } from '../../lib/index';
import { tempDir } from '../core/helpers';
import { clustered, queriesNear, upsertAll } from './data';

const data = clustered(6000, 21);
const queries = queriesNear(data, 10, 23);
let store: Store;

test.before(async () => {
  store = await Store.open({
    path: tempDir('ann-options'),
    dimension: data[0].length,
    distance: 'Euclidean',
    ann: 'hnsw',
    quantization: 'none',
    efSearch: 200,
  });
  await upsertAll(store, data, 0, 'a');
  await upsertAll(
    store,
    data.map((v) => v.map((x) => Math.fround(x + 0.01))),
    0,
    'b',
  );
  await store.flush();
  await store.waitForIndexes();
});
test.after.always(() => store?.close());

const q = () => queries[0];

test('paging: offset + top_k cuts the same ranking the longer page holds', async (t) => {
  const long = (await store.search({ query: q(), scope: ['a'], top_k: 10 })) as Hit[];
  const page = await store.search({ query: q(), scope: ['a'], top_k: 5, offset: 5, plan: true });
  t.is(page.plan.path, 'ann');
  t.deepEqual(page.hits, long.slice(5));
});

test('projection, min_score (a returned score as the floor keeps its row) and scope across collections on the ann path', async (t) => {
  const all = await store.search({ query: q(), top_k: 20, include_attributes: ['g'], plan: true });
  t.is(all.plan.path, 'ann');
  t.deepEqual(new Set(all.hits.map((h) => h.collection)), new Set(['a', 'b']));
  t.true(all.hits.every((h) => Object.keys(h.attrs).join() === 'g'));
  const floor = all.hits[4].score;
  const above = await store.search({ query: q(), top_k: 20, min_score: floor, plan: true });
  t.true(above.hits.length >= 5 && above.hits.every((h) => h.score >= floor));
  t.true(above.plan.candidates!.dropped_min_score > 0);
});

test('limit_per, diversity and rank_by work within the approximate candidates', async (t) => {
  const limited = (await store.search({ query: q(), scope: ['a'], top_k: 10, limit_per: { field: 'g', max: 1 } })) as Hit[];
  const groups = limited.map((h) => String((h.attrs.g as { Int: bigint }).Int));
  t.is(new Set(groups).size, groups.length);
  const diverse = await store.search({ query: q(), scope: ['a'], top_k: 10, diversity: 0.5, plan: true });
  t.is(diverse.plan.path, 'ann');
  t.is(diverse.hits.length, 10);
  const ranked = await store.search({
    query: q(),
    scope: ['a'],
    top_k: 10,
    rank_by: { Decay: { field: 'g', origin: 9, scale: 1, lambda: 1000 } },
    plan: true,
  });
  t.is(ranked.plan.path, 'ann');
  // The penalty outweighs any distance: the walk's candidates with g = 9 come first, best first.
  t.is(ranked.hits.length, 10);
  t.true(ranked.hits.every((h) => (h.attrs.g as { Int: bigint }).Int === 9n));
  t.true(ranked.hits.every((h, i) => i === 0 || h.score <= ranked.hits[i - 1].score));
});

test('/search/similar on the ann path excludes its source and counts it out of scope', async (t) => {
  const r = await store.searchSimilar({ collection: 'a', id: 'r42', top_k: 5, plan: true });
  t.is(r.plan.path, 'ann');
  t.false(r.hits.some((h) => h.id === 'r42'));
  t.is(r.plan.candidates!.dropped_out_of_scope, 1);
});
