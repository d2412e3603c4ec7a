// Upsert and delete: a batch is all-or-nothing, overwrites and deletes leave dead rows that
// footprint counts exactly, concurrent batches share a group commit, and readers work on
// snapshots (a cursor sees the state it opened on; a search never sees half a batch).
import test from 'ava';
import { type Hit, type StoredRecord, Store, parseExact } from '../../lib/index';
import { rejectsWith, statsOfWrites, tempDir } from './helpers';

const DIM = 4;
const good = (i: number, tag = 'g') => `{"id":"${tag}${i}","vector":[${i + 1},1,2,3],"attrs":{"n":{"Int":${i}}}}`;

/** count good records with `bad` spliced in at index at (by default 1000, and the 500th). */
function batchWithBad(bad: string, count = 1000, at = 499): Buffer {
  const recs = Array.from({ length: count }, (_, i) => (i === at ? bad : good(i, 'new')));
  return Buffer.from(`{"records":[${recs.join(',')}]}`);
}

async function snapshot(store: Store) {
  const collections = await store.collections();
  const records: Record<string, StoredRecord[]> = {};
  for (const c of collections) records[c] = await store.records(c);
  return { collections, records, stats: statsOfWrites(await store.stats()), version: store.commitVersion(), footprint: store.footprintCached() };
}

// [what, the 500th record, whether the message can name the record (simdjson refuses numbers it
// cannot represent while parsing the whole document, before any record is looked at)]
const BAD_500TH: [string, string, boolean?][] = [
  ['a vector of the wrong length', '{"id":"bad","vector":[1,2]}'],
  ['a component overflowing f32 (1e39)', '{"id":"bad","vector":[1e39,1,1,1]}'],
  ['a component that is not a number', '{"id":"bad","vector":[1,"2",3,4]}'],
  ['a bad Value ({"Int": 1.5})', '{"id":"bad","vector":[1,1,1,1],"attrs":{"a":{"Int":1.5}}}'],
  ['an Int beyond 64 bits', '{"id":"bad","vector":[1,1,1,1],"attrs":{"a":{"Int":99999999999999999999}}}', false],
  ['an unknown Value variant', '{"id":"bad","vector":[1,1,1,1],"attrs":{"a":{"Blob":"x"}}}'],
  ['a missing id', '{"vector":[1,1,1,1]}'],
  ['an empty id', '{"id":"","vector":[1,1,1,1]}'],
  ['an id that is not a string', '{"id":500,"vector":[1,1,1,1]}'],
  ['an unknown field', '{"id":"bad","vector":[1,1,1,1],"vectr":[1]}'],
  ['attrs that are not an object', '{"id":"bad","attrs":[1]}'],
  ['a record that is not an object', '"bad"'],
  ['an undeclared named vector', '{"id":"bad","vectors":{"title":[1,1,1,1]}}'],
  ['a zero vector under Cosine', '{"id":"bad","vector":[0,0,0,0]}'],
];

// A body of 512 KiB or more (12,000 of these records) is read in parts on two or more threads; a
// bad record in a later part gets the answer the whole body gets.
for (const [count, at, size] of [
  [1000, 499, 'a batch'],
  [12_000, 8_999, 'a batch read in parts'],
] as const) {
  for (const [what, bad, named = true] of BAD_500TH) {
    test(`${size} whose record ${at + 1} of ${count} has ${what} is 400 and changes nothing`, async (t) => {
      const dir = tempDir();
      let store = await Store.open({ path: dir, dimension: DIM, distance: 'Cosine' });
      await store.upsert('c', Buffer.from(`{"records":[${[0, 1, 2].map((i) => good(i)).join(',')}]}`));
      const before = await snapshot(store);
      const e = await rejectsWith(t, store.upsert('c', batchWithBad(bad, count, at)), 400);
      if (named) t.regex(e.message, new RegExp(`records\\[${at}\\]|'bad'`), `the message points at the record: ${e.message}`);
      await rejectsWith(t, store.upsert('fresh', batchWithBad(bad, count, at)), 400, 'into a new collection');
      t.deepEqual(await snapshot(store), before, 'records, stats, footprint, collections and commit version are unchanged');
      // Nothing reached the log either: a reopen shows the same store.
      await store.close();
      store = await Store.open({ path: dir });
      const after = await snapshot(store);
      t.deepEqual(after.records, before.records);
      t.deepEqual(after.stats, before.stats);
      t.deepEqual(after.collections, ['c']);
      await store.close();
    });
  }
}

