// /stats footprint reports the bytes of each structure a sealed segment keeps beside its f32 rows
// (issue 51): the quantized codes, the graph or lists, the id index.
import test from 'ava';
import { type OpenOptions, Store } from '../../lib/index';
import { genBatchBody, tempDir } from './helpers';

const DIM = 16;
const ROWS = 3000;
/** Int8 codes: dim + 8 bytes a row, after one header (index/quantized_codes.h). */
const INT8_ROW = DIM + 8;
const HEADER_BOUND = 4096;

async function sealedStore(options: OpenOptions): Promise<Store> {
  const store = await Store.open({ path: tempDir('footprint'), dimension: DIM, ...options });
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
