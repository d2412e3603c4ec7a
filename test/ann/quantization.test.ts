// Quantized first passes through the library: Int8 on any metric and Binary on Cosine, alone (the
// quantized path: every row ranked by its code, the best rescored exactly) and as HNSW's or IVF's
// distance (then rescored), each with recall against exact search and the plan's fields.
import test from 'ava';
import { readdirSync } from 'node:fs';
import { Store } from '../../lib/index';
import type { Distance, Filter, Hit } from '../../lib/index';
import { tempDir } from '../core/helpers';
import { clustered, indexedStore, queriesNear, recallAt } from './data';

const data = clustered(8000, 3, 96);
const queries = queriesNear(data, 40, 5);

const cases: { quantization: 'int8' | 'binary'; distance: Distance; ann: 'none' | 'hnsw' | 'ivf' }[] = [
  { quantization: 'int8', distance: 'Euclidean', ann: 'none' },
  { quantization: 'int8', distance: 'DotProduct', ann: 'none' },
  { quantization: 'int8', distance: 'Cosine', ann: 'none' },
  { quantization: 'binary', distance: 'Cosine', ann: 'none' },
  { quantization: 'int8', distance: 'Euclidean', ann: 'hnsw' },
  { quantization: 'binary', distance: 'Cosine', ann: 'hnsw' },
  { quantization: 'int8', distance: 'Euclidean', ann: 'ivf' },
];

for (const c of cases) {
  const label = `${c.ann !== 'none' ? `${c.ann.toUpperCase()} + ` : ''}${c.quantization} on ${c.distance}`;
  test(`${label}: recall@10 against exact search is at least 0.95`, async (t) => {
    const { store, path } = await indexedStore(data, c);
    t.teardown(() => store.close());
    const recall = await recallAt(store, queries, 10);
    t.log(`recall@10 ${recall.toFixed(4)}`);
    t.true(recall >= 0.95, `recall ${recall}`);
    const { plan } = await store.search({ query: queries[0], top_k: 10, plan: true });
    if (c.ann !== 'none') {
      t.is(plan.path, 'ann');
      t.true('walk_us' in plan.timings && 'rescore_us' in plan.timings);
    } else {
      t.is(plan.path, 'quantized');
      t.is(plan.rows_scanned, data.length);
      t.false('candidates' in plan);
      t.true('first_pass_us' in plan.timings && 'rescore_us' in plan.timings);
    }
    const suffix = c.quantization === 'int8' ? '.q8' : '.qb';
    t.true(
      readdirSync(path).some((f) => f.endsWith(suffix)),
      'the codes are saved beside the segment',
    );
  });
}

test("HNSW + Int8 walks with the query's ef and rescores the best (offset + top_k) x rescore rows it finds", async (t) => {
  const dir = tempDir('int8-ef');
  await (await indexedStore(data, { quantization: 'int8', distance: 'Euclidean', ann: 'hnsw' }, dir)).store.close();
  // overscan 1: ef = max(efSearch, top_k). Rescored rows are the plan's survivors.
  const survivors = async (efSearch: number, top_k: number) => {
    const store = await Store.open({ path: dir, readOnly: true, ann: 'hnsw', quantization: 'int8', overscan: 1, efSearch });
    try {
      const { plan } = await store.search({ query: queries[2], top_k, plan: true });
      t.is(plan.path, 'ann');
      return plan.candidates!.survived;
    } finally {
      await store.close();
    }
  };
  t.is(await survivors(12, 10), 12, 'a walk with ef 12 below 10 x 4 rescores all it found');
  t.is(await survivors(64, 10), 40, 'ef 64: the best 10 x 4 are rescored');
  t.is(await survivors(64, 5), 20, 'ef 64, top_k 5: the best 5 x 4');
});

test('the quantized path returns exact scores (rescored), never a row failing the filter', async (t) => {
  const { store } = await indexedStore(data, { quantization: 'int8', ann: 'none' });
  t.teardown(() => store.close());
  const filter: Filter = [{ Eq: ['g', { Int: 4 }] }];
  const approx = (await store.search({ query: queries[1], top_k: 10, filter })) as Hit[];
  const exact = (await store.search({ query: queries[1], top_k: 10, filter, exact: true })) as Hit[];
  t.true(approx.every((h) => (h.attrs.g as { Int: bigint }).Int === 4n));
  const exactScores = new Map(exact.map((h) => [h.id, h.score]));
  for (const h of approx) if (exactScores.has(h.id)) t.is(h.score, exactScores.get(h.id)!);
});

test('codes are saved and reused at open: a reopened store ranks the same on the quantized path', async (t) => {
  const dir = tempDir('quant');
  const { store } = await indexedStore(data, { quantization: 'binary', distance: 'Cosine', ann: 'none' }, dir);
  const before = await store.search({ query: queries[2], top_k: 10 });
  await store.close();
  const reopened = await Store.open({ path: dir });
  t.teardown(() => reopened.close());
  const { hits, plan } = await reopened.search({ query: queries[2], top_k: 10, plan: true });
  t.is(plan.path, 'quantized');
  t.deepEqual(hits, before);
});
