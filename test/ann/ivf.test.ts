// IVF per sealed segment through the library: recall against exact search on the ann path, the
// lists saved as seg-N.ivf and reused at open, filters never broken, and /stats echoing the kind.
import test from 'ava';
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../lib/index';
import type { Filter, Hit } from '../../lib/index';
import { clustered, indexedStore, queriesNear, recallAt } from './data';

const data = clustered(12000, 31);
const queries = queriesNear(data, 40, 33);

test('IVF recall@10 against exact search is at least 0.9, on the ann path, and /stats says Ivf', async (t) => {
  const { store } = await indexedStore(data, { ann: 'ivf' });
  t.teardown(() => store.close());
  const recall = await recallAt(store, queries, 10);
  t.log(`recall@10 ${recall.toFixed(4)}`);
  t.true(recall >= 0.9, `recall ${recall}`);
  const { plan } = await store.search({ query: queries[0], top_k: 10, plan: true });
  t.is(plan.path, 'ann');
  t.true(plan.candidates!.surfaced > 0);
  t.deepEqual((await store.stats()).ann, { kind: 'Ivf', overscan: 4, seed: 0, n_lists: 0, n_probe: 8 });
});

test('a filtered IVF search returns only rows passing the filter', async (t) => {
  const { store } = await indexedStore(data, { ann: 'ivf' });
  t.teardown(() => store.close());
  const filter: Filter = [{ Not: { Eq: ['g', { Int: 3 }] } }];
  for (const query of queries.slice(0, 10)) {
    const hits = (await store.search({ query, top_k: 10, filter })) as Hit[];
    t.is(hits.length, 10);
    t.true(hits.every((h) => (h.attrs.g as { Int: bigint }).Int !== 3n));
  }
});

test('IVF lists are saved as seg-N.ivf and reused at open', async (t) => {
  const { store, path: dir } = await indexedStore(data.slice(0, 4000), { ann: 'ivf' });
  const before = await store.search({ query: queries[1], top_k: 10 });
  await store.close();
  const lists = readdirSync(dir).filter((f) => f.endsWith('.ivf'));
  t.is(lists.length, 1);
  const stamp = statSync(path.join(dir, lists[0])).mtimeMs;
  const reopened = await Store.open({ path: dir });
  t.teardown(() => reopened.close());
  const { hits, plan } = await reopened.search({ query: queries[1], top_k: 10, plan: true });
  t.is(plan.path, 'ann');
  t.deepEqual(hits, before);
  await reopened.waitForIndexes();
  t.is(statSync(path.join(dir, lists[0])).mtimeMs, stamp);
});
