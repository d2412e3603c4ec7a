// /text-search through the library, against an independent BM25 written from docs/full-text.md
// (./util): the analyzer, the formula with collection-wide N/df/avgdl over live documents, clauses
// and combine, the ranked-route options, prefix expansion, and the explain/highlight annotations.
import test, { type ExecutionContext } from 'ava';
import { type Hit, type Value, Store } from '../../lib/index';
import { prng, rejectsWith, tempDir } from '../core/helpers';
import {
  type Doc,
  type FtsFieldEntry,
  type TextClause,
  analyze,
  assertClose,
  assertRanking,
  bodies,
  clauseTerms,
  docs,
  fieldOptions,
  fieldText,
  ids,
  indexField,
  oracleText,
  phrase,
  porter2,
  randomDocs,
  storeOf,
  str,
  term,
  tokenize,
  where,
  write,
} from './util';

// A small English corpus. `stop` analyzes to nothing and `missing`/`number` have no indexable body,
// so none of the three counts in N or avgdl.
const ANIMALS = bodies('c', {
  d1: 'The quick brown fox jumps over the lazy dog',
  d2: 'A quick brown dog runs',
  d3: 'Foxes are running quickly, quickly!',
  d4: 'Lazy dogs sleep all day and the dog dreams of dogs',
  d5: 'Brown bears and brown foxes',
  d6: 'Cats',
  stop: 'the of and to be',
});
ANIMALS.push({ collection: 'c', id: 'missing', attrs: { other: str('fox fox fox') } });
ANIMALS.push({ collection: 'c', id: 'number', attrs: { body: { Int: 7 } } });

const SCHEMA: Record<string, FtsFieldEntry[]> = { c: ['body'] };

const one = (field: string, query: string, prefix = false): TextClause[] => [{ field, query, prefix }];

/** Runs one single-clause query and compares the whole ranking with the oracle. */
async function expectSingle(
  t: ExecutionContext,
  store: Store,
  corpus: Doc[],
  schemas: Record<string, FtsFieldEntry[]>,
  field: string,
  query: string,
  label = query,
) {
  const hits = await store.textSearch({ field, query, top_k: 100 });
  assertRanking(t, hits, oracleText(corpus, schemas, { clauses: one(field, query) }), label);
  return hits;
}

// ---- scoring ------------------------------------------------------------------------------------

test('single term: BM25 with the default k1 1.2 and b 0.75 over the collection-wide stats', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  const hits = await expectSingle(t, store, ANIMALS, SCHEMA, 'body', 'fox');
  t.deepEqual(ids(hits).sort(), ['d1', 'd3', 'd5'], 'fox and foxes share the stem; "missing" has fox only in an undeclared attribute');
  // Spelled out once: N = 6 (stop, missing and number hold no indexed token), df(fox) = 3.
  const index = indexField(ANIMALS, 'c', 'body');
  t.is(index.n, 6);
  const d1 = index.docs.get('c\u0000d1')!;
  const expected = (Math.log(1 + (6 - 3 + 0.5) / (3 + 0.5)) * (1 * 2.2)) / (1 + 1.2 * (1 - 0.75 + (0.75 * d1.dl) / index.avgdl));
  assertClose(t, hits.find((h) => h.id === 'd1')?.score, expected, 'd1 by hand');
});

test('multi-term: the sum over the distinct analyzed terms; a document holding any one term matches', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  await expectSingle(t, store, ANIMALS, SCHEMA, 'body', 'brown dog');
  await expectSingle(t, store, ANIMALS, SCHEMA, 'body', 'lazy quick fox cats');
});

test('a query term that appears twice counts once', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  const once = await store.textSearch({ field: 'body', query: 'dog', top_k: 100 });
  t.deepEqual(await store.textSearch({ field: 'body', query: 'dog dogs DOG', top_k: 100 }), once);
  await expectSingle(t, store, ANIMALS, SCHEMA, 'body', 'dog dogs DOG');
});

test('non-default k1 and b change the score as the formula says (including b 0 and k1 0)', async (t) => {
  for (const entry of [
    { field: 'body', k1: 2, b: 0.3 },
    { field: 'body', k1: 0.5, b: 1 },
    { field: 'body', k1: 1.2, b: 0 },
    { field: 'body', k1: 0, b: 0.75 },
  ]) {
    const schemas = { c: [entry] };
    const store = await storeOf(ANIMALS, schemas);
    await expectSingle(t, store, ANIMALS, schemas, 'body', 'brown dog fox lazy', JSON.stringify(entry));
  }
});

// Two fields: titles are short, bodies long; each field has its own N, df and avgdl.
const ARTICLES = docs('a', {
  a1: { title: str('Lions of the savanna'), body: str('The lion hunts zebra at dawn while zebras graze') },
  a2: { title: str('Zebra stripes'), body: str('Why a zebra has stripes is still debated') },
  a3: { title: str('Tigers'), body: str('A tiger is not a lion, though lions and tigers are cousins') },
  a4: { title: str('Savanna life'), body: str('Grass, zebras, lions and the long dry season') },
  a5: { title: str('Elephants'), body: str('Elephants remember') },
  a6: { body: str('An untitled note about a zebra') },
});
const ARTICLE_SCHEMA: Record<string, FtsFieldEntry[]> = { a: ['title', { field: 'body', k1: 1.5, b: 0.6 }] };

test('two fields with clauses: combine Sum (the default) adds the matched clause scores', async (t) => {
  const store = await storeOf(ARTICLES, ARTICLE_SCHEMA);
  const clauses = [
    { field: 'title', query: 'lion zebra' },
    { field: 'body', query: 'zebra' },
  ];
  const hits = await store.textSearch({ clauses, top_k: 100 });
  assertRanking(t, hits, oracleText(ARTICLES, ARTICLE_SCHEMA, { clauses }), 'Sum default');
  t.deepEqual(await store.textSearch({ clauses, combine: 'Sum', top_k: 100 }), hits, 'explicit Sum');
  t.true(ids(hits).includes('a6'), 'a document matching one clause only is a hit');
});

test('two fields with clauses: combine Max takes the strongest matched clause', async (t) => {
  const store = await storeOf(ARTICLES, ARTICLE_SCHEMA);
  const clauses = [
    { field: 'title', query: 'lion zebra savanna' },
    { field: 'body', query: 'zebra lion' },
  ];
  assertRanking(t, await store.textSearch({ clauses, combine: 'Max', top_k: 100 }), oracleText(ARTICLES, ARTICLE_SCHEMA, { clauses, combine: 'Max' }), 'Max');
});

test('a clause naming a field the collection has not declared matches nothing there, with no error', async (t) => {
  const store = await storeOf(ARTICLES, { a: ['title'] });
  t.deepEqual(await store.textSearch({ field: 'body', query: 'zebra' }), []);
  const clauses = [
    { field: 'body', query: 'zebra' },
    { field: 'title', query: 'zebra' },
  ];
  assertRanking(t, await store.textSearch({ clauses }), oracleText(ARTICLES, { a: ['title'] }, { clauses }), 'undeclared body clause');
});

