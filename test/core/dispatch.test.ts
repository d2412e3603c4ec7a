// Where a read runs: a search cheap enough (kInlineMaxBytes of stored data, nothing costlier than
// the scan) runs on the calling thread; everything else goes to the core's query threads and
// settles through one completion queue. Either way the answer is the same bytes.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Cancellation, Store } from '../../lib/index';
import { prng, randomVector, rejectsWith } from './helpers';

const DIM = 128;

async function storeOf(rows: number, seed = 1): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  const rand = prng(seed);
  for (let b = 0; b < rows; b += 1000) {
    const records = Array.from({ length: Math.min(1000, rows - b) }, (_, i) => ({
      id: `r${b + i}`,
      vector: randomVector(rand, DIM),
      attrs: { n: { Int: b + i } },
    }));
    await store.upsert('c', { records });
  }
  return store;
}

const counts = (store: Store) => {
  const { reads_inline, reads_queued } = store.footprintCached();
  return { inline: reads_inline, queued: reads_queued };
};

test('a plain search of a small store runs inline and answers what the queued path answers', async (t) => {
  const store = await storeOf(1000);
  const query = randomVector(prng(2), DIM);
  const before = counts(store);
  const plain = await store.searchJson(Buffer.from(JSON.stringify({ query, top_k: 10 })));
  t.deepEqual(counts(store), { inline: before.inline + 1, queued: before.queued });
  // A filter (even one every row passes) may cost more than the scan: it goes to the query threads.
  const filtered = await store.searchJson(Buffer.from(JSON.stringify({ query, top_k: 10, filter: [{ Ge: ['n', { Int: 0 }] }] })));
  t.deepEqual(counts(store), { inline: before.inline + 1, queued: before.queued + 1 });
  t.is(plain.toString(), filtered.toString());
  await store.close();
});

test('readJson answers a read the core ran inline with its bytes at once, and a queued read with a promise of the same bytes', async (t) => {
  const store = await storeOf(1000);
  t.teardown(() => store.close());
  const query = randomVector(prng(2), DIM);
  const now = store.readJson('search', Buffer.from(JSON.stringify({ query, top_k: 10 })));
  t.true(Buffer.isBuffer(now), 'no promise for an inline read');
  const later = store.readJson('search', Buffer.from(JSON.stringify({ query, top_k: 10, filter: [{ Ge: ['n', { Int: 0 }] }] })));
  t.true(later instanceof Promise, 'a filtered search is queued');
  t.is((await later).toString(), (now as Buffer).toString());
});

test('readJson fails an inline read, a refused body, a cancelled call and an unknown route with a rejected promise, never a throw', async (t) => {
  const store = await storeOf(10);
  t.teardown(() => store.close());
  const query = randomVector(prng(2), DIM);
  const wrongDimension = store.readJson('search', Buffer.from(JSON.stringify({ query: query.slice(1), top_k: 10 })));
  t.true(wrongDimension instanceof Promise);
  await rejectsWith(t, wrongDimension as Promise<Buffer>, 400, 'a query of the wrong dimension');
  const malformed = store.readJson('search', Buffer.from('{"query": ['));
  await rejectsWith(t, malformed as Promise<Buffer>, 400, 'malformed JSON');
  const cancellation = new Cancellation();
  cancellation.cancel();
  const cancelled = store.readJson('search', Buffer.from(JSON.stringify({ query, top_k: 10 })), { cancellation });
  t.true(cancelled instanceof Promise);
  await rejectsWith(t, cancelled as Promise<Buffer>, 499, 'a call cancelled before it began');
  // From JavaScript any string can arrive: one naming another core method must not call it.
  const unknown = store.readJson('close' as 'search', Buffer.from('{}'));
  t.regex((await rejectsWith(t, unknown as Promise<Buffer>, 400, 'an unknown route')).message, /unknown read route 'close'; one of search, /);
  t.is((await store.collections()).length, 1, 'the store is still open');
});

test('a search over more stored data than the inline bound is queued', async (t) => {
  // 2,000 x 128 f32 is 1 MB of vectors, past kInlineMaxBytes (768 KiB).
  const store = await storeOf(2000);
  const before = counts(store);
  const hits = await store.search({ query: randomVector(prng(3), DIM), top_k: 5 });
  t.is(hits.length, 5);
  t.deepEqual(counts(store), { inline: before.inline, queued: before.queued + 1 });
  await store.close();
});

test('/list and /aggregate always run on the query threads', async (t) => {
  const store = await storeOf(10);
  const before = counts(store);
  await store.list({ limit: 3 });
  await store.aggregate({ group_by: 'n' });
  t.deepEqual(counts(store), { inline: before.inline, queued: before.queued + 2 });
  await store.close();
});

