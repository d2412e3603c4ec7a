// Cooperative cancellation: an AbortSignal stops a large scan early (status 499, `cancelled`),
// an already-aborted signal rejects before any work, and the store is unaffected.
import test from 'ava';
import { Cancellation, Store, StoreError } from '../../lib/index';
import { prng, rejectsWith } from './helpers';

const DIM = 256;
const ROWS = 400_000;
const BATCH = 10_000;

let store: Store;
let query: Buffer;

test.before(async () => {
  // One query thread: the full scan is long enough (tens of ms) for a 5 ms abort to be clearly early.
  store = await Store.open({ inMemory: true, dimension: DIM, distance: 'DotProduct', queryThreads: 1 });
  const rand = prng(99);
  // 512 distinct vector texts, reused across rows: the JSON is built quickly and parsed by the core.
  const vectors = Array.from({ length: 512 }, () => `[${Array.from({ length: DIM }, () => (rand() * 2 - 1).toFixed(3)).join(',')}]`);
  for (let b = 0; b < ROWS / BATCH; b++) {
    const parts: string[] = [];
    for (let i = 0; i < BATCH; i++) parts.push(`{"id":"r${b * BATCH + i}","vector":${vectors[(i * 7 + b) % 512]}}`);
    await store.upsert('big', Buffer.from(`{"records":[${parts.join(',')}]}`));
  }
  query = Buffer.from(JSON.stringify({ query: Array.from({ length: DIM }, () => rand() * 2 - 1), top_k: 10 }));
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed<T>(f: () => Promise<T>): Promise<[number, T | unknown]> {
  const start = process.hrtime.bigint();
  let out: T | unknown;
  try {
    out = await f();
  } catch (e) {
    out = e;
  }
  return [Number(process.hrtime.bigint() - start) / 1e6, out];
}

test.serial('the store under test is large', async (t) => {
  t.is((await store.stats()).footprint.doc_count, ROWS);
});

test.serial('aborting a large scan after ~5 ms rejects with a cancelled StoreError (499) in much less time than the full scan', async (t) => {
  const full: number[] = [];
  let expected = '';
  for (let i = 0; i < 3; i++) {
    const [ms, out] = await timed(() => store.searchJson(query));
    t.true(Buffer.isBuffer(out));
    expected = (out as Buffer).toString();
    full.push(ms);
  }
  const cancelled: number[] = [];
  for (let i = 0; i < 3; i++) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 5);
    const [ms, out] = await timed(() => store.searchJson(query, { signal: controller.signal }));
    clearTimeout(timer);
    t.true(out instanceof StoreError, `run ${i}: the search was not cancelled (${ms.toFixed(1)} ms)`);
    t.true((out as StoreError).cancelled);
    t.is((out as StoreError).status, 499);
    cancelled.push(ms);
  }
  t.log(`full scan ${full.map((x) => x.toFixed(1)).join(', ')} ms; cancelled ${cancelled.map((x) => x.toFixed(1)).join(', ')} ms`);
  t.true(median(cancelled) < 0.5 * median(full), `cancelled ${median(cancelled)} ms vs full ${median(full)} ms`);
  // The store is unaffected: the same search answers the same afterwards.
  t.is((await store.searchJson(query)).toString(), expected);
});

test.serial('an already-aborted signal rejects immediately, before any work', async (t) => {
  const controller = new AbortController();
  controller.abort();
  const [ms, out] = await timed(() => store.searchJson(query, { signal: controller.signal }));
  t.true(out instanceof StoreError);
  t.true((out as StoreError).cancelled);
  t.true(ms < 50, `${ms} ms`);
  // Writes with an aborted signal do nothing.
  const v = store.commitVersion();
  await rejectsWith(t, store.upsert('big', { records: [{ id: 'late', vector: new Array(DIM).fill(1) }] }, { signal: controller.signal }), 499);
  await rejectsWith(t, store.records('big', { signal: controller.signal }), 499);
  t.is(store.commitVersion(), v);
  t.is((await store.stats()).footprint.doc_count, ROWS);
});

test.serial('aborting after a call settled changes nothing', async (t) => {
  const controller = new AbortController();
  const hits = await store.search(query, { signal: controller.signal });
  controller.abort();
  t.is(hits.length, 10);
  t.deepEqual(await store.search(query), hits);
});

test.serial('concurrent searches: cancelling one leaves the others to finish', async (t) => {
  const controller = new AbortController();
  const a = store.searchJson(query);
  const b = store.searchJson(query, { signal: controller.signal });
  const c = store.searchJson(query);
  setTimeout(() => controller.abort(), 2);
  const [ra, rb, rc] = await Promise.allSettled([a, b, c]);
  t.is(ra.status, 'fulfilled');
  t.is(rc.status, 'fulfilled');
  t.is(rb.status, 'rejected');
  t.true(((rb as PromiseRejectedResult).reason as StoreError).cancelled);
  t.deepEqual((ra as PromiseFulfilledResult<Buffer>).value, (rc as PromiseFulfilledResult<Buffer>).value);
});

test('one Cancellation shared by many concurrent searches: every search answers, each left its plan on the shared token', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  t.teardown(() => store.close());
  const rand = prng(3);
  await store.upsert('c', { records: Array.from({ length: 2000 }, (_, i) => ({ id: `r${i}`, vector: [rand(), rand(), rand(), rand()] })) });
  const cancellation = new Cancellation();
  const answers = await Promise.all(Array.from({ length: 64 }, () => store.search({ query: [rand(), rand(), rand(), rand()], top_k: 3 }, { cancellation })));
  t.true(answers.every((hits) => hits.length === 3));
  t.is(JSON.parse(cancellation.token.planSummary() ?? '{}').path, 'exact');
});