// ---- collection-wide statistics --------------------------------------------------------------------

test('collection-wide stats do not depend on segmenting: one batch vs a sealed segment per document', async (t) => {
  const oneBatch = await storeOf(ANIMALS, SCHEMA);
  const segmented = await Store.open({ path: tempDir('text-segments'), dimension: 4 });
  t.teardown(() => segmented.close());
  await segmented.createCollection('c');
  await segmented.setFtsSchema('c', ['body']);
  for (const d of ANIMALS) {
    await segmented.upsert('c', { records: [{ id: d.id, attrs: d.attrs }] });
    await segmented.flush();
  }
  for (const query of ['fox', 'brown dog', 'lazy quick dreams', 'cats']) {
    const want = await oneBatch.textSearch({ field: 'body', query, top_k: 100 });
    t.deepEqual(await segmented.textSearch({ field: 'body', query, top_k: 100 }), want, query);
    assertRanking(t, want, oracleText(ANIMALS, SCHEMA, { clauses: one('body', query) }), query);
  }
});

test('collection-wide stats span sealed segments and unsealed rows alike', async (t) => {
  const store = await Store.open({ path: tempDir('text-mixed'), dimension: 4 });
  t.teardown(() => store.close());
  await write(store, ANIMALS.slice(0, 3));
  await store.setFtsSchema('c', ['body']);
  await store.flush();
  await write(store, ANIMALS.slice(3));
  await expectSingle(t, store, ANIMALS, SCHEMA, 'body', 'brown dog fox');
});

test('deleted and overwritten documents are not counted in N, df or avgdl', async (t) => {
  const store = await Store.open({ path: tempDir('text-deletes'), dimension: 4 });
  t.teardown(() => store.close());
  const extra = bodies('c', { gone1: 'fox fox fox brown', gone2: 'dog dog lazy lazy lazy fox', over: 'fox fox fox fox fox fox dog' });
  await write(store, [...ANIMALS, ...extra]);
  await store.setFtsSchema('c', ['body']);
  await store.flush();
  await store.delete('c', { ids: ['gone1'] }); // a row in a sealed segment
  await write(store, bodies('c', { late: 'a late brown fox' }));
  await store.delete('c', { ids: ['late', 'gone2'] }); // unsealed and sealed
  await write(store, bodies('c', { over: 'cats and more cats' })); // the old version had six foxes
  const live = [...ANIMALS, ...bodies('c', { over: 'cats and more cats' })];
  for (const query of ['fox', 'dog lazy', 'cats', 'brown']) await expectSingle(t, store, live, SCHEMA, 'body', query);
  t.false(ids(await store.textSearch({ field: 'body', query: 'fox', top_k: 100 })).includes('over'), 'the overwritten text is gone');
});

test('a document overwritten with no indexable text leaves N', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  await store.upsert('c', {
    records: [
      { id: 'd6', attrs: { body: { Int: 1 } } },
      { id: 'd5', attrs: { body: str('the and') } },
    ],
  });
  const live = ANIMALS.map((d) =>
    d.id === 'd6' ? { ...d, attrs: { body: { Int: 1 } as Value } } : d.id === 'd5' ? { ...d, attrs: { body: str('the and') } } : d,
  );
  t.is(indexField(live, 'c', 'body').n, 4);
  await expectSingle(t, store, live, SCHEMA, 'body', 'fox dog quick');
});

test('tie order: equal scores rank by collection, then id (not insertion order)', async (t) => {
  const corpus = [...bodies('b', { y: 'red apple', x: 'red apple', w: 'green pear' }), ...bodies('a', { z: 'green pear', y: 'red apple', x: 'red apple' })];
  const store = await storeOf(corpus, { b: ['body'], a: ['body'] });
  const hits = await store.textSearch({ field: 'body', query: 'apples' });
  t.deepEqual(where(hits), ['a/x', 'a/y', 'b/x', 'b/y']);
  t.true(
    hits.every((h) => h.score === hits[0].score),
    'all four tie exactly',
  );
});

// ---- the analyzer ------------------------------------------------------------------------------------

test('stopwords are dropped: "the" alone matches nothing, and "the fox" scores as "fox"', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'the' }), []);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'The AND of, to be!' }), [], 'all stopwords');
  t.deepEqual(await store.textSearch({ field: 'body', query: 'the fox', top_k: 100 }), await store.textSearch({ field: 'body', query: 'fox', top_k: 100 }));
});

test('stemming: "running" finds "runs", and "quickly" finds "quick"', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  const run = await expectSingle(t, store, ANIMALS, SCHEMA, 'body', 'running');
  t.deepEqual(ids(run).sort(), ['d2', 'd3']);
  t.deepEqual(ids(await expectSingle(t, store, ANIMALS, SCHEMA, 'body', 'quickly')).sort(), ['d1', 'd2', 'd3']);
});

test('tokens are maximal runs of letters and digits; apostrophes and punctuation separate them; case is ignored', async (t) => {
  const corpus = bodies('c', { p1: "don't-stop e-mail x86_64 ROCK'n'roll", p2: 'Dont stop email x86 64 rock n roll', p3: 'ΣΟΦΙΑ Москва' });
  const store = await storeOf(corpus, SCHEMA);
  for (const query of ['don', 't', 'mail', 'x86', '64', 'rock', 'ROLL', 'dont', 'email', 'σοφια', 'москва', 'МОСКВА'])
    await expectSingle(t, store, corpus, SCHEMA, 'body', query);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'mail' })), ['p1']);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'σοφια' })), ['p3'], 'Greek lowercased');
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'москва' })), ['p3'], 'Cyrillic lowercased');
});

test('ascii_folding off: "café" and "cafe" are different terms', async (t) => {
  const corpus = bodies('c', { accented: 'Café au lait', plain: 'cafe society', other: 'tea room' });
  const store = await storeOf(corpus, SCHEMA);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'café' })), ['accented']);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'CAFE' })), ['plain']);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'CAFÉ' })), ['accented']);
});

test('ascii_folding on: "café" and "cafe" are one term (folding at index and query time), ß and æ spelled out', async (t) => {
  const schemas: Record<string, FtsFieldEntry[]> = { c: [{ field: 'body', ascii_folding: true }] };
  const corpus = bodies('c', { accented: 'Café au lait', plain: 'cafe society', other: 'tea room', street: 'Straße and Æsir' });
  const store = await storeOf(corpus, schemas);
  for (const query of ['café', 'cafe', 'CAFÉ']) {
    const hits = await expectSingle(t, store, corpus, schemas, 'body', query);
    t.deepEqual(ids(hits).sort(), ['accented', 'plain'], query);
  }
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'strasse' })), ['street']);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'aesir' })), ['street']);
});

test('max_token_len drops longer tokens (counted in characters, not bytes) at index and query time', async (t) => {
  const schemas: Record<string, FtsFieldEntry[]> = { c: [{ field: 'body', max_token_len: 4 }] };
  const corpus = bodies('c', { long: 'extraordinary cats', café: 'café cats', ok: 'cats dogs' });
  const store = await storeOf(corpus, schemas);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'extraordinary' }), [], 'a 13-letter token is dropped');
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'café' })), ['café'], '4 characters (5 bytes) is kept');
  // dl counts only kept tokens ("long" has dl 1), and the scores follow.
  await expectSingle(t, store, corpus, schemas, 'body', 'cats');
  t.is(indexField(corpus, 'c', schemas.c[0]).docs.get('c\u0000long')!.dl, 1);
});

