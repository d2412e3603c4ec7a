import test from 'ava';
import { cpSync } from 'node:fs';
import * as path from 'node:path';
import { root } from '../../lib/native';
import { Store, type StoredRecord } from '../../lib/index';
import { tempDir } from './helpers';

// A store directory written by an earlier build (commit 8e27dbb, store format 1), left as after a
// crash: a checkpoint in MANIFEST (sealed segment, deletion bitmap, schema, aliases) and every kind
// of op after it in wal.log. Made by test/fixtures/make-store-format-1.js, which lists its content.
const FIXTURE = path.join(root, 'test/fixtures/store-format-1');

async function openCopy(): Promise<{ store: Store; dir: string }> {
  const dir = tempDir('compat');
  cpSync(FIXTURE, dir, { recursive: true });
  return { store: await Store.open({ path: dir }), dir };
}

const byId = (records: StoredRecord[]) => Object.fromEntries(records.map((r) => [r.id, r]));

test('a format-1 store opens with its header, catalog and every logged op replayed', async (t) => {
  const { store } = await openCopy();
  t.is(store.dimension, 4);
  t.is(store.distance, 'Euclidean');
  t.deepEqual(await store.collections(), ['docs', 'later']);
  t.deepEqual(await store.aliases(), { next: 'later' });
  t.deepEqual(await store.getMeta('docs'), { lang: 'en', owner: 'ops' });
  t.deepEqual(await store.getMeta('later'), { stage: 'wal' });
  await store.close();
});

test('a format-1 store keeps its records exactly: vectors, named vectors, Values, overwrites and deletes', async (t) => {
  const { store } = await openCopy();
  const docs = byId(await store.records('docs'));
  t.deepEqual(Object.keys(docs).sort(), ['a', 'b']);
  t.deepEqual(docs.a.vector, [1, 0, 0, 0]);
  t.deepEqual(docs.a.vectors, { title: [0, 1, 0, 0] });
  t.deepEqual(docs.a.attrs, { body: { Str: 'the quick brown fox' }, n: { Int: 9007199254740993n }, tags: { List: ['x', 'y'] } });
  t.deepEqual(docs.b.vector, [0, 0, 0, 1]);
  t.deepEqual(docs.b.vectors, { title: [1, 1, 0, 0] });
  t.deepEqual(docs.b.attrs, { body: { Str: 'quick dogs run' } });
  t.deepEqual(await store.records('later'), [{ id: 'l1', vector: [0.5, 0.5, 0, 0], attrs: { k: { Int: -9223372036854775808n } } }]);
  await store.close();
});

test('a format-1 store serves search, named vectors, its filter index and its full-text schema', async (t) => {
  const { store } = await openCopy();
  const hits = await store.search({ query: [0, 0, 0, 1], scope: ['docs'], top_k: 1 });
  t.deepEqual(
    hits.map((h) => [h.id, h.score]),
    [['b', -0]],
  );
  const named = await store.search({ query: [1, 1, 0, 0], names: ['title'], scope: ['docs'], top_k: 1 });
  t.is(named[0].id, 'b');
  // 'summary' was declared only in the log: a search naming it is valid (an undeclared name is 400).
  t.deepEqual(await store.search({ query: [1, 0, 0, 0], names: ['summary'], scope: ['later'] }), []);
  const filtered = await store.list({ filter: [{ ContainsAllTokens: ['body', 'quick fox'] }] });
  t.deepEqual(
    filtered.map((h) => h.id),
    ['a'],
  );
  const text = await store.textSearch({ field: 'body', query: 'quick', scope: ['docs'] });
  t.deepEqual(text.map((h) => h.id).sort(), ['a', 'b']);
  await store.close();
});

test('a format-1 store checkpointed by this build reopens with the same content', async (t) => {
  const { store, dir } = await openCopy();
  const before = { docs: await store.records('docs'), later: await store.records('later'), aliases: await store.aliases() };
  await store.flush();
  await store.close();
  const reopened = await Store.open({ path: dir });
  t.deepEqual({ docs: await reopened.records('docs'), later: await reopened.records('later'), aliases: await reopened.aliases() }, before);
  await reopened.close();
});