test('a text search reading few postings runs inline; a prefix query, or one past the postings bound, is queued', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 0 });
  await store.createCollection('docs');
  await store.setFtsSchema('docs', ['body']);
  // "common" is in every document (5,000 postings, past kInlineMaxPostings); "rare" in ten.
  const records = Array.from({ length: 5000 }, (_, i) => ({ id: `d${i}`, attrs: { body: { Str: `common words ${i % 500 === 0 ? 'rare' : 'plain'}` } } }));
  await store.upsert('docs', { records });
  const run = async (body: object) => {
    const before = counts(store);
    const hits = await store.textSearchJson(Buffer.from(JSON.stringify({ field: 'body', top_k: 5, ...body })));
    const after = counts(store);
    return { where: after.inline > before.inline ? 'inline' : 'queued', hits: JSON.parse(hits.toString()).length };
  };
  t.deepEqual(await run({ query: 'rare' }), { where: 'inline', hits: 5 });
  t.deepEqual(await run({ query: 'common' }), { where: 'queued', hits: 5 });
  t.deepEqual(await run({ query: 'ra', prefix: true }), { where: 'queued', hits: 5 });
  t.deepEqual(await run({ query: 'rare', filter: [{ Eq: ['body', { Str: 'x' }] }] }), { where: 'queued', hits: 0 });
  // The same ranking either way: a filter every document passes sends the query to the threads.
  const inline = await store.textSearchJson(Buffer.from(JSON.stringify({ field: 'body', query: 'rare', top_k: 20 })));
  const queued = await store.textSearchJson(Buffer.from(JSON.stringify({ field: 'body', query: 'rare', top_k: 20, filter: [{ Ne: ['body', { Str: 'x' }] }] })));
  t.is(inline.toString(), queued.toString());
  await store.close();
});

test('a body over 16 KiB is parsed on a query thread: it answers, and a bad one is still a 400', async (t) => {
  const store = await storeOf(10);
  const query = randomVector(prng(4), DIM);
  const padded = (body: object) => Buffer.from(`${JSON.stringify(body)}${' '.repeat(20_000)}`);
  const small = await store.searchJson(Buffer.from(JSON.stringify({ query, top_k: 3 })));
  t.is((await store.searchJson(padded({ query, top_k: 3 }))).toString(), small.toString());
  const e = await rejectsWith(t, store.searchJson(padded({ query, top_k: -1 })), 400);
  t.regex(e.message, /top_k/);
  await store.close();
});

test('thousands of concurrent queued reads all settle, and the event loop keeps turning meanwhile', async (t) => {
  const store = await storeOf(3000);
  const rand = prng(5);
  const bodies = Array.from({ length: 16 }, () => Buffer.from(JSON.stringify({ query: randomVector(rand, DIM), top_k: 10 })));
  const expected = await Promise.all(bodies.map((b) => store.searchJson(b)));
  let turns = 0;
  const ticker = setInterval(() => turns++, 1);
  const results = await Promise.all(Array.from({ length: 4000 }, (_, i) => store.searchJson(bodies[i % 16])));
  clearInterval(ticker);
  t.deepEqual(
    results.map((r) => r.toString()),
    results.map((_, i) => expected[i % 16].toString()),
  );
  t.true(turns > 0, 'timers ran while the reads were queued');
  await store.close();
});

test('a read finishing while earlier reads settle is settled in a later turn of the event loop: a timer due meanwhile runs first', async (t) => {
  const store = await storeOf(3000);
  t.teardown(() => store.close());
  const body = Buffer.from(JSON.stringify({ query: randomVector(prng(7), DIM), top_k: 10 }));
  const order: string[] = [];
  await store.searchJson(body).then(() => {
    // Still settling the first read: the next one is queued and finishes while this turn lasts.
    const next = store.searchJson(body).then(() => order.push('read'));
    setTimeout(() => order.push('timer'), 0);
    const until = performance.now() + 30;
    while (performance.now() < until);
    return next;
  });
  t.deepEqual(order, ['timer', 'read']);
});

test('a queued read settles when fake timers replaced the global setImmediate before the library loaded (jest.useFakeTimers)', async (t) => {
  const lib = path.join(__dirname, '..', '..', 'lib', 'index.js');
  const script = `
    globalThis.setImmediate = () => ({}); // a fake clock that never advances
    const { Store } = require(${JSON.stringify(lib)});
    (async () => {
      const store = await Store.open({ inMemory: true, dimension: 4 });
      const records = Array.from({ length: 20000 }, (_, i) => ({ id: 'r' + i, vector: [1, i, 0, 0], attrs: { n: { Int: i } } }));
      await store.upsert('c', { records });
      const hits = await store.search({ query: [1, 0, 0, 0], top_k: 2, filter: [{ Ge: ['n', { Int: 0 }] }] });
      process.stdout.write('settled ' + hits.length);
      process.exit(0);
    })();`;
  t.is(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 }), 'settled 2');
});

test('a read still queued keeps the process alive until it settles', async (t) => {
  // Nothing else holds the event loop: without the completion queue's reference the process would
  // exit before printing.
  const lib = path.join(__dirname, '..', '..', 'lib', 'index.js');
  const script = `
    const { Store } = require(${JSON.stringify(lib)});
    (async () => {
      const store = await Store.open({ inMemory: true, dimension: 4 });
      await store.upsert('c', { records: [{ id: 'a', vector: [1, 0, 0, 0] }] });
      const hits = await store.list({});
      process.stdout.write('settled ' + JSON.stringify(hits.map((h) => h.id)));
    })();`;
  t.is(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }), 'settled ["a"]');
});

test('reads queued when the store closes still settle', async (t) => {
  const store = await storeOf(3000);
  const body = Buffer.from(JSON.stringify({ query: randomVector(prng(6), DIM), top_k: 10 }));
  const pending = Array.from({ length: 200 }, () =>
    store.searchJson(body).then(
      () => 'answered',
      (e) => `refused ${e.status}`,
    ),
  );
  await store.close();
  const outcomes = new Set(await Promise.all(pending));
  t.true(
    [...outcomes].every((o) => o === 'answered' || o === 'refused 503'),
    [...outcomes].join(', '),
  );
});