test('a List attribute is indexed as its elements joined with single spaces', async (t) => {
  const corpus = docs('c', {
    l1: { body: { List: ['red fox', 'brown', 'fox'] } },
    l2: { body: { List: ['fox'] } },
    l3: { body: str('red') },
    l4: { body: { List: [] } },
  });
  const store = await storeOf(corpus, SCHEMA);
  t.is(fieldText(corpus[0], 'body'), 'red fox brown fox');
  await expectSingle(t, store, corpus, SCHEMA, 'body', 'fox');
  await expectSingle(t, store, corpus, SCHEMA, 'body', 'red brown');
});

test('attributes of other types, or missing, leave the document out of the field', async (t) => {
  const corpus = docs('c', {
    s: { body: str('true 7 fox') },
    i: { body: { Int: 7 } },
    b: { body: { Bool: true } },
    f: { body: { Float: 7 } },
    n: { body: 'Null' },
    m: { title: str('fox') },
  });
  const store = await storeOf(corpus, SCHEMA);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'fox 7 true', top_k: 100 })), ['s']);
  await expectSingle(t, store, corpus, SCHEMA, 'body', 'fox 7 true');
});

// ---- the schema --------------------------------------------------------------------------------------

test('a schema declared after the data indexes the existing documents; later writes are indexed as they commit', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await write(store, ANIMALS.slice(0, 4));
  t.deepEqual(await store.textSearch({ field: 'body', query: 'fox' }), [], 'nothing declared yet');
  t.deepEqual(await store.setFtsSchema('c', ['body']), { ok: true });
  await expectSingle(t, store, ANIMALS.slice(0, 4), SCHEMA, 'body', 'fox dog', 'existing documents');
  await write(store, ANIMALS.slice(4));
  await expectSingle(t, store, ANIMALS, SCHEMA, 'body', 'fox dog', 'after later writes');
});

test('a closed and reopened store answers the same (schema, sealed and logged documents)', async (t) => {
  const dir = tempDir('text-reopen');
  const first = await Store.open({ path: dir, dimension: 4 });
  await write(first, ANIMALS.slice(0, 4));
  await first.setFtsSchema('c', ['body']);
  await first.flush();
  await write(first, ANIMALS.slice(4));
  await write(first, ARTICLES);
  await first.setFtsSchema('a', ARTICLE_SCHEMA.a);
  const queries = [
    { field: 'body', query: 'fox dog' },
    {
      clauses: [
        { field: 'title', query: 'zebra' },
        { field: 'body', query: 'lion', prefix: true },
      ],
      explain: true,
    },
  ];
  const before = await Promise.all(queries.map((q) => first.textSearch({ ...q, top_k: 100 })));
  await first.close();
  const second = await Store.open({ path: dir });
  t.teardown(() => second.close());
  t.deepEqual(await Promise.all(queries.map((q) => second.textSearch({ ...q, top_k: 100 }))), before);
  await expectSingle(t, second, [...ANIMALS, ...ARTICLES], { ...SCHEMA, ...ARTICLE_SCHEMA }, 'body', 'fox lion');
});

test('a schema declared on an empty collection indexes the writes that follow', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.createCollection('c');
  t.deepEqual(await store.setFtsSchema('c', [{ field: 'body', k1: 1.7 }]), { ok: true });
  await write(store, ANIMALS);
  const schemas = { c: [{ field: 'body', k1: 1.7 }] };
  await expectSingle(t, store, ANIMALS, schemas, 'body', 'brown foxes');
});

test('redeclaring replaces the whole schema (fields and their options)', async (t) => {
  const store = await storeOf(ARTICLES, { a: ['title'] });
  t.not((await store.textSearch({ field: 'title', query: 'zebra' })).length, 0);
  await store.setFtsSchema('a', [{ field: 'body', k1: 2, b: 0.2 }]);
  t.deepEqual(await store.textSearch({ field: 'title', query: 'zebra' }), [], 'title is no longer declared');
  await expectSingle(t, store, ARTICLES, { a: [{ field: 'body', k1: 2, b: 0.2 }] }, 'body', 'zebra lion');
  await store.setFtsSchema('a', [{ field: 'body', k1: 0.8, b: 0.9, ascii_folding: true }]);
  await expectSingle(t, store, ARTICLES, { a: [{ field: 'body', k1: 0.8, b: 0.9 }] }, 'body', 'zebra lion', 'options replaced');
});

test('declaring [] drops the schema: every clause then matches nothing, with no error', async (t) => {
  const store = await storeOf(ARTICLES, ARTICLE_SCHEMA);
  await store.setFtsSchema('a', []);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'zebra' }), []);
  t.deepEqual(
    await store.textSearch({
      clauses: [
        { field: 'title', query: 'zebra' },
        { field: 'body', query: 'lion' },
      ],
    }),
    [],
  );
  await store.setFtsSchema('a', ['title']);
  t.not((await store.textSearch({ field: 'title', query: 'zebra' })).length, 0, 'declaring again indexes the documents again');
});

test('setFtsSchema on a missing collection is 404; on an alias it is 400', async (t) => {
  const store = await storeOf(ARTICLES, {});
  await rejectsWith(t, store.setFtsSchema('ghost', ['body']), 404, 'missing');
  await store.putAlias('al', 'a');
  await rejectsWith(t, store.setFtsSchema('al', ['body']), 400, 'alias');
});

test('setFtsSchema refuses each malformed declaration with 400', async (t) => {
  const store = await storeOf(ARTICLES, {});
  const bad: [string, string][] = [
    ['no fields', '{}'],
    ['fields not an array', '{"fields":"body"}'],
    ['entry without a field', '{"fields":[{"k1":1}]}'],
    ['entry a number', '{"fields":[7]}'],
    ['declared twice', '{"fields":["body",{"field":"body"}]}'],
    ['unknown key', '{"fields":[{"field":"body","boost":2}]}'],
    ['unknown top-level key', '{"fields":["body"],"extra":1}'],
    ['k1 negative', '{"fields":[{"field":"body","k1":-0.1}]}'],
    ['k1 a string', '{"fields":[{"field":"body","k1":"1"}]}'],
    ['b above 1', '{"fields":[{"field":"body","b":1.01}]}'],
    ['b negative', '{"fields":[{"field":"body","b":-0.5}]}'],
    ['language french', '{"fields":[{"field":"body","language":"french"}]}'],
    ['ascii_folding a string', '{"fields":[{"field":"body","ascii_folding":"yes"}]}'],
    ['max_token_len 0', '{"fields":[{"field":"body","max_token_len":0}]}'],
    ['max_token_len fractional', '{"fields":[{"field":"body","max_token_len":2.5}]}'],
  ];
  for (const [label, body] of bad) await rejectsWith(t, store.setFtsSchema('a', Buffer.from(body)), 400, label);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'zebra' }), [], 'no refused declaration took effect');
});

