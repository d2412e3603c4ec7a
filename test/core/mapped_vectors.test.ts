// mappedVectorBytes (issue 51, README "Vector memory"): with quantization and mmap, the sealed f32
// rows stay mapped while they total at most the bound; past it a rescore reads the rows it needs
// from their files, and the rows leave the resident set.
import test from 'ava';
import * as fs from 'node:fs';
import { type OpenOptions, Store } from '../../lib/index';
import { fileMappings, genBatchBody, genVector, rejectsWith, tempDir } from './helpers';

const DIM = 16;
const ROWS = 3000;
const SEALED_VECTOR_BYTES = ROWS * DIM * 4;
const QUERIES = Array.from({ length: 50 }, (_, i) => genVector(ROWS + 7 * i, DIM));

async function sealedStore(dir: string, options: OpenOptions): Promise<Store> {
  const store = await Store.open({ path: dir, dimension: DIM, ann: 'hnsw', quantization: 'int8', ...options });
  await store.upsert('a', Buffer.from(genBatchBody('r', 0, ROWS, DIM)));
  await store.flush();
  await store.waitForIndexes();
  return store;
}

async function answers(store: Store) {
  const out = [];
  for (const query of QUERIES) {
    const { hits, plan } = await store.search({ query, top_k: 10, plan: true });
    out.push({ hits: hits.map((h) => [h.id, h.score]), rescored: plan.rows_rescored ?? 0 });
  }
  return out;
}

/** KiB of the store's f32 row files (seg-N.vec) this process has resident. */
const residentRowsKiB = (dir: string) =>
  fileMappings(fs.realpathSync(dir))
    .filter((m) => m.file.endsWith('.vec'))
    .reduce((sum, m) => sum + m.rssKiB, 0);

test('past mappedVectorBytes a rescore reads sealed rows from their files: the answers are the mapped store answers', async (t) => {
  const dir = tempDir('mapped');
  let store = await sealedStore(dir, { mappedVectorBytes: 0 });
  t.is((await store.stats()).footprint.vector_bytes_read_from_files, SEALED_VECTOR_BYTES);
  const fromFiles = await answers(store);
  t.true(
    fromFiles.every((a) => a.rescored > 0),
    'every query rescored rows',
  );
  await store.close();

  store = await Store.open({ path: dir, readOnly: true });
  t.teardown(() => store.close());
  t.is((await store.stats()).footprint.vector_bytes_read_from_files, 0, 'under the default bound (256 MiB) the rows are mapped');
  t.deepEqual(await answers(store), fromFiles);
});

test('rows read from files stay out of the resident set; mapped rows a rescore touched are in it', async (t) => {
  const bounded = tempDir('mapped');
  const store = await sealedStore(bounded, { mappedVectorBytes: 0 });
  t.teardown(() => store.close());
  await answers(store);
  t.is(residentRowsKiB(bounded), 0);

  const mapped = tempDir('mapped');
  const inPlace = await sealedStore(mapped, {});
  t.teardown(() => inPlace.close());
  await answers(inPlace);
  t.true(residentRowsKiB(mapped) > 0, 'a mapped store maps the rows its rescores read');
});

test('an exact scan past the bound lets go of the rows it mapped', async (t) => {
  const dir = tempDir('mapped');
  const store = await sealedStore(dir, { mappedVectorBytes: 0 });
  t.teardown(() => store.close());
  const { plan } = await store.search({ query: QUERIES[0], top_k: 10, exact: true, plan: true });
  t.is(plan.path, 'exact');
  t.is(residentRowsKiB(dir), 0);
});

test('the bound is inclusive: sealed rows totalling exactly mappedVectorBytes stay mapped, one byte more are read from files', async (t) => {
  const at = await sealedStore(tempDir('mapped'), { mappedVectorBytes: SEALED_VECTOR_BYTES });
  t.teardown(() => at.close());
  t.is((await at.stats()).footprint.vector_bytes_read_from_files, 0);
  const past = await sealedStore(tempDir('mapped'), { mappedVectorBytes: SEALED_VECTOR_BYTES - 1 });
  t.teardown(() => past.close());
  t.is((await past.stats()).footprint.vector_bytes_read_from_files, SEALED_VECTOR_BYTES);
});

test('without codes, or with mmap off, the rows are never read from files (a walk reads them, or they are in memory)', async (t) => {
  for (const options of [{ quantization: 'none' }, { mmap: false }] as OpenOptions[]) {
    const store = await sealedStore(tempDir('mapped'), { mappedVectorBytes: 0, ...options });
    t.is((await store.stats()).footprint.vector_bytes_read_from_files, 0, JSON.stringify(options));
    t.is((await store.search({ query: QUERIES[0], top_k: 3 })).length, 3);
    await store.close();
  }
});

test('mappedVectorBytes must be a whole number of bytes', async (t) => {
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) {
    const err = await rejectsWith(t, Store.open({ path: tempDir('mapped'), dimension: DIM, mappedVectorBytes: bad }), 400, String(bad));
    t.regex(err.message, /mappedVectorBytes must be a whole number of bytes/);
  }
});

test('a vectors file cut short under a store reading from files: a rescore fails naming the file, and the store serves on', async (t) => {
  const dir = tempDir('mapped');
  const store = await sealedStore(dir, { mappedVectorBytes: 0 });
  t.teardown(() => store.close());
  const vec = fs.readdirSync(dir).find((f) => f.endsWith('.vec'))!;
  fs.truncateSync(`${dir}/${vec}`, 64);
  const err = await rejectsWith(t, store.search({ query: QUERIES[0], top_k: 10 }), 500);
  t.regex(err.message, new RegExp(`${vec}: the file ends before offset`));
  t.is((await store.stats()).footprint.rows, ROWS, 'the store still answers');
});
