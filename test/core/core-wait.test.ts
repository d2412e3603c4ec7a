// Awaiting a core read, the JS thread polls for its answer for a bounded time instead of sleeping
// (lib/store/core_wait.ts). Serial, and in a file of their own: the polling state is the process's.
import test from 'ava';
import { performance } from 'node:perf_hooks';
import { Store } from '../../lib/index';
import { awaitRead, pollingNow } from '../../lib/store/core_wait';
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
  t.is((await pending).length, 10);
});

test.serial('a read outstanding past the polling budget lets the event loop sleep until it settles', async (t) => {
  let settle = () => {};
  const slow = new Promise<void>((resolve) => (settle = resolve));
  const waiting = awaitRead(slow);
  const before = performance.eventLoopUtilization();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const busy = performance.eventLoopUtilization(before).utilization;
  t.false(pollingNow(), 'the polling stopped on its own');
  t.true(busy < 0.5, `event loop utilization ${busy.toFixed(3)} over 300 ms`);
  settle();
  await waiting;
});
