// Opening a store: the header pins dimension and metric, the writer lock makes other processes
// Readers, readOnly never locks, in-memory stores touch no disk, poisoning stops writes, close.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store, StoreError } from '../../lib/index';
import { Child, fileMappings, rejectsWith, tempDir } from './helpers';

test('reopening with another dimension is a 400 StoreError naming both values', async (t) => {
  const dir = tempDir();
  const store = await Store.open({ path: dir, dimension: 4 });
  await store.close();
  const e = await rejectsWith(t, Store.open({ path: dir, dimension: 7 }), 400);
  t.regex(e.message, /\b4\b/);
  t.regex(e.message, /\b7\b/);
  t.regex(e.message, /dimension/);
});

test('reopening with another metric is a 400 StoreError naming both values', async (t) => {
  for (const [first, second] of [
    ['Cosine', 'Euclidean'],
    ['Euclidean', 'DotProduct'],
    ['DotProduct', 'Cosine'],
  ] as const) {
    const dir = tempDir();
    const store = await Store.open({ path: dir, dimension: 4, distance: first });
    await store.close();
    const e = await rejectsWith(t, Store.open({ path: dir, dimension: 4, distance: second }), 400, `${first} then ${second}`);
    t.true(e.message.includes(first), e.message);
    t.true(e.message.includes(second), e.message);
  }
});

test('the default metric is Cosine: reopening a default store as Euclidean fails', async (t) => {
  const dir = tempDir();
  const store = await Store.open({ path: dir, dimension: 3 });
  t.is(store.distance, 'Cosine');
  await store.close();
  await rejectsWith(t, Store.open({ path: dir, distance: 'Euclidean' }), 400);
});

test('reopening with no dimension or distance uses the header', async (t) => {
  const dir = tempDir();
  let store = await Store.open({ path: dir, dimension: 5, distance: 'DotProduct' });
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 2, 3, 4, 5] }] });
  await store.close();
  store = await Store.open({ path: dir });
  t.is(store.dimension, 5);
  t.is(store.distance, 'DotProduct');
  const stats = await store.stats();
  t.is(stats.dimension, 5);
  t.is(stats.distance, 'DotProduct');
  t.is((await store.search({ query: [1, 1, 1, 1, 1] }))[0].score, 15);
  await store.close();
  // Matching values are fine too.
  store = await Store.open({ path: dir, dimension: 5, distance: 'DotProduct' });
  t.is(store.role, 'Writer');
  await store.close();
});

test('bad open options are 400 StoreErrors', async (t) => {
  await rejectsWith(t, Store.open({}), 400, 'no path, not in memory');
  await rejectsWith(t, Store.open({ path: tempDir() }), 400, 'a new store without a dimension');
  await rejectsWith(t, Store.open({ inMemory: true }), 400, 'in memory without a dimension');
  await rejectsWith(t, Store.open({ inMemory: true, dimension: -1 }), 400, 'negative dimension');
  await rejectsWith(t, Store.open({ inMemory: true, dimension: 1.5 }), 400, 'fractional dimension');
  await rejectsWith(t, Store.open({ inMemory: true, dimension: 4, distance: 'Manhattan' as 'Cosine' }), 400, 'unknown metric');
  await rejectsWith(t, Store.open({ inMemory: true, dimension: 4, queryThreads: 0 }), 400, 'zero threads');
});

test('open options are reflected on the handle and in stats', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: 3, distance: 'Euclidean', queryThreads: 3, mmap: false });
  t.is(store.role, 'Writer');
  t.is(store.writerHolder, null);
  t.is(store.queryThreads, 3);
  t.is(store.mmap, false);
  const stats = await store.stats();
  t.like(stats, { dimension: 3, distance: 'Euclidean', query_threads: 3, mmap: false, collections: [] });
  t.like(stats, { ann: { kind: 'Hnsw' }, quantization: { kind: 'Int8' } }, 'a new store on disk indexes by default');
  t.is(typeof stats.kernels, 'string');
  await store.close();
});

test('a store opened with mmap off answers the same as with mmap on', async (t) => {
  const dir = tempDir();
  let store = await Store.open({ path: dir, dimension: 3, distance: 'Euclidean' });
  await store.upsert('c', { records: Array.from({ length: 50 }, (_, i) => ({ id: `r${i}`, vector: [i, i % 7, 1] })) });
  await store.close();
  const answers = [];
  for (const mmap of [true, false]) {
    store = await Store.open({ path: dir, mmap });
    answers.push({ hits: await store.search({ query: [10, 3, 1], top_k: 50 }), records: await store.records('c') });
    await store.close();
  }
  t.deepEqual(answers[0], answers[1]);
  t.is(answers[0].hits[0].id, 'r10');
});

