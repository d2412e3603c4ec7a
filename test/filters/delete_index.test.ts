// POST /collections/{name}/delete with a filter, and the filter-index declaration
// (POST /collections/{name}/filter-index) through the library: its validation, dropping it, its
// survival across a reopen, and rule 5 / collections rule 3: declaring an index never changes a
// result, whether the rows are sealed before or after the declaration.
import test from 'ava';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Filter, type RecordInput, type Value, Store } from '../../lib/index';
import { rejectsWith, tempDir } from '../core/helpers';
import { matches } from './oracle';
import { label, listed, vec } from './util';

function records(n: number, attrs: (i: number) => Record<string, Value>, prefix = 'r'): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, vector: vec(i), attrs: attrs(i) }));
}

async function idsOf(store: Store, coll: string): Promise<string[]> {
  return (await store.records(coll)).map((r) => r.id).sort();
}

const byG = (i: number): Record<string, Value> => ({ g: { Int: i % 4 }, name: { Str: `item ${i}` } });

// ---- delete with a filter ---------------------------------------------------------------------

test('delete with a filter removes exactly the matching records of that collection and returns their count', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', { records: records(20, byG) });
  await store.upsert('d', { records: records(8, byG) });
  t.deepEqual(await store.delete('c', { filter: [{ Eq: ['g', { Int: 1 }] }] }), { deleted: 5 });
  t.deepEqual(
    await idsOf(store, 'c'),
    records(20, byG)
      .filter((_, i) => i % 4 !== 1)
      .map((r) => r.id)
      .sort(),
  );
  t.is((await idsOf(store, 'd')).length, 8, 'the same filter matches records of another collection, which stay');
  t.deepEqual(await store.delete('c', { filter: [{ Eq: ['g', { Int: 1 }] }] }), { deleted: 0 }, 'nothing left to match');
});

test('delete: when ids and filter are both sent, the filter wins', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', { records: records(12, byG) });
  // r0 (g 0) and r1 (g 1) are named by ids, but only the filter (g = 2) decides.
  t.deepEqual(await store.delete('c', { ids: ['r0', 'r1'], filter: [{ Eq: ['g', { Int: 2 }] }] }), { deleted: 3 });
  const left = await idsOf(store, 'c');
  t.true(left.includes('r0') && left.includes('r1'));
  t.false(left.includes('r2') || left.includes('r6') || left.includes('r10'));
  // A filter matching nothing deletes nothing, whatever the ids say.
  t.deepEqual(await store.delete('c', { ids: ['r0', 'r1'], filter: [{ Eq: ['g', { Int: 99 }] }] }), { deleted: 0 });
  t.is((await idsOf(store, 'c')).length, 9);
});

test('delete with the empty filter [] matches every record of the collection, and only that collection', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', { records: records(7, byG) });
  await store.upsert('d', { records: records(3, byG) });
  t.deepEqual(await store.delete('c', { ids: ['nope'], filter: [] }), { deleted: 7 });
  t.deepEqual(await idsOf(store, 'c'), []);
  t.is((await idsOf(store, 'd')).length, 3);
});

test('delete with a filter sees sealed and in-memory rows, and only the live version of an overwritten record', async (t) => {
  const store = await Store.open({ path: tempDir('filters-del'), dimension: 4 });
  await store.upsert('c', { records: records(10, () => ({ state: { Str: 'old' } })) });
  await store.flush();
  // r0..r2 are overwritten in memory: their sealed 'old' versions are dead.
  await store.upsert('c', { records: records(3, () => ({ state: { Str: 'new' } })) });
  await store.upsert('c', { records: records(4, () => ({ state: { Str: 'old' } }), 'm') });
  t.deepEqual(await store.delete('c', { filter: [{ Eq: ['state', { Str: 'old' }] }] }), { deleted: 11 }); // r3..r9 and m0..m3
  t.deepEqual(await idsOf(store, 'c'), ['r0', 'r1', 'r2']);
  await store.close();
});

test('delete with a filter through an alias acts on the target', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', { records: records(8, byG) });
  await store.putAlias('al', 'c');
  t.deepEqual(await store.delete('al', { filter: [{ In: ['g', [{ Int: 0 }, { Int: 3 }]] }] }), { deleted: 4 });
  t.deepEqual(await idsOf(store, 'c'), ['r1', 'r2', 'r5', 'r6']);
});

test('delete with a malformed filter is 400 and deletes nothing, even when ids are sent too', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', { records: records(6, byG) });
  const version = store.commitVersion();
  const bad: unknown[] = [
    [{ Regex: ['name', '('] }],
    [{ Fuzzy: ['name', 'item', 9] }],
    { Eq: ['g', { Int: 1 }] },
    [{ Eq: ['g', { Int: 1 }] }, { Nope: [] }],
    [{ Any: [{ Eq: ['g', { Int: 1 }] }, { Eq: ['g'] }] }],
  ];
  for (const filter of bad) {
    await rejectsWith(t, store.delete('c', { ids: ['r0', 'r1'], filter: filter as Filter }), 400, label(filter));
  }
  t.is(store.commitVersion(), version);
  t.is((await idsOf(store, 'c')).length, 6);
});

