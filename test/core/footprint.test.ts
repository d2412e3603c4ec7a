// /stats footprint reports the bytes of each structure a sealed segment keeps beside its f32 rows
// (issue 51): the quantized codes, the graph or lists, the id index.
import test from 'ava';
import * as fs from 'node:fs';
import { type OpenOptions, Store } from '../../lib/index';
import { Child, fileMappings, genBatchBody, tempDir } from './helpers';

const DIM = 16;
const ROWS = 3000;
/** Int8 codes: dim + 8 bytes a row, after one header (index/quantized_codes.h). */
const INT8_ROW = DIM + 8;
const HEADER_BOUND = 4096;

async function sealedStore(options: OpenOptions, dir = tempDir('footprint')): Promise<Store> {
  const store = await Store.open({ path: dir, dimension: DIM, ...options });
  await store.upsert('a', Buffer.from(genBatchBody('r', 0, ROWS, DIM)));
  await store.flush();
  await store.waitForIndexes();
  return store;
}

test('footprint counts Int8 codes at dim + 8 bytes a row, the graph, and the id index of sealed segments', async (t) => {
  const store = await sealedStore({ ann: 'hnsw', quantization: 'int8' });
  t.teardown(() => store.close());
  const { footprint } = await store.stats();
  t.is(footprint.rows, ROWS);
  t.true(footprint.code_bytes >= ROWS * INT8_ROW && footprint.code_bytes < ROWS * INT8_ROW + HEADER_BOUND, `${footprint.code_bytes}`);
  // Every row has at least its level-0 neighbour count.
  t.true(footprint.ann_index_bytes > ROWS * 4, `${footprint.ann_index_bytes}`);
  t.true(footprint.id_index_bytes >= ROWS * 4, `${footprint.id_index_bytes}`);
});

test('footprint reports no codes and no graph when the store runs without them, and none before a segment seals', async (t) => {
  const exact = await sealedStore({ ann: 'none', quantization: 'none' });
  t.teardown(() => exact.close());
  t.like((await exact.stats()).footprint, { rows: ROWS, code_bytes: 0, ann_index_bytes: 0 });
  t.true((await exact.stats()).footprint.id_index_bytes > 0, 'a sealed segment has its id index whatever the vector settings');

  const unsealed = await Store.open({ path: tempDir('footprint'), dimension: DIM, ann: 'hnsw', quantization: 'int8' });
  t.teardown(() => unsealed.close());
  await unsealed.upsert('a', Buffer.from(genBatchBody('r', 0, 100, DIM)));
  t.like((await unsealed.stats()).footprint, { rows: 100, code_bytes: 0, ann_index_bytes: 0, id_index_bytes: 0 });
});

test('a store reopened holds no live-id table until its first write, which maps every live id: an upsert replaces, a delete removes', async (t) => {
  const dir = tempDir('footprint');
  await (await sealedStore({}, dir)).close();
  const store = await Store.open({ path: dir });
  t.teardown(() => store.close());
  t.like((await store.stats()).footprint, { rows: ROWS, doc_count: ROWS, live_id_table_bytes: 0 });
  t.is((await store.get('a', ['r-5']))[0].id, 'r-5', 'gets read the id indexes');

  // Every stored vector leans far along +x (genVector): this one, along -x, is nobody else's nearest.
  const moved = Array.from({ length: DIM }, (_, k) => (k === 0 ? -1 : 0));
  await store.upsert('a', { records: [{ id: 'r-5', vector: moved }] });
  await store.delete('a', { ids: ['r-6'] });
  const { footprint } = await store.stats();
  t.like(footprint, { rows: ROWS + 1, dead_rows: 2, doc_count: ROWS - 1 });
  // At most half full, a power of two slots of 16 bytes.
  t.true(footprint.live_id_table_bytes >= 2 * ROWS * 16 && footprint.live_id_table_bytes <= 4 * ROWS * 16, `${footprint.live_id_table_bytes}`);
  const hits = await store.search({ query: moved, top_k: 10, exact: true });
  t.is(hits[0].id, 'r-5');
  const live = await store.records('a');
  t.is(live.length, ROWS - 1);
  t.is(live.filter((r) => r.id === 'r-5').length, 1, 'the replaced row is not live');
  t.deepEqual(await store.get('a', ['r-6']), []);
});

test("a sealed segment's records file is not resident after open: its checksum's pages are let go of", async (t) => {
  // Written by another process: a closed store's maps stay in this one until its object is collected.
  const dir = tempDir('footprint');
  const writer = new Child();
  await writer.call('open', { options: { path: dir, dimension: DIM } });
  await writer.call('upsertGen', { collection: 'a', tag: 'r', start: 0, count: ROWS, dim: DIM });
  await writer.call('flush');
  await writer.call('waitForIndexes');
  await writer.call('close');
  await writer.kill();
  const store = await Store.open({ path: dir, readOnly: true });
  t.teardown(() => store.close());
  const records = () => fileMappings(fs.realpathSync(dir)).filter((m) => m.file.endsWith('.rows'));
  t.true(records().length > 0, 'the records file is mapped');
  t.is(
    records().reduce((sum, m) => sum + m.rssKiB, 0),
    0,
  );
  t.is((await store.get('a', ['r-1']))[0].id, 'r-1', 'a read maps the records it touches');
});

test("a writer's records files are not resident after a flush: sealing, indexing and the live-id table each let go of what they read", async (t) => {
  const dir = fs.realpathSync(tempDir('footprint'));
  const store = await sealedStore({}, dir);
  t.teardown(() => store.close());
  t.true((await store.stats()).footprint.live_id_table_bytes > 0, 'the writer wrote: its table is mapped');
  const records = fileMappings(dir).filter((m) => m.file.endsWith('.rows'));
  t.true(records.length > 0, 'the records file is mapped');
  t.is(
    records.reduce((sum, m) => sum + m.rssKiB, 0),
    0,
  );
});
