// The two library calls the MCP tools added: store.get (records by id through the core's id
// lookup, without vectors) and store.embed (the store's embedder on one text).
import test from 'ava';
import { Store } from '../../lib/index';
import { tempDir } from '../core/helpers';

test('get answers the live records of the ids asked, in that order, without vectors; absent and deleted ids are left out; a missing collection is 404', async (t) => {
  const store = await Store.open({ path: tempDir('get'), dimension: 2 });
  t.teardown(() => store.close());
  await store.upsert('docs', {
    records: [
      { id: 'a', vector: [1, 0], attrs: { n: { Int: 9007199254740993n } } },
      { id: 'b', vector: [0, 1], attrs: {} },
    ],
  });
  await store.flush(); // a and b in a sealed segment (found through its id index), c in memory
  await store.upsert('docs', { records: [{ id: 'c', vector: [1, 1], attrs: {} }] });
  await store.delete('docs', { ids: ['b'] });
  const got = await store.get('docs', ['c', 'b', 'zz', 'a', 'c']);
  t.deepEqual(got, [
    { id: 'c', attrs: {} },
    { id: 'a', attrs: { n: { Int: 9007199254740993n } } },
  ]);
  const missing = await t.throwsAsync(store.get('nowhere', ['a']));
  t.is((missing as { status?: number }).status, 404, 'a missing collection, as GET /collections/{name}/records');
  const bad = await t.throwsAsync(store.get('docs', new TextEncoder().encode('{"id": "a"}')));
  t.is((bad as { status?: number }).status, 400);
});

test("embed uses the store's embedder, and without one is the 400 remember gives", async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 8, embedProvider: 'hash:8' });
  t.teardown(() => store.close());
  const vector = await store.embed('hello world');
  t.is(vector.length, 8);
  const bare = await Store.open({ inMemory: true, dimension: 8 });
  t.teardown(() => bare.close());
  const embedErr = await t.throwsAsync(bare.embed('x'));
  const rememberErr = await t.throwsAsync(bare.remember('notes', { id: 'a', text: 'x' }));
  t.is(embedErr?.message, rememberErr?.message);
});