// ---- ranked-route options --------------------------------------------------------------------------

// Twelve documents mentioning "fox" a different number of times, in two groups, with timestamps.
const MANY: Doc[] = Array.from({ length: 12 }, (_, i) => ({
  collection: 'c',
  id: `m${String(i).padStart(2, '0')}`,
  attrs: {
    body: str(`${'fox '.repeat(1 + (i % 5))}${'filler '.repeat(i % 3)}dog`),
    g: str(i % 3 === 0 ? 'x' : 'y'),
    ts: { DateTime: 1_000_000 + i * 10_000 },
    n: { Int: i },
  },
}));
MANY.push({ collection: 'c', id: 'nog', attrs: { body: str('fox dog dog') } });

/** A floor half-way between two clearly distinct scores, at or after position `from` of a descending list. */
function floorBetween(scores: number[], from: number): number {
  for (let i = from; i + 1 < scores.length; i++) if (scores[i] - scores[i + 1] > 1e-3 * Math.abs(scores[i])) return (scores[i] + scores[i + 1]) / 2;
  throw new Error('no gap in the scores');
}

test('scope: each collection is scored with its own stats; scope picks the collections; one merged ranking', async (t) => {
  const corpus = [
    ...bodies('a', { a1: 'fox', a2: 'fox dog', a3: 'cat' }),
    ...bodies('b', { b1: 'fox', b2: 'fox fox', b3: 'fox cat', b4: 'cat dog' }),
    ...bodies('none', { n1: 'fox' }),
  ];
  const schemas = { a: ['body'], b: ['body'] };
  const store = await storeOf(corpus, schemas);
  const all = await store.textSearch({ field: 'body', query: 'fox', top_k: 100 });
  assertRanking(t, all, oracleText(corpus, schemas, { clauses: one('body', 'fox') }), 'all collections');
  t.deepEqual(await store.textSearch({ field: 'body', query: 'fox', top_k: 100, scope: [] }), all, 'empty scope is every collection');
  t.not(
    all.find((h) => h.collection === 'a' && h.id === 'a1')!.score,
    all.find((h) => h.collection === 'b' && h.id === 'b1')!.score,
    'the same text scores differently per collection',
  );
  const onlyB = await store.textSearch({ field: 'body', query: 'fox', top_k: 100, scope: ['b'] });
  assertRanking(t, onlyB, oracleText(corpus, schemas, { clauses: one('body', 'fox'), scope: ['b'] }), 'scope b');
  t.deepEqual(await store.textSearch({ field: 'body', query: 'fox', scope: ['none'] }), [], 'a collection without a schema');
});

test('filter: applied before scoring, but the stats stay collection-wide', async (t) => {
  const store = await storeOf(MANY, SCHEMA);
  const hits = await store.textSearch({ field: 'body', query: 'fox dog', top_k: 100, filter: [{ Eq: ['g', str('x')] }] });
  assertRanking(
    t,
    hits,
    oracleText(MANY, SCHEMA, { clauses: one('body', 'fox dog'), keep: (d) => (d.attrs?.g as { Str: string } | undefined)?.Str === 'x' }),
    'filtered',
  );
  const unfiltered = new Map((await store.textSearch({ field: 'body', query: 'fox dog', top_k: 100 })).map((h) => [h.id, h.score]));
  t.true(
    hits.every((h) => unfiltered.get(h.id) === h.score),
    'filtered scores equal unfiltered scores',
  );
  await rejectsWith(t, store.textSearch({ field: 'body', query: 'fox', filter: [{ Regex: ['g', '('] }] }), 400, 'invalid filter');
});

test('offset and top_k tile the ranking; top_k defaults to 10; an offset past the end is empty', async (t) => {
  const store = await storeOf(MANY, SCHEMA);
  const full = await store.textSearch({ field: 'body', query: 'fox', top_k: 100 });
  t.is(full.length, 13);
  assertRanking(t, full, oracleText(MANY, SCHEMA, { clauses: one('body', 'fox') }), 'full');
  t.deepEqual(await store.textSearch({ field: 'body', query: 'fox' }), full.slice(0, 10), 'default top_k 10');
  const pages: Hit[] = [];
  for (let offset = 0; offset < 15; offset += 4) pages.push(...(await store.textSearch({ field: 'body', query: 'fox', offset, top_k: 4 })));
  t.deepEqual(pages, full);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'fox', offset: 13, top_k: 5 }), []);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'fox', offset: 9_990, top_k: 10 }), [], 'offset + top_k = 10000 is accepted');
});

test('min_score is a floor on the raw BM25 score', async (t) => {
  const store = await storeOf(MANY, SCHEMA);
  const full = oracleText(MANY, SCHEMA, { clauses: one('body', 'fox') });
  const floor = floorBetween(
    full.map((h) => h.score),
    5,
  );
  const hits = await store.textSearch({ field: 'body', query: 'fox', top_k: 100, min_score: floor });
  assertRanking(
    t,
    hits,
    full.filter((h) => h.score >= floor),
    'floor',
  );
  t.true(hits.length > 0 && hits.length < full.length);
  t.is((await store.textSearch({ field: 'body', query: 'fox', top_k: 100, min_score: full[0].score * 2 })).length, 0);
  t.is((await store.textSearch({ field: 'body', query: 'fox', top_k: 100, min_score: 0 })).length, 13, 'every BM25 score is positive');
});

test('rank_by Decay subtracts its penalty from the BM25 score, and min_score floors the result', async (t) => {
  const store = await storeOf(MANY, SCHEMA);
  const rank_by = { field: 'ts', origin: 1_200_000, scale: 50_000, decay: 0.5, lambda: 0.8, missing: 0.25 };
  const expected = oracleText(MANY, SCHEMA, { clauses: one('body', 'fox'), rank_by });
  assertRanking(t, await store.textSearch({ field: 'body', query: 'fox', top_k: 100, rank_by: { Decay: rank_by } }), expected, 'rank_by');
  const floor = floorBetween(
    expected.map((h) => h.score),
    6,
  );
  const floored = await store.textSearch({ field: 'body', query: 'fox', top_k: 100, rank_by: { Decay: rank_by }, min_score: floor });
  assertRanking(
    t,
    floored,
    expected.filter((h) => h.score >= floor),
    'rank_by then min_score',
  );
  await rejectsWith(t, store.textSearch({ field: 'body', query: 'fox', rank_by: { Decay: { ...rank_by, scale: 0 } } }), 400, 'bad rank_by');
});

test('limit_per caps hits per stored value of the attribute (documents missing it share a group)', async (t) => {
  const store = await storeOf(MANY, SCHEMA);
  for (const max of [1, 2, 4]) {
    const hits = await store.textSearch({ field: 'body', query: 'fox', top_k: 100, limit_per: { field: 'g', max } });
    assertRanking(t, hits, oracleText(MANY, SCHEMA, { clauses: one('body', 'fox'), limit_per: { field: 'g', max } }), `max ${max}`);
  }
  await rejectsWith(t, store.textSearch({ field: 'body', query: 'fox', limit_per: { field: 'g', max: 0 } }), 400, 'max 0');
});