// ---- the filter-index declaration -------------------------------------------------------------

/** The declared fields of `coll` as the store's manifest records them (read after close). */
function declared(dir: string, coll: string): unknown[] {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'MANIFEST'), 'utf8')) as { collections: { name: string; filter_index?: unknown[] }[] };
  return manifest.collections.find((c) => c.name === coll)?.filter_index ?? [];
}

test('filter-index: an entry with both tokens and trigrams false is 400; either one alone is accepted', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', { records: records(3, byG) });
  const e = await rejectsWith(t, store.setFilterIndex('c', [{ field: 'name', tokens: false, trigrams: false }]), 400);
  t.regex(e.message, /name/);
  await rejectsWith(t, store.setFilterIndex('c', ['g', { field: 'name', tokens: false, trigrams: false }]), 400, 'one bad entry among good ones');
  t.deepEqual(await store.setFilterIndex('c', [{ field: 'name', tokens: false }]), { ok: true });
  t.deepEqual(await store.setFilterIndex('c', [{ field: 'name', trigrams: false }]), { ok: true });
  t.deepEqual(await store.setFilterIndex('c', ['name', { field: 'g' }]), { ok: true });
});

test('filter-index: malformed bodies are 400', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', { records: records(3, byG) });
  for (const body of ['{}', '{"fields":"name"}', '{"fields":[5]}', '{"fields":[{"tokens":true}]}', '{"fields":[{"field":"name","tokens":"yes"}]}', 'nope']) {
    await rejectsWith(t, store.setFilterIndex('c', Buffer.from(body)), 400, body);
  }
});

test('filter-index: an alias is 400 (structural route); a missing collection is 404', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', { records: records(3, byG) });
  await store.putAlias('al', 'c');
  await rejectsWith(t, store.setFilterIndex('al', ['name']), 400, 'alias');
  await rejectsWith(t, store.setFilterIndex('missing', ['name']), 404, 'missing collection');
});

const TEXTS = [
  'The quick brown fox',
  'running late again',
  'I run daily',
  'send an e-mail',
  'café au lait',
  'naïve über fox',
  'quick quick brown',
  'brown fox jumps',
  'APPLE pie',
  'apple tart',
  'v2.0 release notes',
  "don't stop",
];
const textRecords = (n: number, prefix: string): RecordInput[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    vector: vec(i),
    attrs: {
      t: { Str: TEXTS[i % TEXTS.length] },
      l: { List: [TEXTS[(i * 5) % TEXTS.length], `tag${i % 3}`] },
      ...(i % 7 === 0 ? {} : { s: { Str: TEXTS[(i * 3) % TEXTS.length].split(' ')[0] } }),
    },
  }));
const QUERIES: Filter[] = [
  [{ ContainsAllTokens: ['t', 'fox brown'] }],
  [{ ContainsAnyToken: ['t', 'RUN apple'] }],
  [{ ContainsTokenSequence: ['t', 'quick brown'] }],
  [{ ContainsTokenSequence: ['l', 'e mail'] }],
  [{ Not: { ContainsAnyToken: ['l', 'fox tag1'] } }],
  [{ Fuzzy: ['t', 'i run dayly', 2] }],
  [{ Fuzzy: ['s', 'aple', 1] }],
  [{ Regex: ['t', '.*fox'] }],
  [{ Regex: ['t', '(?i)apple.*'] }],
  [{ Glob: ['s', '*e'] }],
  [{ Any: [{ ContainsAllTokens: ['t', 'café'] }, { Fuzzy: ['l', 'tag2', 0] }] }, { Not: { Regex: ['s', 'n.*'] } }],
  [{ ContainsAllTokens: ['t', ''] }],
];

async function checkQueries(t: import('ava').ExecutionContext, store: Store, recs: RecordInput[], step: string): Promise<void> {
  for (const f of QUERIES) {
    const want = recs
      .filter((r) => matches(f, r.attrs as Record<string, Value>))
      .map((r) => r.id)
      .sort();
    t.deepEqual(await listed(store, f), want, `${step}: ${label(f)}`);
  }
}

test('filter-index: declaring changes no result, before or after rows are sealed, and the declaration survives a reopen', async (t) => {
  const dir = tempDir('filters-fidx');
  let store = await Store.open({ path: dir, dimension: 4 });
  const first = textRecords(60, 'a');
  await store.upsert('c', { records: first });
  await store.flush();
  await checkQueries(t, store, first, 'sealed, no declaration');
  await store.setFilterIndex('c', ['t', { field: 'l', trigrams: false }, { field: 's', tokens: false }]);
  await checkQueries(t, store, first, 'declared over an existing sealed segment');
  const second = textRecords(40, 'b');
  await store.upsert('c', { records: second });
  await checkQueries(t, store, [...first, ...second], 'declared, new rows in memory');
  await store.flush();
  await checkQueries(t, store, [...first, ...second], 'declared, new rows sealed');
  await store.close();
  t.deepEqual(
    declared(dir, 'c').map((e) => (e as { field: string }).field),
    ['t', 'l', 's'],
  );
  store = await Store.open({ path: dir });
  await checkQueries(t, store, [...first, ...second], 'after reopen');
  const third = textRecords(20, 'c');
  await store.upsert('c', { records: third });
  await store.flush();
  await checkQueries(t, store, [...first, ...second, ...third], 'after reopen, a third segment sealed');
  await store.close();
  t.deepEqual(
    declared(dir, 'c').map((e) => (e as { field: string }).field),
    ['t', 'l', 's'],
    'still declared after the second close',
  );
});

