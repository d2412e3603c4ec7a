// store.search with a Float32Array query sends the floats beside the body (no number text): the
// answer is the one the same query as numbers gets, and its vector follows the same rules.
import test from 'ava';
import { Store, StoreError } from '../../lib/index';
import type { Hit, SearchRequest } from '../../lib/index';
import { prng, randomVector } from './helpers';

async function store(distance: 'Cosine' | 'Euclidean') {
  const s = await Store.open({ inMemory: true, dimension: 8, distance });
  const rand = prng(5);
  await s.upsert('c', { records: Array.from({ length: 50 }, (_, i) => ({ id: `r${i}`, vector: randomVector(rand, 8), attrs: { n: { Int: i } } })) });
  return s;
}

for (const distance of ['Cosine', 'Euclidean'] as const) {
  test(`a Float32Array query answers as the same numbers do (${distance}), with every option`, async (t) => {
    const s = await store(distance);
    t.teardown(() => s.close());
    const q = randomVector(prng(9), 8);
    const options: Omit<SearchRequest, 'query'> = { top_k: 7, offset: 1, filter: [{ Ge: ['n', { Int: 10 }] }], include_attributes: ['n'] };
    const asNumbers = (await s.search({ query: q, ...options })) as Hit[];
    const asFloats = (await s.search({ query: Float32Array.from(q), ...options })) as Hit[];
    t.deepEqual(asFloats, asNumbers);
    const planned = await s.search({ query: Float32Array.from(q), top_k: 3, plan: true });
    t.is(planned.plan.path, 'exact');
    t.is(planned.hits.length, 3);
  });
}

test('a Float32Array query of the wrong length, non-finite or zero under Cosine is 400 naming query', async (t) => {
  const s = await store('Cosine');
  t.teardown(() => s.close());
  const cases: [Float32Array, RegExp][] = [
    [new Float32Array(3), /query has length 3 but the store dimension is 8/],
    [Float32Array.from([1, 0, 0, 0, 0, 0, 0, Number.NaN]), /query\[7\] must be a finite number/],
    [new Float32Array(8), /query has zero length/],
  ];
  for (const [query, message] of cases) {
    const e = await t.throwsAsync(s.search({ query }), { instanceOf: StoreError });
    t.is(e?.status, 400);
    t.regex(e?.message ?? '', message);
  }
});

test('a vector so long that its scores would overflow 32-bit floats is 400 naming the field, under the metrics that do not normalize', async (t) => {
  for (const distance of ['Euclidean', 'DotProduct'] as const) {
    const s = await Store.open({ inMemory: true, dimension: 2, distance });
    t.teardown(() => s.close());
    const huge = [3e38, 3e38];
    for (const call of [s.upsert('c', { records: [{ id: 'a', vector: huge }] }), s.search({ query: huge }), s.search({ query: Float32Array.from(huge) })]) {
      const e = await t.throwsAsync(call, { instanceOf: StoreError });
      t.is(e?.status, 400);
      t.regex(e?.message ?? '', /(records\[0\]\.vector|query) is too long: its squared length .* would overflow 32-bit float scores/);
    }
    t.is(s.footprintCached().rows, 0, distance);
    // The largest accepted length scores finitely against itself.
    const edge = [4e18, 4e18];
    await s.upsert('c', { records: [{ id: 'edge', vector: edge }] });
    const [hit] = await s.search({ query: edge.map((x) => -x) });
    t.true(Number.isFinite(hit.score), `${distance}: ${hit.score}`);
  }
  const cosine = await Store.open({ inMemory: true, dimension: 2 });
  t.teardown(() => cosine.close());
  await cosine.upsert('c', { records: [{ id: 'a', vector: [3e38, 3e38] }] });
  t.true(Math.abs((await cosine.search({ query: [3e38, 3e38] }))[0].score - 1) < 1e-5, 'Cosine normalizes any length');
});