test('projection: include_attributes / exclude_attributes shape attrs only; Int values come back as bigint', async (t) => {
  const store = await storeOf(MANY, SCHEMA);
  const full = await store.textSearch({ field: 'body', query: 'fox', top_k: 100 });
  const m03 = full.find((h) => h.id === 'm03')!;
  t.deepEqual(m03.attrs, { body: str('fox fox fox fox dog'), g: str('x'), ts: { DateTime: 1_030_000n }, n: { Int: 3n } });
  const included = await store.textSearch({ field: 'body', query: 'fox', top_k: 100, include_attributes: ['n'] });
  t.deepEqual(
    included.map((h) => [h.id, h.score]),
    full.map((h) => [h.id, h.score]),
  );
  t.deepEqual(included.find((h) => h.id === 'm03')!.attrs, { n: { Int: 3n } });
  t.deepEqual(included.find((h) => h.id === 'nog')!.attrs, {});
  const excluded = await store.textSearch({ field: 'body', query: 'fox', top_k: 100, exclude_attributes: ['body', 'ts'] });
  t.deepEqual(
    excluded.map((h) => [h.id, h.score]),
    full.map((h) => [h.id, h.score]),
  );
  t.deepEqual(excluded.find((h) => h.id === 'm03')!.attrs, { g: str('x'), n: { Int: 3n } });
  await rejectsWith(t, store.textSearch({ field: 'body', query: 'fox', include_attributes: ['n'], exclude_attributes: ['g'] }), 400, 'both');
});

test('hits carry no annotations key unless explain or highlight is asked for', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  for (const h of await store.textSearch({ field: 'body', query: 'fox' })) t.false('annotations' in h);
  for (const h of await store.textSearch({ field: 'body', query: 'fox', explain: false })) t.false('annotations' in h);
});

test('a text-only record (no vector) in a dimension > 0 store is found; records with vectors too', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', {
    records: [
      { id: 'with', vector: [1, 0, 0, 0], attrs: { body: str('lantern') } },
      { id: 'without', attrs: { body: str('lantern light') } },
    ],
  });
  await store.setFtsSchema('c', ['body']);
  const corpus = bodies('c', { with: 'lantern', without: 'lantern light' });
  await expectSingle(t, store, corpus, SCHEMA, 'body', 'lantern');
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'light' })), ['without']);
});

test('a dimension-0 (keyword-only) store serves text search', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA, 0);
  await expectSingle(t, store, ANIMALS, SCHEMA, 'body', 'brown fox');
});

// ---- randomized corpora ------------------------------------------------------------------------------

test('randomized corpora written in batches, sealed, deleted and overwritten score as the oracle says', async (t) => {
  for (const seed of [1, 2, 3]) {
    const rand = prng(seed);
    const schemas: Record<string, FtsFieldEntry[]> = {
      a: [{ field: 'body', k1: 0.5 + rand() * 1.5, b: rand() }, 'title'],
      b: [
        { field: 'body', ascii_folding: true, max_token_len: 8 },
        { field: 'title', k1: 2, b: 0.2 },
      ],
    };
    const store = await Store.open({ path: tempDir('text-random'), dimension: 4 });
    t.teardown(() => store.close());
    await store.createCollection('a');
    await store.setFtsSchema('a', schemas.a);
    const live = new Map<string, Doc>();
    const all = randomDocs(rand, 240, ['a', 'b']);
    for (let i = 0; i < all.length; i += 30) {
      await write(store, all.slice(i, i + 30));
      for (const d of all.slice(i, i + 30)) live.set(`${d.collection}/${d.id}`, d);
      if (i === 60) await store.setFtsSchema('b', schemas.b); // b: declared after some of its data
      if (rand() < 0.5) await store.flush();
      // Delete a few and overwrite a few of the documents written so far.
      const keys = [...live.keys()];
      for (let k = 0; k < 3; k++) {
        const key = keys[Math.floor(rand() * keys.length)];
        const d = live.get(key);
        if (!d) continue;
        if (rand() < 0.5) {
          await store.delete(d.collection, { ids: [d.id] });
          live.delete(key);
        } else {
          const over = { ...d, attrs: { ...d.attrs, body: str(phrase(rand, 6)) } };
          await write(store, [over]);
          live.set(key, over);
        }
      }
    }
    const corpus = [...live.values()];
    for (let q = 0; q < 25; q++) {
      const kind = q % 3;
      const clauses =
        kind === 0
          ? [{ field: 'body', query: phrase(rand, 3) }]
          : kind === 1
            ? [
                { field: 'title', query: phrase(rand, 2) },
                { field: 'body', query: phrase(rand, 2) },
              ]
            : [{ field: 'body', query: phrase(rand, 2).slice(0, -1), prefix: true }];
      const combine = rand() < 0.5 ? ('Sum' as const) : ('Max' as const);
      const hits = await store.textSearch({ clauses, combine, top_k: 300, explain: true });
      const expected = oracleText(corpus, schemas, { clauses, combine });
      assertRanking(t, hits, expected, `seed ${seed} query ${q} ${JSON.stringify(clauses)} ${combine}`);
      for (const e of expected.slice(0, 20)) {
        const notes = hits.find((h) => h.collection === e.collection && h.id === e.id)?.annotations?.clauses ?? [];
        t.deepEqual(
          notes.map((n) => [n.field, n.expansion]),
          e.clauses.map((n) => [n.field, n.expansion]),
          `seed ${seed} query ${q} ${e.collection}/${e.id}`,
        );
      }
    }
  }
});

// ---- prefix expansion --------------------------------------------------------------------------------

const RUNS = bodies('c', {
  r1: 'running shoes',
  r2: 'the runner',
  r3: 'runs daily',
  r4: 'ran away',
  r5: 'rune stones',
  r6: 'theme park',
  r7: 'lazy afternoon',
  r8: 'shoe shop',
});

test('prefix: the final token expands to terms starting with it or stems of surface words starting with it', async (t) => {
  const store = await storeOf(RUNS, SCHEMA);
  // "runn" -> surfaces running (stem run) and runner (stem runner); "runs" holds the stem run too.
  const hits = await store.textSearch({ field: 'body', query: 'runn', prefix: true, top_k: 100 });
  t.deepEqual(ids(hits).sort(), ['r1', 'r2', 'r3']);
  assertRanking(t, hits, oracleText(RUNS, SCHEMA, { clauses: one('body', 'runn', true) }), 'runn*');
  // "lazy" is stemmed to "lazi", which does not start with "lazy"; the surface word does.
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'lazy', prefix: true })), ['r7']);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'runn' }), [], 'without prefix, "runn" is just a term');
});