test('a sealed segment keeps its records in its mapped rows file with mmap on, and reads them into memory with mmap off', async (t) => {
  const dir = tempDir();
  let store = await Store.open({ path: dir, dimension: 2, distance: 'Euclidean' });
  await store.upsert('c', { records: Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, vector: [i, 1], attrs: { n: { Int: i } } })) });
  await store.flush();
  await store.close();
  // Counted before and after each open: a closed store's mappings may outlive close() until its handle is collected.
  const real = fs.realpathSync(dir);
  const rowsMappings = () => fileMappings(real).filter((m) => m.file.endsWith('.rows')).length;
  for (const mmap of [false, true]) {
    const before = rowsMappings();
    store = await Store.open({ path: dir, mmap });
    try {
      t.is(rowsMappings() - before, mmap ? 1 : 0, `mmap ${mmap}`);
      t.deepEqual(await store.get('c', ['r7']), [{ id: 'r7', attrs: { n: { Int: 7n } } }]);
    } finally {
      await store.close();
    }
  }
});

// Walks and rescores read rows at random: a file mapped in 4 KiB pages costs a TLB miss per row.
const thp = fs.existsSync('/sys/kernel/mm/transparent_hugepage/enabled');
(thp ? test : test.skip)('a mapped file of 2 MiB or more asks for huge pages (MADV_HUGEPAGE); a smaller one does not', async (t) => {
  const dir = tempDir();
  const dim = 256;
  const store = await Store.open({ path: dir, dimension: dim, distance: 'Euclidean' });
  try {
    const rows = 2304; // 2.25 MiB of vectors
    await store.upsert('c', {
      records: Array.from({ length: rows }, (_, i) => ({ id: `r${i}`, vector: Array.from({ length: dim }, (_, j) => ((i * 31 + j) % 97) / 97) })),
    });
    await store.flush();
    t.is((await store.search({ query: Array(dim).fill(0.5), top_k: 1 })).length, 1);
    const flags = new Map(fileMappings(fs.realpathSync(dir)).map((m) => [m.file, m.flags]));
    const vec = [...flags.keys()].find((f) => f.endsWith('.vec'));
    const cols = [...flags.keys()].find((f) => f.endsWith('.cols'));
    t.truthy(vec, `no .vec file mapped: ${[...flags.keys()].join(', ')}`);
    t.true(flags.get(vec!)!.includes('hg'), `${vec}: ${flags.get(vec!)!.join(' ')}`);
    t.truthy(cols, `no .cols file mapped: ${[...flags.keys()].join(', ')}`);
    t.false(flags.get(cols!)!.includes('hg'));
  } finally {
    await store.close();
  }
});

// ---- the writer lock ----

test('a second process opening a locked store becomes a Reader naming the holder: reads work, writes are 409', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: 2, distance: 'Euclidean' });
  await writer.upsert('c', { records: [{ id: 'a', vector: [1, 2] }] });
  const child = new Child();
  try {
    const info = await child.call('open', { options: { path: dir } });
    t.is(info.role, 'Reader');
    t.truthy(info.writerHolder);
    t.true(String(info.writerHolder).includes(String(process.pid)), `writerHolder ${info.writerHolder} names pid ${process.pid}`);
    t.is(info.dimension, 2);
    const hits = JSON.parse(await child.call('searchJson', { body: '{"query":[1,2]}' }));
    t.deepEqual(
      hits.map((h: { id: string }) => h.id),
      ['a'],
    );
    t.deepEqual(
      JSON.parse(await child.call('records', { collection: 'c' })).map((r: { id: string }) => r.id),
      ['a'],
    );
    t.deepEqual(await child.call('collections'), ['c']);
    for (const [op, args] of [
      ['upsert', { collection: 'c', body: '{"records":[{"id":"b","vector":[1,1]}]}' }],
      ['delete', { collection: 'c', ids: ['a'] }],
      ['createCollection', { collection: 'd' }],
      ['putMeta', { collection: 'c', meta: { a: 'b' } }],
      ['putAlias', { name: 'al', target: 'c' }],
      ['setVectorNames', { collection: 'c', names: ['t'] }],
      ['flush', {}],
    ] as const) {
      const r = await child.send(op, args);
      t.false(r.ok, op);
      t.is(r.status, 409, `${op}: ${r.message}`);
      t.true(r.message?.includes(String(process.pid)), `${op} names the holder: ${r.message}`);
    }
    t.deepEqual(
      (await writer.records('c')).map((r) => r.id),
      ['a'],
      'nothing changed',
    );
  } finally {
    await child.kill();
    await writer.close();
  }
});

