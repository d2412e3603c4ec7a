// Collections, metadata and aliases through the library (spec: "Collections and metadata",
// "Aliases", "Alias").
import test from 'ava';
import { Store } from '../../lib/index';
import { rejectsWith, tempDir } from './helpers';

const open = () => Store.open({ inMemory: true, dimension: 2 });

test('create, list and drop collections; upsert auto-creates; the list excludes aliases', async (t) => {
  const store = await open();
  t.deepEqual(await store.collections(), []);
  t.deepEqual(await store.createCollection('b'), { created: 'b' });
  t.deepEqual(await store.createCollection('a'), { created: 'a' });
  await store.upsert('auto', { records: [{ id: 'x', vector: [1, 0] }] });
  await store.putAlias('al', 'a');
  t.deepEqual((await store.collections()).sort(), ['a', 'auto', 'b']);
  t.deepEqual((await store.stats()).collections.sort(), ['a', 'auto', 'b']);
  t.deepEqual(await store.dropCollection('b'), { dropped: 'b' });
  t.deepEqual((await store.collections()).sort(), ['a', 'auto']);
  await rejectsWith(t, store.dropCollection('b'), 404, 'dropping a missing collection');
});

test('create of an existing collection keeps its records', async (t) => {
  const store = await open();
  await store.upsert('c', { records: [{ id: 'x', vector: [1, 0] }] });
  t.deepEqual(await store.createCollection('c'), { created: 'c' });
  t.is((await store.records('c')).length, 1);
});

test('dropping a collection removes its records; recreating it starts empty', async (t) => {
  const dir = tempDir();
  let store = await Store.open({ path: dir, dimension: 2 });
  await store.upsert('c', {
    records: [
      { id: 'x', vector: [1, 0] },
      { id: 'y', vector: [0, 1] },
    ],
  });
  await store.flush();
  await store.upsert('c', { records: [{ id: 'z', vector: [1, 1] }] });
  await store.dropCollection('c');
  t.deepEqual(await store.search({ query: [1, 0] }), []);
  await rejectsWith(t, store.records('c'), 404);
  await store.upsert('c', { records: [{ id: 'new', vector: [1, 0] }] });
  t.deepEqual(
    (await store.records('c')).map((r) => r.id),
    ['new'],
  );
  t.is((await store.stats()).footprint.doc_count, 1);
  await store.close();
  store = await Store.open({ path: dir });
  t.deepEqual(
    (await store.records('c')).map((r) => r.id),
    ['new'],
  );
  t.deepEqual(
    (await store.search({ query: [1, 0] })).map((h) => h.id),
    ['new'],
  );
  await store.close();
});

test('collection names outside the allowed format are 400', async (t) => {
  const store = await open();
  for (const name of ['', '.hidden', 'has space', 'slash/name', 'x'.repeat(129), 'ünï']) {
    await rejectsWith(t, store.createCollection(name), 400, `create ${JSON.stringify(name)}`);
    await rejectsWith(t, store.upsert(name, { records: [{ id: 'a', vector: [1, 0] }] }), 400, `upsert into ${JSON.stringify(name)}`);
  }
  t.deepEqual(await store.collections(), []);
});

test('create or drop of an alias name is 400 (structural routes refuse aliases)', async (t) => {
  const store = await open();
  await store.createCollection('docs');
  await store.putAlias('current', 'docs');
  const e = await rejectsWith(t, store.createCollection('current'), 400, 'create');
  t.regex(e.message, /alias/);
  const e2 = await rejectsWith(t, store.dropCollection('current'), 400, 'drop');
  t.regex(e2.message, /alias/);
  t.deepEqual(await store.collections(), ['docs']);
  t.deepEqual(await store.aliases(), { current: 'docs' });
});

test('meta is replaced wholesale, not merged', async (t) => {
  const store = await open();
  await store.createCollection('c');
  t.deepEqual(await store.getMeta('c'), {});
  t.deepEqual(await store.putMeta('c', { a: '1', b: '2' }), { ok: true });
  t.deepEqual(await store.getMeta('c'), { a: '1', b: '2' });
  await store.putMeta('c', { c: '3' });
  t.deepEqual(await store.getMeta('c'), { c: '3' });
  await store.putMeta('c', {});
  t.deepEqual(await store.getMeta('c'), {});
  await store.putMeta('c', { ключ: 'значение "q"\n', '': 'empty key' });
  t.deepEqual(await store.getMeta('c'), { ключ: 'значение "q"\n', '': 'empty key' });
});

test('meta of a missing collection is 404; meta values must be strings (400)', async (t) => {
  const store = await open();
  await rejectsWith(t, store.getMeta('missing'), 404, 'get');
  await rejectsWith(t, store.putMeta('missing', { a: 'b' }), 404, 'put');
  t.deepEqual(await store.collections(), [], 'putMeta does not create the collection');
  await store.createCollection('c');
  await rejectsWith(t, store.putMeta('c', Buffer.from('{"a":1}')), 400, 'number value');
  await rejectsWith(t, store.putMeta('c', Buffer.from('["a"]')), 400, 'array body');
  await rejectsWith(t, store.putMeta('c', Buffer.from('{"a":')), 400, 'malformed');
  t.deepEqual(await store.getMeta('c'), {});
});