test('prefix: earlier tokens match exactly (analyzed as usual); only the final one expands', async (t) => {
  const store = await storeOf(RUNS, SCHEMA);
  const hits = await store.textSearch({ field: 'body', query: 'shoes ru', prefix: true, top_k: 100 });
  assertRanking(t, hits, oracleText(RUNS, SCHEMA, { clauses: one('body', 'shoes ru', true) }), 'shoes ru*');
  t.deepEqual(ids(hits).sort(), ['r1', 'r2', 'r3', 'r5', 'r8']);
  t.deepEqual(
    ids(await store.textSearch({ field: 'body', query: 'sh runner', prefix: true, top_k: 100 })),
    ['r2'],
    '"sh" is not expanded when it is not final',
  );
  // "running" (stem run) is also among the expansions of "ru": it counts once.
  t.deepEqual(
    await store.textSearch({ field: 'body', query: 'running ru', prefix: true, top_k: 100 }),
    await store.textSearch({ field: 'body', query: 'ru', prefix: true, top_k: 100 }),
  );
});

test('prefix: the final token is never dropped as a stopword ("the" expands to "theme")', async (t) => {
  const store = await storeOf(RUNS, SCHEMA);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'the', prefix: true })), ['r6']);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'the' }), []);
});

test('prefix: the final token is lowercased and, when the field folds, folded; it is not stemmed', async (t) => {
  const schemas = { c: [{ field: 'body', ascii_folding: true }] };
  const corpus = bodies('c', { a: 'Cafés open late', b: 'caffeine', c: 'runners' });
  const store = await storeOf(corpus, schemas);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'CAFÉ', prefix: true, top_k: 100 })), ['a']);
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'CAF', prefix: true, top_k: 100 })).sort(), ['a', 'b']);
  // "runners" stems to "runner": the prefix "runners" (not stemmed) still reaches it through the surface word.
  t.deepEqual(ids(await store.textSearch({ field: 'body', query: 'runners', prefix: true })), ['c']);
});

test('prefix: an expansion that matches nothing contributes nothing', async (t) => {
  const store = await storeOf(RUNS, SCHEMA);
  t.deepEqual(await store.textSearch({ field: 'body', query: 'zzq', prefix: true }), []);
  const hits = await store.textSearch({ field: 'body', query: 'shoes zzq', prefix: true, top_k: 100 });
  assertRanking(t, hits, oracleText(RUNS, SCHEMA, { clauses: one('body', 'shoes zzq', true) }), 'shoes zzq*');
  t.deepEqual(ids(hits).sort(), ['r1', 'r8']);
});

test('prefix in a clause expands only that clause; the shorthand prefix flag is ignored with clauses', async (t) => {
  const corpus = docs('c', {
    x1: { title: str('running'), body: str('runner') },
    x2: { title: str('runner'), body: str('running') },
    x3: { title: str('rune'), body: str('run') },
  });
  const schemas = { c: ['title', 'body'] };
  const store = await storeOf(corpus, schemas);
  const clauses = [
    { field: 'title', query: 'runn', prefix: true },
    { field: 'body', query: 'runn' },
  ];
  const hits = await store.textSearch({ clauses, prefix: true, top_k: 100 } as never);
  assertRanking(t, hits, oracleText(corpus, schemas, { clauses }), 'clause prefix');
  t.deepEqual(ids(hits).sort(), ['x1', 'x2']);
});

/** 300 distinct words sharing the prefix "vox", each its own stem (checked). */
function voxWords(): string[] {
  const letters = 'bcdfghjklmnpqrtvwxz';
  const out: string[] = [];
  for (const a of letters) for (const b of letters) if (out.length < 300 && porter2(`vox${a}${b}`) === `vox${a}${b}`) out.push(`vox${a}${b}`);
  return out;
}

test('prefix: the expansion is capped at 256 terms keeping the commonest; explain reports matched 300, scored 256', async (t) => {
  const words = voxWords();
  t.is(words.length, 300);
  // The first 256 words are in the two "common" documents (df 2); each of the last 44 in one "rare" document (df 1).
  const corpus = [
    ...bodies('c', { common1: words.slice(0, 256).join(' '), common2: words.slice(0, 256).reverse().join(' ') }),
    ...words.slice(256).map((w, i) => ({ collection: 'c', id: `rare${String(i).padStart(2, '0')}`, attrs: { body: str(`${w} filler`) } })),
  ];
  const store = await storeOf(corpus, SCHEMA);
  const hits = await store.textSearch({ field: 'body', query: 'vox', prefix: true, top_k: 100, explain: true });
  t.deepEqual(ids(hits), ['common1', 'common2'], 'the rare completions past the cap score nothing');
  assertRanking(t, hits, oracleText(corpus, SCHEMA, { clauses: one('body', 'vox', true) }), 'capped');
  for (const h of hits) t.deepEqual(h.annotations?.clauses?.[0]?.expansion, { matched: 300, scored: 256 }, h.id);
  // Below the cap every completion is scored: a prefix covering some common and some rare words.
  const p = words[256].slice(0, 4);
  const under = words.filter((w) => w.startsWith(p));
  t.true(under.some((w) => words.indexOf(w) < 256) && under.some((w) => words.indexOf(w) >= 256), `${p} straddles the common and rare words`);
  const narrow = await store.textSearch({ field: 'body', query: p, prefix: true, top_k: 100, explain: true });
  t.is(narrow.length, 2 + under.filter((w) => words.indexOf(w) >= 256).length);
  for (const h of narrow) t.deepEqual(h.annotations?.clauses?.[0]?.expansion, { matched: under.length, scored: under.length }, h.id);
  assertRanking(t, narrow, oracleText(corpus, SCHEMA, { clauses: one('body', p, true) }), `${p}*`);
});

// ---- explain ------------------------------------------------------------------------------------------

test("explain: one {field, score} per matched clause, in query order, scores being each clause's raw BM25", async (t) => {
  const store = await storeOf(ARTICLES, ARTICLE_SCHEMA);
  for (const clauses of [
    [
      { field: 'title', query: 'zebra lion' },
      { field: 'body', query: 'zebra' },
    ],
    [
      { field: 'body', query: 'zebra' },
      { field: 'title', query: 'zebra lion' },
    ],
  ]) {
    for (const combine of ['Sum', 'Max'] as const) {
      const hits = await store.textSearch({ clauses, combine, explain: true, top_k: 100 });
      const expected = oracleText(ARTICLES, ARTICLE_SCHEMA, { clauses, combine });
      assertRanking(t, hits, expected, `${combine} ${clauses[0].field} first`);
      for (const e of expected) {
        const h = hits.find((x) => x.id === e.id);
        const notes = h?.annotations?.clauses ?? [];
        t.deepEqual(
          notes.map((n) => n.field),
          e.clauses.map((n) => n.field),
          `${e.id}: clause order`,
        );
        notes.forEach((n, i) => {
          assertClose(t, n.score, e.clauses[i]?.score ?? NaN, `${e.id} ${n.field}`);
          t.false('expansion' in n, 'no expansion on a non-prefix clause');
        });
      }
    }
  }
});

