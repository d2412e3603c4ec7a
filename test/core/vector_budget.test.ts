// The allocation guard (spec Errors 507, Limits "vector memory"): maxVectorBytes refuses a batch that
// would take the store's vector bytes past it, whole and before anything changes; running out of
// memory during a write is a 507 too, never a crash.
import test from 'ava';
import { Store } from '../../lib/index';
import { Child, rejectsWith, tempDir } from './helpers';

const DIM = 4;
const ROW = DIM * 4; // bytes of one row's vector slot
const recs = (ids: string[], extra: object = {}) => ({ records: ids.map((id, i) => ({ id, vector: [1, i + 1, 2, 3], ...extra })) });
const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

test('maxVectorBytes refuses the whole batch that would pass it with 507 naming the limit; nothing changes', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM, maxVectorBytes: 10 * ROW });
  t.deepEqual(await store.upsert('c', recs(ids('a', 8))), { upserted: 8 });
  const before = { stats: await store.stats(), version: store.commitVersion(), records: await store.records('c') };

  // Room for two more rows, and a batch of three: none of it is written.
  const e = await rejectsWith(t, store.upsert('c', recs(ids('b', 3))), 507);
  for (const part of ['max_vector_bytes 160', 'maxVectorBytes', '--max-vector-bytes', 'holds 128', 'brings 48', 'nothing was written'])
    t.true(e.message.includes(part), `${part}: ${e.message}`);
  t.deepEqual({ stats: await store.stats(), version: store.commitVersion(), records: await store.records('c') }, before);

  // An overwrite takes a new row too (the old one is dead until compaction), so it counts.
  t.deepEqual(await store.upsert('c', recs(['a0', 'a1'])), { upserted: 2 });
  t.like((await store.stats()).footprint, { rows: 10, dead_rows: 2, vector_bytes: 10 * ROW, doc_count: 8 });
  await rejectsWith(t, store.upsert('c', recs(['a2'])), 507, 'full: even one overwrite');
  await rejectsWith(t, store.upsert('d', recs(['x'])), 507, 'the limit is the whole store, not per collection');
  // Writes that bring no vector bytes still pass, and so does a record-free batch.
  t.deepEqual(await store.delete('c', { ids: ['a3'] }), { deleted: 1 });
  t.deepEqual(await store.createCollection('e'), { created: 'e' });
  t.deepEqual(await store.upsert('c', { records: [] }), { upserted: 0 });
  t.is(store.poisoned(), null);
});

test('compaction gives back the room overwrites took', async (t) => {
  for (const options of [{ inMemory: true }, { path: tempDir() }]) {
    const store = await Store.open({ ...options, dimension: DIM, maxVectorBytes: 6 * ROW });
    await store.upsert('c', recs(ids('a', 4)));
    await store.upsert('c', recs(['a0', 'a1']));
    await rejectsWith(t, store.upsert('c', recs(['a2'])), 507, `${JSON.stringify(options)}: full of dead rows`);
    t.deepEqual(await store.compact(), { ok: true });
    t.like((await store.stats()).footprint, { rows: 4, dead_rows: 0 });
    t.deepEqual(await store.upsert('c', recs(['a2', 'a3'])), { upserted: 2 }, `${JSON.stringify(options)}: after compact`);
    await store.close();
  }
});

test('named vectors count: each named-vector column holds a slot per row', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM, maxVectorBytes: 3 * ROW });
  await store.createCollection('c');
  await store.setVectorNames('c', ['title']);
  t.deepEqual(await store.upsert('c', recs(['a'], { vectors: { title: [0, 1, 0, 0] } })), { upserted: 1 });
  t.is((await store.stats()).footprint.vector_bytes, ROW, 'footprint counts the default slot only');
  // Held: a's slot and its title slot (2 x ROW). One more row brings ROW, and its title another ROW.
  const e = await rejectsWith(t, store.upsert('c', recs(['b'], { vectors: { title: [0, 0, 1, 0] } })), 507);
  t.true(e.message.includes(`holds ${2 * ROW}`) && e.message.includes(`brings ${2 * ROW}`), e.message);
  t.deepEqual(await store.upsert('c', recs(['b'])), { upserted: 1 });
});

test('the guard holds across reopening a durable store, and only while the opener sets it', async (t) => {
  const dir = tempDir();
  let store = await Store.open({ path: dir, dimension: DIM, maxVectorBytes: 4 * ROW });
  await store.upsert('c', recs(ids('a', 3)));
  await store.flush(); // the rows are in a sealed segment now
  await store.close();
  store = await Store.open({ path: dir, maxVectorBytes: 4 * ROW });
  await rejectsWith(t, store.upsert('c', recs(ids('b', 2))), 507, 'sealed rows are held too');
  t.deepEqual(await store.upsert('c', recs(['b0'])), { upserted: 1 });
  await store.close();
  store = await Store.open({ path: dir });
  t.deepEqual(await store.upsert('c', recs(ids('z', 100))), { upserted: 100 }, 'no limit unless one is set');
  t.is((await store.records('c')).length, 104, 'the refused batch never reached the log');
  await store.close();
});

test('maxVectorBytes must be a whole number of bytes: anything else is a 400 naming it', async (t) => {
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 60, '100' as unknown as number]) {
    const e = await rejectsWith(t, Store.open({ inMemory: true, dimension: DIM, maxVectorBytes: bad }), 400, String(bad));
    t.true(e.message.includes('maxVectorBytes'), e.message);
  }
});

test('running out of memory while a write is prepared is a 507 for that batch only; while it is applied, a 507 that poisons', async (t) => {
  const dir = tempDir();
  const child = new Child({ TESSERA_TEST_FAULTS: '1' });
  try {
    await child.call('open', { options: { path: dir, dimension: 2 } });
    await child.call('upsert', { collection: 'c', body: '{"records":[{"id":"a","vector":[1,0]}]}' });

    await child.call('inject', { fault: 'oom-preparing-next-write' });
    const prepared = await child.send('upsert', { collection: 'c', body: '{"records":[{"id":"b","vector":[0,1]}]}' });
    t.like(prepared, { ok: false, status: 507 });
    t.regex(prepared.message ?? '', /out of memory.*nothing was written/);
    t.is(await child.call('poisoned'), null, 'nothing was applied, so nothing is suspect');
    t.deepEqual(await child.call('upsert', { collection: 'c', body: '{"records":[{"id":"c","vector":[0,1]}]}' }), { upserted: 1 });

    await child.call('inject', { fault: 'oom-applying-next-write' });
    const applied = await child.send('upsert', { collection: 'c', body: '{"records":[{"id":"d","vector":[1,1]}]}' });
    t.like(applied, { ok: false, status: 507 });
    t.regex(applied.message ?? '', /poisoned: out of memory/);
    t.regex(await child.call('poisoned'), /out of memory/);
    t.like(await child.send('upsert', { collection: 'c', body: '{"records":[{"id":"e","vector":[1,1]}]}' }), { ok: false, status: 503 });
    t.deepEqual(
      JSON.parse(await child.call('records', { collection: 'c' }))
        .map((r: { id: string }) => r.id)
        .sort(),
      ['a', 'c'],
      'reads still work',
    );
  } finally {
    await child.kill();
  }
});