test('the writer lock is released by close(): the next open is a Writer', async (t) => {
  const dir = tempDir();
  const a = await Store.open({ path: dir, dimension: 2 });
  await a.close();
  const child = new Child();
  try {
    t.is((await child.call('open', { options: { path: dir } })).role, 'Writer');
    t.deepEqual(await child.call('upsert', { collection: 'c', body: '{"records":[{"id":"x","vector":[1,1]}]}' }), { upserted: 1 });
  } finally {
    await child.kill();
  }
});

test('the writer lock dies with its process: after the writer is killed a new open is a Writer', async (t) => {
  const dir = tempDir();
  const child = new Child();
  t.is((await child.call('open', { options: { path: dir, dimension: 2 } })).role, 'Writer');
  const reader = await Store.open({ path: dir });
  t.is(reader.role, 'Reader');
  await child.kill();
  const store = await Store.open({ path: dir });
  t.is(store.role, 'Writer');
  await store.close();
  await reader.close();
});

test('readOnly: true opens without the lock (even while a writer holds it) and every write is 403', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: 2 });
  await writer.upsert('c', { records: [{ id: 'a', vector: [1, 0] }] });
  await writer.flush();
  const ro = await Store.open({ path: dir, readOnly: true });
  t.is(ro.role, 'Reader');
  t.is(ro.writerHolder, null);
  t.deepEqual(
    (await ro.records('c')).map((r) => r.id),
    ['a'],
  );
  t.deepEqual(
    (await ro.search({ query: [1, 0] })).map((h) => h.id),
    ['a'],
  );
  await rejectsWith(t, ro.upsert('c', { records: [{ id: 'b', vector: [1, 0] }] }), 403, 'upsert');
  await rejectsWith(t, ro.delete('c', { ids: ['a'] }), 403, 'delete');
  await rejectsWith(t, ro.createCollection('d'), 403, 'create');
  await rejectsWith(t, ro.dropCollection('c'), 403, 'drop');
  await rejectsWith(t, ro.putMeta('c', { a: 'b' }), 403, 'meta');
  await rejectsWith(t, ro.putAlias('al', 'c'), 403, 'alias');
  await rejectsWith(t, ro.setVectorNames('c', ['t']), 403, 'vector names');
  await rejectsWith(t, ro.flush(), 403, 'flush');
  // The writer still writes: readOnly took no lock.
  t.deepEqual(await writer.upsert('c', { records: [{ id: 'b', vector: [0, 1] }] }), { upserted: 1 });
  await ro.close();
  await writer.close();
  // With no writer at all, readOnly still refuses writes and still takes no lock.
  const ro2 = await Store.open({ path: dir, readOnly: true });
  await rejectsWith(t, ro2.upsert('c', { records: [{ id: 'z', vector: [1, 0] }] }), 403);
  const w2 = await Store.open({ path: dir });
  t.is(w2.role, 'Writer');
  await w2.close();
  await ro2.close();
});

test('a read-only open beside a writer is not refused for a file the writer renamed or swept meanwhile', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: 2 });
  await writer.upsert('c', { records: [{ id: 'a', vector: [1, 0] }] });
  await writer.flush();
  // A dangling link is listed but gone when checked, as a .tmp the writer renamed after the listing.
  fs.symlinkSync(path.join(dir, 'gone'), path.join(dir, 'seg-99.ids.tmp'));
  const ro = await Store.open({ path: dir, readOnly: true });
  t.deepEqual(
    (await ro.records('c')).map((r) => r.id),
    ['a'],
  );
  await ro.close();
  await writer.close();
});

test('readOnly on a directory with no store is an error, not a new store', async (t) => {
  const dir = tempDir();
  const e = await t.throwsAsync(Store.open({ path: dir, readOnly: true, dimension: 2 }));
  t.true(e instanceof StoreError);
  t.false(fs.existsSync(path.join(dir, 'HEADER')));
});

// ---- in memory ----