test('explain: a prefix clause carries expansion {matched, scored}; a plain clause does not', async (t) => {
  const corpus = docs('c', {
    x1: { title: str('running'), body: str('runner shoes') },
    x2: { title: str('walking'), body: str('runs') },
  });
  const schemas = { c: ['title', 'body'] };
  const store = await storeOf(corpus, schemas);
  const clauses = [
    { field: 'body', query: 'shoe ru', prefix: true },
    { field: 'title', query: 'running walking' },
  ];
  const hits = await store.textSearch({ clauses, explain: true, top_k: 10 });
  const expected = oracleText(corpus, schemas, { clauses });
  assertRanking(t, hits, expected, 'prefix explain');
  const x1 = hits.find((h) => h.id === 'x1')!.annotations!.clauses!;
  t.deepEqual(
    x1.map((n) => n.field),
    ['body', 'title'],
  );
  t.deepEqual(x1[0].expansion, { matched: 2, scored: 2 }, 'runner and run');
  t.false('expansion' in x1[1]);
  t.deepEqual(clauseTerms(indexField(corpus, 'c', 'body'), clauses[0]).expansion, { matched: 2, scored: 2 });
});

test('explain with a single-clause spelling reports that one clause', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  const hits = await store.textSearch({ field: 'body', query: 'fox', explain: true });
  for (const h of hits) {
    t.is(h.annotations?.clauses?.length, 1);
    t.is(h.annotations?.clauses?.[0].field, 'body');
    assertClose(t, h.annotations?.clauses?.[0].score, h.score, h.id);
  }
});

// ---- highlight -----------------------------------------------------------------------------------------

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const chars = (s: string) => [...s].length;

/**
 * Checks every fragment of one highlight: an exact slice of the stored text of at most
 * `fragmentChars` characters; each span is one whole matching word as spelled (a word whose term is
 * in `terms`); every matching word lying wholly inside the fragment has a span. Returns the
 * fragments' byte ranges in the stored text.
 */
function checkFragments(
  t: ExecutionContext,
  stored: string,
  fragments: { text: string; spans: [number, number][] }[],
  terms: Set<string>,
  opts: FtsFieldEntry,
  fragmentChars: number,
  label: string,
  mustHoldMatch = true,
): [number, number][] {
  const o = fieldOptions(opts);
  const words = tokenize(stored);
  const whole = utf8(stored);
  const ranges: [number, number][] = [];
  for (const [i, f] of fragments.entries()) {
    const l = `${label} fragment ${i}`;
    t.true(chars(f.text) <= fragmentChars, `${l}: ${chars(f.text)} characters > ${fragmentChars}`);
    const start = stored.indexOf(f.text);
    t.not(start, -1, `${l}: "${f.text}" is not a slice of the stored text`);
    if (start < 0) continue;
    // A window narrower than every matching word is a bare slice with no spans (docs/full-text.md).
    if (f.spans.length === 0 && !mustHoldMatch) continue;
    t.is(stored.indexOf(f.text, start + 1), -1, `${l}: test text must make each fragment unique`);
    const from = Buffer.byteLength(stored.slice(0, start));
    const to = from + utf8(f.text).length;
    ranges.push([from, to]);
    const expected = words.filter((w) => w.start >= from && w.end <= to && terms.has(term(w.word, o) ?? '\u0000')).map((w) => [w.start - from, w.end - from]);
    t.deepEqual(f.spans, expected, `${l}: spans are exactly the whole matching words inside "${f.text}"`);
    for (const [s, e] of f.spans) t.true(terms.has(term(whole.subarray(from + s, from + e).toString('utf8'), o) ?? '\u0000'), `${l}: span ${s}-${e}`);
    if (mustHoldMatch) t.true(f.spans.length > 0, `${l}: a fragment holds a match`);
    // It starts at a word boundary: never between two letters or digits.
    if (start > 0) t.false(/[\p{L}\p{Nd}]/u.test([...stored.slice(0, start)].pop()!) && /[\p{L}\p{Nd}]/u.test([...f.text][0] ?? ''), `${l}: starts mid-word`);
  }
  return ranges;
}

test('highlight {}: one fragment per clause field, byte spans over multibyte text covering the words as spelled', async (t) => {
  const corpus = bodies('c', { h: 'naïve café 東京 Café' });
  const store = await storeOf(corpus, SCHEMA);
  const [hit] = await store.textSearch({ field: 'body', query: 'café 東京', highlight: {} });
  const hl = hit.annotations?.highlights;
  t.is(hl?.length, 1);
  t.is(hl?.[0].field, 'body');
  t.is(hl?.[0].fragments.length, 1, 'max_fragments defaults to 1');
  const f = hl![0].fragments[0];
  const start = utf8('naïve café 東京 Café').indexOf(utf8(f.text));
  t.true(start >= 0);
  const absolute = f.spans.map(([s, e]) => [s + start, e + start]);
  // naïve = 6 bytes, space, café = 5 bytes, space, 東京 = 6 bytes, space, Café = 5 bytes
  t.deepEqual(
    absolute,
    [
      [7, 12],
      [13, 19],
      [20, 25],
    ].filter(([s]) => s >= start),
  );
  t.deepEqual(absolute.length, 3, 'the short text fits one default fragment whole from the first match');
  t.false('clauses' in (hit.annotations ?? {}), 'highlight alone adds no clauses');
});

test('highlight with ascii_folding: the span covers the word as the document spells it', async (t) => {
  const schemas = { c: [{ field: 'body', ascii_folding: true }] };
  const corpus = bodies('c', { h: 'Naïve Café' });
  const store = await storeOf(corpus, schemas);
  const [hit] = await store.textSearch({ field: 'body', query: 'naive', highlight: {} });
  const f = hit.annotations!.highlights![0].fragments[0];
  t.deepEqual(
    f.spans.map(([s, e]) => utf8(f.text).subarray(s, e).toString('utf8')),
    ['Naïve'],
  );
});

test('highlight: fragments never exceed fragment_chars characters, never cut a codepoint, and spans cover whole matching words', async (t) => {
  let n = 0;
  const filler = (k: number) => Array.from({ length: k }, () => ['żółw', 'über', 'niño', '東京都', 'plain', 'ćma'][n % 6] + String(n++)).join(' ');
  const text = `${filler(7)} Running foxes ${filler(12)} runs ${filler(3)} FOX ${filler(20)} running runner Runs ${filler(5)}`;
  const corpus = bodies('c', { long: text });
  const store = await storeOf(corpus, SCHEMA);
  const terms = new Set(analyze('run fox', fieldOptions('body')));
  for (const fragment_chars of [1, 3, 5, 12, 30, 60, 10_000]) {
    for (const max_fragments of [1, 3, 100]) {
      const label = `fragment_chars ${fragment_chars}, max_fragments ${max_fragments}`;
      const [hit] = await store.textSearch({ field: 'body', query: 'run fox', highlight: { fragment_chars, max_fragments } });
      const frags = hit.annotations?.highlights?.[0]?.fragments ?? [];
      t.true(frags.length <= max_fragments, `${label}: ${frags.length} fragments`);
      // "FOX" (3 characters) fits any fragment of 3 or more, so there is at least one fragment holding it.
      if (fragment_chars >= 3) t.true(frags.length >= 1, `${label}: ${frags.length} fragments`);
      // Below the longest matching word ("Running", 7) a fragment may be unable to hold a whole word.
      const ranges = checkFragments(t, text, frags, terms, 'body', fragment_chars, label, fragment_chars >= 7);
      const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < sorted.length; i++) t.true(sorted[i][0] >= sorted[i - 1][1], `${label}: fragments overlap`);
    }
  }
  // With room for everything, one fragment holds all six matches.
  const [all] = await store.textSearch({ field: 'body', query: 'run fox', highlight: { fragment_chars: 10_000 } });
  t.is(all.annotations?.highlights?.[0]?.fragments[0]?.spans.length, 6);
});

