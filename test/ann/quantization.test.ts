// Quantized first passes through the library: Int8 on any metric and Binary on Cosine, alone (the
// quantized path: every row ranked by its code, the best rescored exactly) and as HNSW's or IVF's
// distance (then rescored), each with recall against exact search and the plan's fields.
import test from 'ava';
import { readdirSync } from 'node:fs';
import { Store } from '../../lib/index';
import type { Distance, Filter, Hit } from '../../lib/index';
import { prng, tempDir } from '../core/helpers';
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

test("HNSW + Int8 walks with the query's ef and rescores at most the best (offset + top_k) x rescore rows it finds", async (t) => {
  const dir = tempDir('int8-ef');
  await (await indexedStore(data, { quantization: 'int8', distance: 'Euclidean', ann: 'hnsw' }, dir)).store.close();
  // overscan 1: ef = max(efSearch, top_k).
  const rescored = async (efSearch: number, top_k: number) => {
    const store = await Store.open({ path: dir, readOnly: true, ann: 'hnsw', quantization: 'int8', overscan: 1, efSearch });
    try {
      const { hits, plan } = await store.search({ query: queries[2], top_k, plan: true });
      t.is(plan.path, 'ann');
      t.is(hits.length, top_k);
      t.is(plan.candidates!.survived, plan.rows_rescored!, 'every row rescored is offered to the window');
      return plan.rows_rescored!;
    } finally {
      await store.close();
    }
  };
  const within = (n: number, least: number, most: number) => n >= least && n <= most;
  t.true(within(await rescored(12, 10), 10, 12), 'a walk with ef 12 below 10 x 4 rescores at most all it found');
  t.true(within(await rescored(64, 10), 10, 40), 'ef 64: at most the best 10 x 4');
  t.true(within(await rescored(64, 5), 5, 20), 'ef 64, top_k 5: at most the best 5 x 4');
});

test('an Int8 rescore leaves unread the rows whose estimates cannot reach the window, and finds what exact search finds', async (t) => {
  const { store } = await indexedStore(data, { quantization: 'int8', distance: 'Euclidean', ann: 'none' });
  t.teardown(() => store.close());
  let read = 0;
  for (const query of queries) {
    const { hits, plan } = await store.search({ query, top_k: 10, plan: true });
    read += plan.rows_rescored!;
    const exact = await store.search({ query, top_k: 10, exact: true });
    t.deepEqual(
      hits.map((h) => h.id),
      exact.map((h) => h.id),
    );
  }
  t.log(`rows rescored per query: ${(read / queries.length).toFixed(1)} of 40`);
  t.true(read < queries.length * 40, 'some rows were left unread');
});

test('Euclidean Int8 codes share one grid: on pixel-like data their estimates alone rank the exact top 10', async (t) => {
  // Integer values 0..255, a third of them 0: per-row scales estimated <q, x> with an error that
  // does not cancel in |q|^2 + |x|^2 - 2 <q, x> (recall@10 ranked by estimate alone: 0.75 here);
  // on one grid shared by rows and query the estimate is |q^ - x^|^2 itself (0.95).
  const rand = prng(7);
  const pixel = (v: number) => Math.max(0, Math.min(255, Math.round(v + (rand() - 0.5) * 60)));
  const centers = Array.from({ length: 20 }, () => Array.from({ length: 64 }, () => (rand() < 0.4 ? 0 : Math.floor(rand() * 256))));
  const rows = Array.from({ length: 3000 }, (_, i) => centers[i % 20].map(pixel));
  const near = Array.from({ length: 50 }, (_, i) => centers[(i * 7) % 20].map(pixel));
  // rescore 1: the window itself is rescored, so the answer is the best 10 by estimate.
  const { store } = await indexedStore(rows, { quantization: 'int8', rescore: 1, ann: 'none' });
  t.teardown(() => store.close());
  const recall = await recallAt(store, near, 10);
  t.log(`recall@10 ranked by estimate: ${recall.toFixed(3)}`);
  t.true(recall >= 0.9, `recall ${recall}`);
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