test('a batch read in parts (512 KiB and more) stores every record as sent, compact or indented, the later of an id twice winning', async (t) => {
  for (const indent of [0, 1]) {
    const store = await Store.open({ inMemory: true, dimension: DIM, distance: 'Euclidean' });
    // The strings hold what a joint between records looks like.
    const records = Array.from({ length: 12_000 }, (_, i) => ({ id: `r${i}`, vector: [i, 1, 2, 3], attrs: { s: { Str: `x},{"id":${i}` }, n: { Int: i } } }));
    records.push({ ...records[5], vector: [-1, 0, 0, 0] });
    await store.upsert('c', Buffer.from(JSON.stringify({ records }, null, indent)));
    const stored = new Map((await store.records('c')).map((r) => [r.id, r]));
    t.is(stored.size, 12_000);
    const wrong = records.slice(0, 12_000).filter((r, i) => {
      const got = stored.get(r.id);
      const vector = i === 5 ? [-1, 0, 0, 0] : r.vector;
      return got?.vector?.join() !== vector.join() || JSON.stringify(got.attrs, (_, v) => (typeof v === 'bigint' ? Number(v) : v)) !== JSON.stringify(r.attrs);
    });
    t.deepEqual(wrong, [], `indent ${indent}: every record as sent`);
    await store.close();
  }
});

test('a batch with a 1e39 component names the component and the f32 range', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  const e = await rejectsWith(t, store.upsert('c', batchWithBad('{"id":"bad","vector":[1,1,-1e39,1]}')), 400);
  t.regex(e.message, /records\[499\]\.vector\[2\]/);
});

test('a number the parser cannot hold is 400 naming its field (records[i].attrs.k.Int, query[i]) and writes nothing', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  t.teardown(() => store.close());
  const e = await rejectsWith(t, store.upsert('c', batchWithBad('{"id":"bad","vector":[1,1,1,1],"attrs":{"n":{"Int":99999999999999999999}}}')), 400);
  t.regex(
    e.message,
    /^records\[499\]\.attrs\.n\.Int is 99999999999999999999, out of range: integers must fit in signed 64 bits; a Float holds larger numbers$/,
  );
  t.is(store.footprintCached().rows, 0);
  const q = await rejectsWith(t, store.searchJson(Buffer.from('{"query":[1,1,NaN,1]}')), 400);
  t.regex(q.message, /^query\[2\] is NaN: NaN and Infinity have no JSON form/);
});