test('highlight: a clause field with a matching word has its entry even when fragment_chars is below every matching word', async (t) => {
  const corpus = bodies('c', { x: 'Running foxes' });
  const store = await storeOf(corpus, SCHEMA);
  const [hit] = await store.textSearch({ field: 'body', query: 'run fox', highlight: { fragment_chars: 1 } });
  t.deepEqual(
    hit.annotations?.highlights?.map((h) => h.field),
    ['body'],
  );
  for (const f of hit.annotations?.highlights?.[0]?.fragments ?? []) t.true(chars(f.text) <= 1 && f.spans.length === 0, JSON.stringify(f));
});

test('highlight: fragments are chosen greedily by how many matching words they hold, then earlier first', async (t) => {
  const pad = (n: number) => Array.from({ length: n }, () => 'lorem').join(' ');
  // region A (earliest): 1 match; region B: 3 matches; region C: 1 match.
  const text = `alpha ${pad(20)} beta gamma beta ${pad(20)} gamma ${pad(20)}`;
  const corpus = bodies('c', { g: text });
  const store = await storeOf(corpus, SCHEMA);
  const terms = new Set(['alpha', 'beta', 'gamma']);
  const [hit] = await store.textSearch({ field: 'body', query: 'alpha beta gamma', highlight: { fragment_chars: 40, max_fragments: 3 } });
  const frags = hit.annotations!.highlights![0].fragments;
  checkFragments(t, text, frags, terms, 'body', 40, 'greedy');
  t.deepEqual(
    frags.map((f) => f.spans.length),
    [3, 1, 1],
  );
  t.true(frags[1].text.includes('alpha'), 'of the one-match fragments the earlier comes first');
  t.true(frags[2].text.includes('gamma') && !frags[2].text.includes('alpha'));
  const [top] = await store.textSearch({ field: 'body', query: 'alpha beta gamma', highlight: { fragment_chars: 40 } });
  t.deepEqual(
    top.annotations!.highlights![0].fragments.map((f) => f.spans.length),
    [3],
    'max_fragments 1 keeps the best',
  );
});

test('highlight works when the field is excluded by projection', async (t) => {
  const corpus = docs('c', { p: { body: str('a fox in the snow'), tag: str('t') } });
  const store = await storeOf(corpus, SCHEMA);
  for (const projection of [{ exclude_attributes: ['body'] }, { include_attributes: ['tag'] }, { include_attributes: [] }]) {
    const [hit] = await store.textSearch({ field: 'body', query: 'fox', highlight: {}, ...projection });
    t.false('body' in hit.attrs, JSON.stringify(projection));
    const f = hit.annotations?.highlights?.[0]?.fragments[0];
    t.truthy(f, JSON.stringify(projection));
    if (f)
      t.deepEqual(
        f.spans.map(([s, e]) => utf8(f.text).subarray(s, e).toString()),
        ['fox'],
      );
  }
});

test('highlight: one entry per clause field in which the hit has a matching word (prefix expansions included)', async (t) => {
  const corpus = docs('c', {
    x: { title: str('Runners guide'), body: str('How to run a marathon; a runner runs') },
    y: { title: str('Cooking'), body: str('runs of pasta') },
  });
  const store = await storeOf(corpus, { c: ['title', 'body'] });
  const clauses = [
    { field: 'title', query: 'runn', prefix: true },
    { field: 'body', query: 'running' },
  ];
  const hits = await store.textSearch({ clauses, highlight: { max_fragments: 5 }, explain: true });
  const x = hits.find((h) => h.id === 'x')!;
  t.deepEqual(
    x.annotations?.highlights?.map((h) => h.field),
    ['title', 'body'],
  );
  const title = x.annotations!.highlights![0].fragments[0];
  t.deepEqual(
    title.spans.map(([s, e]) => utf8(title.text).subarray(s, e).toString()),
    ['Runners'],
  );
  const bodySpans = x.annotations!.highlights![1].fragments.flatMap((f) => f.spans.map(([s, e]) => utf8(f.text).subarray(s, e).toString()));
  t.deepEqual(bodySpans.sort(), ['run', 'runs'], '"runner" is not the stem run');
  const y = hits.find((h) => h.id === 'y')!;
  t.deepEqual(
    y.annotations?.highlights?.map((h) => h.field),
    ['body'],
  );
  t.deepEqual(
    y.annotations?.clauses?.map((c) => c.field),
    ['body'],
  );
});

test('highlight options are validated: max_fragments 1..100, fragment_chars 1..10000', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  for (const highlight of [
    { max_fragments: 0 },
    { max_fragments: 101 },
    { fragment_chars: 0 },
    { fragment_chars: 10_001 },
    { max_fragments: 1.5 },
    { bogus: 1 } as never,
  ]) {
    await rejectsWith(t, store.textSearch({ field: 'body', query: 'fox', highlight }), 400, JSON.stringify(highlight));
  }
  t.is((await store.textSearch({ field: 'body', query: 'fox', highlight: { max_fragments: 100, fragment_chars: 10_000 } })).length, 3);
});

// ---- validation ---------------------------------------------------------------------------------------

test('request validation: each malformed /text-search body is 400', async (t) => {
  const store = await storeOf(ANIMALS, SCHEMA);
  const bad: [string, string][] = [
    ['empty clauses', '{"clauses":[]}'],
    ['field+query with clauses', '{"field":"body","query":"fox","clauses":[{"field":"body","query":"fox"}]}'],
    ['no text at all', '{}'],
    ['field without query', '{"field":"body"}'],
    ['query not a string', '{"field":"body","query":7}'],
    ['clause without query', '{"clauses":[{"field":"body"}]}'],
    ['clause unknown key', '{"clauses":[{"field":"body","query":"fox","boost":2}]}'],
    ['combine Min', '{"field":"body","query":"fox","combine":"Min"}'],
    ['offset+top_k > 10000', '{"field":"body","query":"fox","offset":9991,"top_k":10}'],
    ['top_k > 10000', '{"field":"body","query":"fox","top_k":10001}'],
    ['diversity 1.5', '{"field":"body","query":"fox","diversity":1.5}'],
    ['plan', '{"field":"body","query":"fox","plan":true}'],
    ['unknown field', '{"field":"body","query":"fox","bogus":1}'],
    ['malformed JSON', '{"field":"body",'],
    ['explain not a boolean', '{"field":"body","query":"fox","explain":"yes"}'],
  ];
  for (const [label, body] of bad) await rejectsWith(t, store.textSearch(Buffer.from(body)), 400, label);
});