test('an in-memory store works with role InMemory and writes nothing to disk', async (t) => {
  const cwd = tempDir();
  const child = new Child({ TMPDIR: cwd, HOME: cwd }, cwd);
  try {
    const info = await child.call('open', { options: { inMemory: true, dimension: 4 } });
    t.is(info.role, 'InMemory');
    t.is(info.writerHolder, null);
    await child.call('upsert', { collection: 'c', body: '{"records":[{"id":"a","vector":[1,2,3,4],"attrs":{"i":{"Int":9223372036854775807}}}]}' });
    await child.call('putMeta', { collection: 'c', meta: { k: 'v' } });
    await child.call('putAlias', { name: 'al', target: 'c' });
    await child.call('delete', { collection: 'c', ids: ['nope'] });
    t.true((await child.call('searchJson', { body: '{"query":[1,2,3,4]}' })).includes('9223372036854775807'));
    t.deepEqual(await child.call('flush'), { ok: true });
    const stats = await child.call('stats');
    t.is(stats.footprint.doc_count, 1);
    t.is(await child.call('commitVersion'), 4);
    await child.call('close');
  } finally {
    await child.kill();
  }
  t.deepEqual(fs.readdirSync(cwd), [], 'nothing was written in the working or temp directory');
});

test('in-memory stores are independent of each other', async (t) => {
  const a = await Store.open({ inMemory: true, dimension: 2 });
  const b = await Store.open({ inMemory: true, dimension: 2 });
  await a.upsert('c', { records: [{ id: 'x', vector: [1, 0] }] });
  t.deepEqual(await b.collections(), []);
  t.is(a.role, 'InMemory');
});

// ---- poisoning ----

test('poisoning: after an injected write fault the write is 503, poisoned() explains, later writes are 503, reads still work', async (t) => {
  const dir = tempDir();
  const child = new Child({ TESSERA_TEST_FAULTS: '1' });
  try {
    await child.call('open', { options: { path: dir, dimension: 2 } });
    await child.call('upsert', { collection: 'c', body: '{"records":[{"id":"a","vector":[1,0]}]}' });
    t.is(await child.call('poisoned'), null);
    await child.call('inject');
    const r = await child.send('upsert', { collection: 'c', body: '{"records":[{"id":"b","vector":[0,1]}]}' });
    t.false(r.ok);
    t.is(r.status, 503, r.message);
    const why = await child.call('poisoned');
    t.is(typeof why, 'string');
    t.true(why.length > 0);
    for (const [op, args] of [
      ['upsert', { collection: 'c', body: '{"records":[{"id":"c","vector":[1,1]}]}' }],
      ['delete', { collection: 'c', ids: ['a'] }],
      ['createCollection', { collection: 'd' }],
      ['putMeta', { collection: 'c', meta: {} }],
      ['flush', {}],
    ] as const) {
      const w = await child.send(op, args);
      t.false(w.ok, op);
      t.is(w.status, 503, `${op}: ${w.message}`);
    }
    t.deepEqual(
      JSON.parse(await child.call('records', { collection: 'c' })).map((x: { id: string }) => x.id),
      ['a'],
      'reads work and show only the committed record',
    );
    t.deepEqual(
      JSON.parse(await child.call('searchJson', { body: '{"query":[1,0]}' })).map((x: { id: string }) => x.id),
      ['a'],
    );
    t.is((await child.call('stats')).footprint.doc_count, 1);
    t.is(await child.call('poisoned'), why, 'the poison never clears');
  } finally {
    await child.kill();
  }
  // The failed batch never reached the log: a fresh process sees only the committed record.
  const store = await Store.open({ path: dir });
  t.deepEqual(
    (await store.records('c')).map((r) => r.id),
    ['a'],
  );
  t.is(store.poisoned(), null);
  await store.close();
});

test('without TESSERA_TEST_FAULTS=1, _injectFault throws', async (t) => {
  t.not(process.env.TESSERA_TEST_FAULTS, '1');
  const store = await Store.open({ inMemory: true, dimension: 2 });
  const e = t.throws(() => store._injectFault('poison-next-write'));
  t.true(e instanceof StoreError);
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 0] }] });
  t.is(store.poisoned(), null);
});

// ---- close ----

test('after close() writes are 503 and the handle can be closed again', async (t) => {
  const dir = tempDir();
  const store = await Store.open({ path: dir, dimension: 2 });
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 0] }] });
  await store.close();
  await rejectsWith(t, store.upsert('c', { records: [{ id: 'b', vector: [1, 0] }] }), 503, 'upsert');
  await rejectsWith(t, store.delete('c', { ids: ['a'] }), 503, 'delete');
  await rejectsWith(t, store.createCollection('d'), 503, 'create');
  await t.notThrowsAsync(store.close());
});

test('after close() every later call fails with 503, reads included (as Store.close documents)', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: 2 });
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 0] }] });
  await store.close();
  await rejectsWith(t, store.search({ query: [1, 0] }), 503, 'search');
  await rejectsWith(t, store.records('c'), 503, 'records');
  await rejectsWith(t, store.collections(), 503, 'collections');
  await rejectsWith(t, store.stats(), 503, 'stats');
  await rejectsWith(t, store.flush(), 503, 'flush');
});