test('an alias target must exist (400); the alias name may not be a collection (400)', async (t) => {
  const store = await open();
  const e = await rejectsWith(t, store.putAlias('al', 'missing'), 400);
  t.regex(e.message, /missing/);
  await store.createCollection('docs');
  await store.createCollection('other');
  await rejectsWith(t, store.putAlias('other', 'docs'), 400, 'alias named like a collection');
  await rejectsWith(t, store.putAlias('al', Buffer.from('{}')), 400, 'no target');
  await rejectsWith(t, store.putAlias('al', Buffer.from('{"target":5}')), 400, 'target not a string');
  t.deepEqual(await store.aliases(), {});
});

test('aliases resolve one hop only: an alias to an alias is 400', async (t) => {
  const store = await open();
  await store.createCollection('docs');
  t.deepEqual(await store.putAlias('a1', 'docs'), { alias: 'a1', target: 'docs' });
  const e = await rejectsWith(t, store.putAlias('a2', 'a1'), 400);
  t.regex(e.message, /alias/);
  t.deepEqual(await store.aliases(), { a1: 'docs' });
});

test('data routes (upsert, delete, records, meta) accept an alias and act on its target', async (t) => {
  const store = await open();
  await store.createCollection('docs_v1');
  await store.putAlias('docs', 'docs_v1');
  t.deepEqual(
    await store.upsert('docs', {
      records: [
        { id: 'a', vector: [1, 0] },
        { id: 'b', vector: [0, 1] },
      ],
    }),
    { upserted: 2 },
  );
  t.deepEqual(await store.collections(), ['docs_v1'], 'the upsert did not create a collection named like the alias');
  t.deepEqual(
    (await store.records('docs_v1')).map((r) => r.id),
    ['a', 'b'],
  );
  t.deepEqual(
    (await store.records('docs')).map((r) => r.id),
    ['a', 'b'],
  );
  t.deepEqual(await store.delete('docs', { ids: ['a'] }), { deleted: 1 });
  t.deepEqual(
    (await store.records('docs_v1')).map((r) => r.id),
    ['b'],
  );
  await store.putMeta('docs', { owner: 'me' });
  t.deepEqual(await store.getMeta('docs_v1'), { owner: 'me' });
  t.deepEqual(await store.getMeta('docs'), { owner: 'me' });
  const hits = await store.search({ query: [0, 1], scope: ['docs'] });
  t.deepEqual(
    hits.map((h) => [h.collection, h.id]),
    [['docs_v1', 'b']],
    'hits name the concrete collection',
  );
});

test('repointing an alias moves data routes to the new target', async (t) => {
  const store = await open();
  await store.upsert('v1', { records: [{ id: 'old', vector: [1, 0] }] });
  await store.upsert('v2', { records: [{ id: 'new', vector: [1, 0] }] });
  await store.putAlias('live', 'v1');
  t.deepEqual(
    (await store.records('live')).map((r) => r.id),
    ['old'],
  );
  t.deepEqual(await store.putAlias('live', 'v2'), { alias: 'live', target: 'v2' });
  t.deepEqual(
    (await store.records('live')).map((r) => r.id),
    ['new'],
  );
  t.deepEqual(await store.aliases(), { live: 'v2' });
});

test('repointing an alias to its current target is a no-op: commitVersion is unchanged', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: 2 });
  await store.createCollection('docs');
  await store.putAlias('al', 'docs');
  const v = store.commitVersion();
  t.deepEqual(await store.putAlias('al', 'docs'), { alias: 'al', target: 'docs' });
  t.is(store.commitVersion(), v);
  await store.close();
});

test('dropping an alias leaves the collection untouched; dropping a missing alias is 404', async (t) => {
  const store = await open();
  await store.upsert('docs', { records: [{ id: 'a', vector: [1, 0] }] });
  await store.putMeta('docs', { k: 'v' });
  await store.putAlias('al', 'docs');
  t.deepEqual(await store.dropAlias('al'), { dropped: 'al' });
  t.deepEqual(await store.aliases(), {});
  t.deepEqual(await store.collections(), ['docs']);
  t.deepEqual(
    (await store.records('docs')).map((r) => r.id),
    ['a'],
  );
  t.deepEqual(await store.getMeta('docs'), { k: 'v' });
  await rejectsWith(t, store.records('al'), 404, 'the alias no longer resolves');
  await rejectsWith(t, store.dropAlias('al'), 404);
});

test('collections, meta, vector names and aliases survive a reopen', async (t) => {
  const dir = tempDir();
  let store = await Store.open({ path: dir, dimension: 2 });
  await store.createCollection('empty');
  await store.createCollection('docs');
  await store.putMeta('docs', { a: '1' });
  await store.setVectorNames('docs', ['title']);
  await store.putAlias('al', 'docs');
  await store.close();
  store = await Store.open({ path: dir });
  t.deepEqual((await store.collections()).sort(), ['docs', 'empty']);
  t.deepEqual(await store.getMeta('al'), { a: '1' });
  t.deepEqual(await store.aliases(), { al: 'docs' });
  t.deepEqual(await store.upsert('al', { records: [{ id: 'x', vectors: { title: [1, 1] } }] }), { upserted: 1 });
  await store.close();
});
