// Awaiting a core read, the JS thread polls for its answer for a bounded time instead of sleeping
// (lib/store/core_wait.ts). Serial, and in a file of their own: the polling state is the process's.
import test from 'ava';
import { Store } from '../../lib/index';
import { awaitRead, keepAwake, pollingNow } from '../../lib/store/core_wait';
import { until } from '../harness/until';
import { prng, randomVector } from './helpers';

const DIM = 128;

test.serial('awaiting a queued read, the JS thread polls for its answer instead of sleeping', async (t) => {
  // 3,000 x 128 f32 is past the inline bound: the search is queued.
  const store = await Store.open({ inMemory: true, dimension: DIM });
  const rand = prng(1);
  await store.upsert('c', { records: Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}`, vector: randomVector(rand, DIM) })) });
  t.teardown(() => store.close());
  t.false(pollingNow());
  const pending = store.search({ query: randomVector(prng(3), DIM), top_k: 10 });
  t.true(pollingNow());
  t.true(process.getActiveResourcesInfo().includes('Immediate'), 'a queued immediate keeps the loop from sleeping');
  t.is((await pending).length, 10);
});

test.serial('a read the core ran inline starts no polling', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  t.teardown(() => store.close());
  await store.upsert('c', { records: [{ id: 'a', vector: randomVector(prng(1), DIM) }] });
  const inlineBefore = store.footprintCached().reads_inline;
  const pending = store.search({ query: randomVector(prng(3), DIM), top_k: 10 });
  t.is(store.footprintCached().reads_inline, inlineBefore + 1, 'a one-row search runs inline');
  t.false(pollingNow());
  t.false(process.getActiveResourcesInfo().includes('Immediate'), 'nothing keeps the loop from sleeping');
  t.is((await pending).length, 1);
});

test.serial('a read outstanding past the polling budget stops the polling: nothing keeps the event loop from sleeping until it settles', async (t) => {
  // A queued search is pending in the core when the read is awaited, so the polling starts.
  const store = await Store.open({ inMemory: true, dimension: DIM });
  const rand = prng(1);
  await store.upsert('c', { records: Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}`, vector: randomVector(rand, DIM) })) });
  t.teardown(() => store.close());
  const queued = store.search({ query: randomVector(prng(3), DIM), top_k: 10 });
  let settled = false;
  let settle = () => {};
  const slow = new Promise<void>((resolve) => (settle = resolve));
  const waiting = awaitRead(slow).then(() => (settled = true));
  t.true(pollingNow());
  await until(() => !pollingNow(), 'the polling stops on its own');
  t.false(settled, 'the read is still outstanding');
  t.false(process.getActiveResourcesInfo().includes('Immediate'), 'no immediate is queued: the loop sleeps in its poll');
  t.is((await queued).length, 10);
  settle();
  await waiting;
  t.true(settled);
});

test.serial('reads finishing while the JS thread polls, as the polling stops, and after it stopped all settle with their own answers', async (t) => {
  // Scans from well under to well over the polling budget, started one after another and in
  // overlapping groups: each must settle, whether a poll turn or the completion signal delivers it.
  const store = await Store.open({ inMemory: true, dimension: DIM });
  t.teardown(() => store.close());
  const rand = prng(5);
  for (const [name, rows] of [
    ['small', 3000],
    ['large', 40000],
  ] as const) {
    for (let from = 0; from < rows; from += 5000) {
      const n = Math.min(5000, rows - from);
      await store.upsert(name, { records: Array.from({ length: n }, (_, i) => ({ id: `r${from + i}`, vector: randomVector(rand, DIM) })) });
    }
  }
  const order = prng(9);
  for (let round = 0; round < 60; round++) {
    const group = Array.from({ length: 1 + Math.floor(order() * 4) }, () => {
      const name = order() < 0.5 ? 'small' : 'large';
      return store.search({ query: randomVector(order, DIM), top_k: 3, scope: [name] }).then((hits) => ({ name, hits }));
    });
    for (const { name, hits } of await Promise.all(group)) {
      t.is(hits.length, 3);
      t.true(hits.every((h) => h.collection === name));
    }
  }
  await until(() => !pollingNow(), 'the polling stops once nothing is outstanding');
});

test.serial('keepAwake keeps the event loop turning for a bounded time, then lets it sleep', async (t) => {
  t.false(pollingNow());
  keepAwake();
  t.true(pollingNow());
  t.true(process.getActiveResourcesInfo().includes('Immediate'), 'a queued immediate keeps the loop from sleeping');
  await until(() => !pollingNow(), 'the polling stopped once its time was up');
  t.false(process.getActiveResourcesInfo().includes('Immediate'));
});
