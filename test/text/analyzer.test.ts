// The English analyzer's Unicode rules (docs/full-text.md): Unicode simple lowercasing beyond
// Latin-1, Latin ASCII folding including decomposed accents, and the token character blocks.
import test from 'ava';
import { Store } from '../../lib/index';

async function storeWith(texts: Record<string, string>, asciiFolding: boolean): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension: 0 });
  await store.createCollection('c');
  await store.setFtsSchema('c', [{ field: 'body', ascii_folding: asciiFolding }]);
  await store.upsert('c', { records: Object.entries(texts).map(([id, text]) => ({ id, attrs: { body: { Str: text } } })) });
  return store;
}

const ids = async (store: Store, query: string) => (await store.textSearch({ field: 'body', query, top_k: 100 })).map((h) => h.id).sort();

test('lowercasing covers Cyrillic, Greek and Latin Extended letters, not only Latin-1', async (t) => {
  const store = await storeWith({ uk: 'ҐАНОК', el: 'ΩΜΈΓΑ', ro: 'ȘARPE', de: 'ẞTRASSE' }, false);
  t.deepEqual(await ids(store, 'ґанок'), ['uk']);
  t.deepEqual(await ids(store, 'ωμέγα'), ['el']);
  t.deepEqual(await ids(store, 'șarpe'), ['ro']);
  t.deepEqual(await ids(store, 'ßtrasse'), ['de']);
  await store.close();
});

test('ascii_folding folds Latin Extended and decomposed accents; without it they stay distinct', async (t) => {
  const texts = { ro: 'șarpe', vi: 'Việt', composed: 'café', decomposed: 'cafe\u0301', plain: 'cafe' };
  const folding = await storeWith(texts, true);
  t.deepEqual(await ids(folding, 'sarpe'), ['ro']);
  t.deepEqual(await ids(folding, 'viet'), ['vi']);
  t.deepEqual(await ids(folding, 'cafe'), ['composed', 'decomposed', 'plain']);
  t.deepEqual((await folding.suggest({ field: 'body', prefix: 'caf' })).suggestions, [{ term: 'cafe', df: 3 }]);
  const plain = await storeWith(texts, false);
  t.deepEqual(await ids(plain, 'cafe'), ['plain']);
  t.deepEqual(await ids(plain, 'café'), ['composed']);
  await folding.close();
  await plain.close();
});

test('U+FFFD, emoji and variation selectors separate words; combining marks do not', async (t) => {
  const store = await storeWith({ a: 'my\uFFFDwife', b: 'sun\u{1F600}rise', c: 'heart\uFE0Fbeat', d: 'nai\u0308ve' }, false);
  t.deepEqual(await ids(store, 'wife'), ['a']);
  t.deepEqual(await ids(store, 'rise'), ['b']);
  t.deepEqual(await ids(store, 'beat'), ['c']);
  t.deepEqual(await ids(store, 'nai\u0308ve'), ['d']);
  t.deepEqual(await ids(store, 'nai'), []);
  await store.close();
});