test('filter-index: an empty fields list drops the declaration, and results stay the same', async (t) => {
  const dir = tempDir('filters-fidx-drop');
  let store = await Store.open({ path: dir, dimension: 4 });
  const recs = textRecords(50, 'a');
  await store.upsert('c', { records: recs });
  await store.setFilterIndex('c', ['t', 'l']);
  await store.flush();
  await checkQueries(t, store, recs, 'declared');
  t.deepEqual(await store.setFilterIndex('c', []), { ok: true });
  await checkQueries(t, store, recs, 'dropped');
  await store.close();
  t.deepEqual(declared(dir, 'c'), []);
  store = await Store.open({ path: dir });
  await checkQueries(t, store, recs, 'dropped, after reopen');
  await store.close();
});

test('filter-index: declaring on an empty collection, then upserting and flushing, gives the same results', async (t) => {
  const store = await Store.open({ path: tempDir('filters-fidx-empty'), dimension: 4 });
  await store.createCollection('c');
  await store.setFilterIndex('c', ['t', 'l', 's']);
  const recs = textRecords(70, 'a');
  await store.upsert('c', { records: recs.slice(0, 35) });
  await store.flush();
  await store.upsert('c', { records: recs.slice(35) });
  await checkQueries(t, store, recs, 'half sealed');
  await store.delete('c', { filter: [{ ContainsAnyToken: ['t', 'fox'] }] });
  const live = recs.filter((r) => !matches([{ ContainsAnyToken: ['t', 'fox'] }], r.attrs as Record<string, Value>));
  t.true(live.length < recs.length);
  await checkQueries(t, store, live, 'after a delete by a token filter');
  await store.close();
});

test('filter-index: Fuzzy, Regex and tokens through an index still find short values, empty values and List elements', async (t) => {
  const recs: RecordInput[] = [
    { id: 'l1', vector: vec(1), attrs: { w: { List: ['world', 'ｚｅｄ'] } } },
    { id: 'l2', vector: vec(2), attrs: { w: { List: ['world'] } } },
    { id: 'l3', vector: vec(3), attrs: { w: { List: ['café'] } } },
    { id: 's1', vector: vec(4), attrs: { w: { Str: 'world' } } },
    { id: 'e', vector: vec(5), attrs: { w: { Str: '' } } },
    { id: 'jp', vector: vec(6), attrs: { w: { Str: '日本' } } },
    { id: 'xy', vector: vec(7), attrs: { w: { Str: 'xy' } } },
    { id: 'long', vector: vec(8), attrs: { w: { Str: 'a fairly long value about the world' } } },
    { id: 'empty-list', vector: vec(9), attrs: { w: { List: [] } } },
  ];
  const filters: Filter[] = [
    [{ Fuzzy: ['w', 'world', 0] }],
    [{ Fuzzy: ['w', 'WORLD', 0] }],
    [{ Fuzzy: ['w', 'wrld', 1] }],
    [{ Fuzzy: ['w', 'café', 0] }],
    [{ Fuzzy: ['w', 'cafe', 1] }],
    [{ Fuzzy: ['w', 'ab', 2] }],
    [{ Fuzzy: ['w', '', 0] }],
    [{ Fuzzy: ['w', '日本', 0] }],
    [{ Fuzzy: ['w', '日本', 2] }],
    [{ Fuzzy: ['w', 'xyz', 1] }],
    [{ Regex: ['w', 'wor.d'] }],
    [{ Regex: ['w', '.*world'] }],
    [{ Regex: ['w', '(?i)WORLD|xy'] }],
    [{ Regex: ['w', ''] }],
    [{ ContainsAllTokens: ['w', 'world'] }],
    [{ ContainsTokenSequence: ['w', 'the world'] }],
    [{ ContainsAnyToken: ['w', 'ｚｅｄ xy'] }],
  ];
  const store = await Store.open({ path: tempDir('filters-fidx-short'), dimension: 4 });
  await store.upsert('c', { records: recs });
  const expect = async (step: string) => {
    for (const f of filters) {
      const want = recs
        .filter((r) => matches(f, r.attrs as Record<string, Value>))
        .map((r) => r.id)
        .sort();
      t.deepEqual(await listed(store, f), want, `${step}: ${label(f)}`);
    }
  };
  await expect('no index');
  await store.setFilterIndex('c', ['w']);
  await store.flush();
  await expect('indexed, sealed');
  await store.setFilterIndex('c', [{ field: 'w', tokens: false }]);
  await expect('trigrams only');
  await store.setFilterIndex('c', [{ field: 'w', trigrams: false }]);
  await expect('tokens only');
  await store.close();
});