const MALFORMED: [string, Buffer][] = [
  ['malformed JSON', Buffer.from('{"records":[{"id":"a","vector":[1,2,3,4]},]}')],
  ['a NaN literal', Buffer.from('{"records":[{"id":"a","vector":[NaN,2,3,4]}]}')],
  ['an Infinity literal', Buffer.from('{"records":[{"id":"a","vector":[Infinity,2,3,4]}]}')],
  ['a truncated body', batchWithBad(good(499, 'x')).subarray(0, 30_000)],
  ['a body cut one byte short', Buffer.from('{"records":[{"id":"a","vector":[1,2,3,4]}]')],
  ['invalid UTF-8 in an id', Buffer.concat([Buffer.from('{"records":[{"id":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('","vector":[1,2,3,4]}]}')])],
  ['an overlong UTF-8 sequence', Buffer.concat([Buffer.from('{"records":[{"id":"a'), Buffer.from([0xc0, 0xaf]), Buffer.from('","vector":[1,2,3,4]}]}')])],
  [
    'invalid UTF-8 in an attr Str',
    Buffer.concat([Buffer.from('{"records":[{"id":"a","vector":[1,2,3,4],"attrs":{"s":{"Str":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}}]}')]),
  ],
  ['5000 nested arrays', Buffer.from('['.repeat(5000) + ']'.repeat(5000))],
  [
    '5000 nested arrays inside a record',
    Buffer.from(`{"records":[{"id":"a","vector":[1,2,3,4],"attrs":{"l":{"List":${'['.repeat(5000)}${']'.repeat(5000)}}}}]}`),
  ],
  ['5000 nested objects', Buffer.from(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`)],
  ['an empty body', Buffer.alloc(0)],
  ['whitespace only', Buffer.from('   \n')],
  ['a body that is an array', Buffer.from('[{"id":"a","vector":[1,2,3,4]}]')],
  ['a body that is null', Buffer.from('null')],
  ['an object without records', Buffer.from('{}')],
  ['records that is not an array', Buffer.from('{"records":{"id":"a"}}')],
  ['an unknown top-level field', Buffer.from('{"records":[],"upsert":true}')],
  ['trailing garbage', Buffer.from('{"records":[{"id":"a","vector":[1,2,3,4]}]} {}')],
  ['a NUL byte after the document', Buffer.from('{"records":[{"id":"a","vector":[1,2,3,4]}]}\u0000')],
];

test('malformed, truncated, invalid UTF-8 and deeply nested bodies are 400 and change nothing', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: DIM });
  await store.upsert('c', Buffer.from(`{"records":[${good(0)}]}`));
  const before = await snapshot(store);
  for (const [what, body] of MALFORMED) {
    await rejectsWith(t, store.upsert('c', body), 400, `upsert: ${what}`);
    await rejectsWith(t, store.upsert('fresh', body), 400, `upsert into a new collection: ${what}`);
    await rejectsWith(t, store.delete('c', body), 400, `delete: ${what}`);
    await rejectsWith(t, store.searchJson(body), 400, `search: ${what}`);
  }
  t.deepEqual(await snapshot(store), before);
  await store.close();
});

test('a bad batch among concurrent good batches fails alone; the good ones commit', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: DIM });
  const calls = Array.from({ length: 10 }, (_, b) =>
    store.upsert('c', Buffer.from(`{"records":[${Array.from({ length: 50 }, (_, i) => good(b * 50 + i)).join(',')}]}`)),
  );
  calls.splice(5, 0, store.upsert('c', Buffer.from('{"records":[{"id":"x","vectors":{"undeclared":[1,1,1,1]}}]}')));
  const settled = await Promise.allSettled(calls);
  t.is(settled.filter((s) => s.status === 'rejected').length, 1);
  t.is((settled[5] as PromiseRejectedResult).reason.status, 400);
  t.is((await store.records('c')).length, 500);
  t.is((await store.stats()).footprint.doc_count, 500);
  await store.close();
});

// ---- overwrite and delete ----

test('upsert of an existing id overwrites it: one live record with the new data', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 3, distance: 'Euclidean' });
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 1, 1], attrs: { v: { Int: 1 }, old: { Bool: true } } }] });
  await store.upsert('c', { records: [{ id: 'a', vector: [2, 2, 2], attrs: { v: { Int: 2 } } }] });
  t.deepEqual(await store.records('c'), [{ id: 'a', vector: [2, 2, 2], attrs: { v: { Int: 2n } } }]);
  const hits = await store.search({ query: [2, 2, 2] });
  t.deepEqual(
    hits.map((h) => [h.id, h.score === 0, h.attrs]),
    [['a', true, { v: { Int: 2n } }]],
  );
  // Overwriting with a text-only record drops the vector.
  await store.upsert('c', { records: [{ id: 'a', attrs: { v: { Int: 3 } } }] });
  t.deepEqual(await store.records('c'), [{ id: 'a', vector: null, attrs: { v: { Int: 3n } } }]);
  t.deepEqual(await store.search({ query: [2, 2, 2] }), []);
});

test('the same id twice in one batch: the later one wins and one record is live', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2, distance: 'DotProduct' });
  await store.upsert('c', {
    records: [
      { id: 'a', vector: [1, 0] },
      { id: 'a', vector: [0, 1] },
    ],
  });
  t.deepEqual(
    (await store.records('c')).map((r) => [r.id, r.vector]),
    [['a', [0, 1]]],
  );
  const f = (await store.stats()).footprint;
  t.is(f.doc_count, 1);
  t.is(f.rows, 2);
  t.is(f.dead_rows, 1);
});

test('footprint counts rows, dead_rows, doc_count and vector_bytes = rows x dimension x 4 exactly through overwrites and deletes', async (t) => {
  const dir = tempDir();
  let store = await Store.open({ path: dir, dimension: 3 });
  // Twenty more records per collection keep every segment's dead share under the 30% that makes
  // the background compaction rewrite it, so the dead rows stay to be counted.
  const fillers = Array.from({ length: 20 }, (_, i) => ({ id: `f${i}`, vector: [1, 1, 1] }));
  const expectFootprint = async (rows: number, dead: number, docs: number, label: string) => {
    const { segments, code_bytes, ann_index_bytes, id_index_bytes, live_id_table_bytes, vector_bytes_read_from_files, ...footprint } = (await store.stats())
      .footprint;
    t.deepEqual(footprint, { rows, dead_rows: dead, dimension: 3, vector_bytes: rows * 3 * 4, doc_count: docs }, label);
    const cached = store.footprintCached();
    t.deepEqual(
      { rows: cached.rows, dead_rows: cached.dead_rows, doc_count: cached.doc_count, collections: cached.collections, segments: cached.segments },
      { rows, dead_rows: dead, doc_count: docs, collections: (await store.collections()).length, segments },
      `${label} (cached)`,
    );
  };
  await expectFootprint(0, 0, 0, 'empty');
  await store.upsert('a', { records: [...fillers, ...['x', 'y', 'z'].map((id) => ({ id, vector: [1, 2, 3] }))] });
  await store.upsert('b', { records: [...fillers, { id: 'x', vector: [1, 2, 3] }] });
  await expectFootprint(44, 0, 44, 'records in two collections');
  await store.upsert('a', {
    records: [
      { id: 'x', vector: [3, 2, 1] },
      { id: 'w', vector: [3, 2, 1] },
    ],
  });
  await expectFootprint(46, 1, 45, 'one overwrite, one new');
  t.deepEqual(await store.delete('a', { ids: ['y', 'nope', 'y'] }), { deleted: 1 }, 'delete counts ids that existed, once');
  await expectFootprint(46, 2, 44, 'after a delete');
  t.deepEqual(await store.delete('a', { ids: ['y'] }), { deleted: 0 }, 'deleting again finds nothing');
  t.deepEqual(await store.delete('b', { ids: ['x'] }), { deleted: 1 }, 'the same id in another collection is its own record');
  await expectFootprint(46, 3, 43, 'after the second delete');
  t.deepEqual(
    (await store.records('a'))
      .map((r) => r.id)
      .filter((id) => !id.startsWith('f'))
      .sort(),
    ['w', 'x', 'z'],
  );
  t.deepEqual((await store.records('b')).length, 20);
  await store.flush();
  await expectFootprint(46, 3, 43, 'after flush');
  await store.close();
  store = await Store.open({ path: dir });
  await expectFootprint(46, 3, 43, 'after a reopen');
  // Overwriting a row that lives in a sealed segment counts a dead row as well.
  await store.upsert('a', { records: [{ id: 'z', vector: [0, 0, 1] }] });
  await expectFootprint(47, 4, 43, 'overwrite of a sealed row');
  await store.close();
  store = await Store.open({ path: dir });
  await expectFootprint(47, 4, 43, 'after a second checkpoint and reopen');
  t.deepEqual(
    (await store.records('a'))
      .filter((r) => !r.id.startsWith('f'))
      .map((r) => [r.id, r.vector!.map((x) => Math.round(x * 1e4) / 1e4)])
      .sort(),
    [
      ['w', [0.8018, 0.5345, 0.2673]],
      ['x', [0.8018, 0.5345, 0.2673]],
      ['z', [0, 0, 1]],
    ],
  );
  await store.close();
});

test('delete returns the count of ids that existed; deleting from a missing collection is 404', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  await store.upsert('c', { records: ['a', 'b', 'c'].map((id) => ({ id, vector: [1, 1] })) });
  t.deepEqual(await store.delete('c', { ids: [] }), { deleted: 0 });
  t.deepEqual(await store.delete('c', { ids: ['a', 'c', 'zz'] }), { deleted: 2 });
  t.deepEqual(
    (await store.records('c')).map((r) => r.id),
    ['b'],
  );
  await rejectsWith(t, store.delete('missing', { ids: ['a'] }), 404);
  await rejectsWith(t, store.delete('c', Buffer.from('{"ids":"a"}')), 400);
  await rejectsWith(t, store.delete('c', Buffer.from('{"ids":[1]}')), 400);
});

test('upsert returns the number of records written and is idempotent by id', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  const body = { records: ['a', 'b'].map((id) => ({ id, vector: [1, 2], attrs: { k: { Str: id } } })) };
  t.deepEqual(await store.upsert('c', body), { upserted: 2 });
  const once = await store.records('c');
  t.deepEqual(await store.upsert('c', body), { upserted: 2 });
  t.deepEqual(await store.records('c'), once);
  t.deepEqual(await store.upsert('c', { records: [] }), { upserted: 0 });
});

// ---- group commit ----

test('group commit: 20 concurrent upserts all resolve, all data is present, commitVersion grows by 20', async (t) => {
  const dir = tempDir();
  let store = await Store.open({ path: dir, dimension: DIM });
  await store.createCollection('c');
  const v0 = store.commitVersion();
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, b) => store.upsert('c', Buffer.from(`{"records":[${Array.from({ length: 100 }, (_, i) => good(b * 100 + i)).join(',')}]}`))),
  );
  t.deepEqual(
    results,
    Array.from({ length: 20 }, () => ({ upserted: 100 })),
  );
  t.is(store.commitVersion(), v0 + 20);
  const ids = new Set((await store.records('c')).map((r) => r.id));
  t.is(ids.size, 2000);
  for (let i = 0; i < 2000; i++) t.true(ids.has(`g${i}`));
  await store.close();
  store = await Store.open({ path: dir });
  t.is((await store.records('c')).length, 2000);
  t.is(store.commitVersion(), v0 + 20);
  await store.close();
});

// ---- snapshots ----

test('a records cursor opened before an upsert and a delete sees the old state, piece by piece', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: 2 });
  await store.upsert('c', { records: Array.from({ length: 200 }, (_, i) => ({ id: `r${i}`, vector: [1, i], attrs: { gen: { Int: 0 } } })) });
  const expected = await store.records('c');
  const cursor = await store.recordsCursor('c');
  const pieces: Buffer[] = [];
  const first = await cursor.next(64);
  t.truthy(first);
  pieces.push(first!);
  await store.upsert('c', { records: Array.from({ length: 200 }, (_, i) => ({ id: `r${i}`, vector: [2, i], attrs: { gen: { Int: 1 } } })) });
  await store.upsert('c', { records: [{ id: 'brand-new', vector: [1, 1] }] });
  await store.delete('c', { ids: ['r0', 'r199', 'r100'] });
  await store.flush(); // even a checkpoint in the middle does not disturb the cursor
  let count = 1;
  for (let piece = await cursor.next(64); piece !== null; piece = await cursor.next(64)) {
    pieces.push(piece);
    count++;
  }
  cursor.close();
  t.true(count > 10, 'small maxBytes gives many pieces');
  t.deepEqual(parseExact(Buffer.concat(pieces)), expected);
  const now = await store.records('c');
  t.is(now.length, 198);
  t.true(now.every((r) => r.id === 'brand-new' || (r.attrs.gen as { Int: bigint }).Int === 1n));
  await store.close();
});

test('a records cursor keeps reading its snapshot after the collection is dropped and its files are removed', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: 2 });
  await store.upsert('c', { records: Array.from({ length: 300 }, (_, i) => ({ id: `r${i}`, vector: [1, i], attrs: { s: { Str: 'x'.repeat(i % 50) } } })) });
  await store.flush();
  const expected = await store.records('c');
  const cursor = await store.recordsCursor('c');
  const pieces = [(await cursor.next(100))!];
  await store.dropCollection('c');
  await store.flush(); // the checkpoint deletes the dropped collection's segment files
  await store.upsert('c', { records: [{ id: 'other', vector: [1, 1] }] });
  for (let p = await cursor.next(100); p !== null; p = await cursor.next(100)) pieces.push(p);
  cursor.close();
  t.deepEqual(parseExact(Buffer.concat(pieces)), expected);
  t.deepEqual(
    (await store.records('c')).map((r) => r.id),
    ['other'],
  );
  await store.close();
});

test('a closed records cursor can be closed again; next() after close rejects', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 1] }] });
  const cursor = await store.recordsCursor('c');
  cursor.close();
  t.notThrows(() => cursor.close());
  await t.throwsAsync(async () => cursor.next());
  await rejectsWith(t, store.recordsCursor('missing'), 404);
});

test('a concurrent reader never sees half a batch', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: DIM, distance: 'DotProduct' });
  const N = 1000;
  const batch = (gen: number) =>
    Buffer.from(
      `{"records":[${Array.from({ length: N }, (_, i) => `{"id":"r${i}","vector":[${i % 7},1,${gen % 5},1],"attrs":{"gen":{"Int":${gen}}}}`).join(',')}]}`,
    );
  await store.upsert('c', batch(0));
  let writing = true;
  let reads = 0;
  const gensOf = (hits: { attrs: Hit['attrs'] }[]) => new Set(hits.map((h) => (h.attrs.gen as { Int: bigint }).Int));
  const reader = (async () => {
    while (writing) {
      const hits = await store.search({ query: [1, 1, 1, 1], top_k: 2 * N });
      t.is(hits.length, N, 'exactly one live row per id');
      const gens = gensOf(hits);
      if (gens.size !== 1) t.fail(`a search saw generations ${[...gens].join(', ')}`);
      reads++;
    }
  })();
  const recordsReader = (async () => {
    while (writing) {
      const recs = await store.records('c');
      t.is(recs.length, N);
      const gens = gensOf(recs);
      if (gens.size !== 1) t.fail(`records() saw generations ${[...gens].join(', ')}`);
    }
  })();
  for (let gen = 1; gen <= 30; gen++) {
    await store.upsert('c', batch(gen));
    if (gen === 15) await store.flush();
  }
  writing = false;
  await Promise.all([reader, recordsReader]);
  t.true(reads > 0);
  const final = await store.search({ query: [1, 1, 1, 1], top_k: 2 * N });
  t.deepEqual([...gensOf(final)], [30n]);
  await store.close();
});
