import test, { type ExecutionContext } from 'ava';
import { cpSync, existsSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import * as path from 'node:path';
import { type Filter, Store } from '../../lib/index';
import { prng, randomVector, tempDir } from './helpers';

// The full-text postings, filter indexes and id indexes of sealed segments live in files beside
// them (seg-N.text, seg-N.filter, seg-N.ids): written at the seal, opened in place at the next
// open, rebuilt (and rewritten, by the writer only) when missing, damaged or declared otherwise.
// footprintCached() says how many of those parts are served from their files (derived_mapped)
// and how many this process built from rows (derived_built); file identities (inode, mtime) say
// whether a file was rewritten.

const DIM = 4;
const WORDS = 'river stone quick brown fox jumps over lazy dogs running runner cafe naive harbor lantern meadow'.split(' ');
const DERIVED = /^seg-\d+\.(text|filter|ids)$/;
const KINDS = ['text', 'filter', 'ids'];

interface Doc {
  id: string;
  vector: number[];
  body: string;
}

function docs(seed: number, from: number, count: number): Doc[] {
  const rand = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const n = 2 + Math.floor(rand() * 7);
    const body = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
    return { id: `d${from + i}`, vector: randomVector(rand, DIM), body };
  });
}

async function upsert(store: Store, batch: Doc[]): Promise<void> {
  await store.upsert('docs', { records: batch.map((d) => ({ id: d.id, vector: d.vector, attrs: { body: { Str: d.body } } })) });
}

// Three sealed segments, the last overwriting d1900..d1999 of the second: too few and too little
// dead for the background compaction to touch (a test below makes it merge a fourth).
const BATCHES = [
  [1, 0, 1000],
  [2, 1000, 1000],
  [3, 1900, 200],
];
const SEGMENTS = BATCHES.length;
const PARTS = 3 * SEGMENTS;

/** A store with an fts-schema and a filter index on `body`, one sealed segment per batch. */
async function buildStore(dir: string): Promise<Store> {
  const store = await Store.open({ path: dir, dimension: DIM });
  await store.createCollection('docs');
  await store.setFtsSchema('docs', ['body']);
  await store.setFilterIndex('docs', ['body']);
  for (const [seed, from, count] of BATCHES) {
    await upsert(store, docs(seed, from, count));
    await store.flush();
  }
  return store;
}

const eachSegment = (kind: string) => Array.from({ length: SEGMENTS }, (_, i) => `seg-${i + 1}.${kind}`);

const sealedSegments = (dir: string) => readdirSync(dir).filter((f) => /^seg-\d+\.rows$/.test(f)).length;
const derivedFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => DERIVED.test(f))
    .sort();

/** Each derived file's identity: a rewrite (temporary file, rename) changes the inode. */
function identities(dir: string): Record<string, string> {
  return Object.fromEntries(derivedFiles(dir).map((f) => [f, `${statSync(path.join(dir, f)).ino}:${statSync(path.join(dir, f)).mtimeMs}`]));
}

function counts(store: Store): { mapped: number; built: number } {
  const f = store.footprintCached();
  return { mapped: f.derived_mapped, built: f.derived_built };
}

function flipByte(file: string, fromEnd: number): void {
  const fd = openSync(file, 'r+');
  const at = statSync(file).size - fromEnd;
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, at);
  b[0] ^= 0x10;
  writeSync(fd, b, 0, 1, at);
  closeSync(fd);
}

const FILTERS: Filter[] = [
  [{ ContainsAllTokens: ['body', 'quick fox'] }],
  [{ ContainsAnyToken: ['body', 'lantern meadow'] }],
  [{ ContainsTokenSequence: ['body', 'lazy dogs'] }],
  [{ Fuzzy: ['body', 'river stonee', 2] }],
  [{ Regex: ['body', '.*run+er s.*'] }],
];

/** What every derived part serves: text search, filtered lists, suggest and similar. */
async function answers(store: Store): Promise<unknown> {
  const text = [];
  for (const query of ['quick fox', 'running', 'lazy harbor', 'meadow lantern stone'])
    text.push(await store.textSearch({ field: 'body', query, scope: ['docs'], top_k: 20 }));
  text.push(await store.textSearch({ field: 'body', query: 'run', prefix: true, scope: ['docs'], top_k: 20 }));
  const lists = [];
  for (const filter of FILTERS) lists.push((await store.list({ filter, limit: 5000, include_attributes: [] })).map((h) => h.id).sort());
  const suggest = await store.suggest({ field: 'body', prefix: 'ru' });
  const similar = [];
  for (const id of ['d5', 'd1500', 'd1950', 'd2099']) similar.push(await store.searchSimilar({ collection: 'docs', id, top_k: 5 }));
  return { text, lists, suggest, similar };
}

async function reopen(t: ExecutionContext, dir: string, options: { readOnly?: boolean } = {}): Promise<Store> {
  const store = await Store.open({ path: dir, ...options });
  t.is(store.role, options.readOnly ? 'Reader' : 'Writer');
  return store;
}

/** Reopens dir as the writer: every part must open from its file and answer as before. */
async function expectServedFromFiles(t: ExecutionContext, dir: string, before: unknown, label: string): Promise<void> {
  const store = await reopen(t, dir);
  t.deepEqual(counts(store), { mapped: PARTS, built: 0 }, label);
  t.deepEqual(await answers(store), before, `${label}: the same answers`);
  await store.waitForIndexes();
  await store.close();
}

test('derived files are written at the seal, and a reopen serves them without rebuilding or rewriting', async (t) => {
  const dir = tempDir('derived');
  const store = await buildStore(dir);
  await store.waitForIndexes();
  t.is(sealedSegments(dir), SEGMENTS);
  t.deepEqual(derivedFiles(dir), KINDS.flatMap(eachSegment).sort(), 'each sealed segment has its text, filter and id files');
  t.deepEqual(counts(store), { mapped: 0, built: PARTS }, 'the writer built them at the seal (and saved them in the background)');
  const before = await answers(store);
  await store.close();
  const files = identities(dir);

  await expectServedFromFiles(t, dir, before, 'every part opened from its file');
  t.deepEqual(identities(dir), files, 'no file rewritten by the reopen or its close');
});

test('a flipped byte in a derived file is caught at open: that part is rebuilt and the file rewritten; answers are unchanged', async (t) => {
  const dir = tempDir('derived');
  const store = await buildStore(dir);
  const before = await answers(store);
  await store.close();
  const files = identities(dir);
  for (const kind of KINDS) flipByte(path.join(dir, `seg-2.${kind}`), 5);

  const damaged = await reopen(t, dir);
  t.deepEqual(counts(damaged), { mapped: PARTS - 3, built: 3 }, 'the three damaged parts were rebuilt from rows');
  t.deepEqual(await answers(damaged), before);
  await damaged.close();
  const after = identities(dir);
  for (const [file, id] of Object.entries(files)) {
    if (file.startsWith('seg-2.')) t.not(after[file], id, `${file} rewritten`);
    else t.is(after[file], id, `${file} untouched`);
  }

  await expectServedFromFiles(t, dir, before, 'the rewritten files open');
});

test('a changed fts-schema or filter-index declaration rebuilds and resaves that part only; k1 and b alone do not', async (t) => {
  const dir = tempDir('derived');
  const store = await buildStore(dir);
  await store.waitForIndexes();
  const files = identities(dir);
  const changed = (now: Record<string, string>) =>
    Object.keys(files)
      .filter((f) => now[f] !== files[f])
      .sort();

  await store.setFtsSchema('docs', [{ field: 'body', k1: 1.5, b: 0.5 }]);
  await store.waitForIndexes();
  t.deepEqual(changed(identities(dir)), [], 'BM25 parameters apply at query time: the postings files stay');

  await store.setFtsSchema('docs', [{ field: 'body', max_token_len: 5 }]);
  await store.waitForIndexes();
  t.deepEqual(changed(identities(dir)), eachSegment('text'), 'another analyzer: the postings files are rewritten');
  const shortTokens = await store.textSearch({ field: 'body', query: 'lantern', scope: ['docs'] });
  t.deepEqual(shortTokens, [], 'words over max_token_len are no longer indexed');

  await store.setFilterIndex('docs', [{ field: 'body', tokens: true, trigrams: false }]);
  await store.waitForIndexes();
  t.deepEqual(
    changed(identities(dir)),
    [...eachSegment('filter'), ...eachSegment('text')].sort(),
    'another filter-index declaration: the filter files are rewritten',
  );
  const before = await answers(store);
  await store.close();

  await expectServedFromFiles(t, dir, before, 'the files of the new declarations open');
});

test('a Reader opens a store whose derived files are missing, builds them in memory and writes nothing', async (t) => {
  const dir = tempDir('derived');
  const store = await buildStore(dir);
  const before = await answers(store);
  await store.close();
  for (const f of derivedFiles(dir)) rmSync(path.join(dir, f));
  const listing = readdirSync(dir).sort();

  const reader = await reopen(t, dir, { readOnly: true });
  t.deepEqual(counts(reader), { mapped: 0, built: PARTS });
  t.deepEqual(await answers(reader), before);
  await reader.waitForIndexes();
  await reader.close();
  t.deepEqual(readdirSync(dir).sort(), listing, 'no file created');

  // An older store (no derived files) opened by the writer gets them, once.
  const writer = await reopen(t, dir);
  t.deepEqual(counts(writer), { mapped: 0, built: PARTS });
  t.deepEqual(await answers(writer), before);
  await writer.close();
  t.is(derivedFiles(dir).length, PARTS);
});

test('answers are the same with the derived files, without them, and from a store that never sealed', async (t) => {
  const dir = tempDir('derived');
  const store = await buildStore(dir);
  await store.close();
  const bare = tempDir('derived-bare');
  cpSync(dir, bare, { recursive: true });
  for (const f of derivedFiles(bare)) rmSync(path.join(bare, f));
  rmSync(path.join(bare, 'LOCK'), { force: true });

  const mapped = await reopen(t, dir, { readOnly: true });
  const rebuilt = await reopen(t, bare, { readOnly: true });
  const memory = await Store.open({ inMemory: true, dimension: DIM });
  await memory.createCollection('docs');
  await memory.setFtsSchema('docs', ['body']);
  await memory.setFilterIndex('docs', ['body']);
  for (const [seed, from, count] of BATCHES) await upsert(memory, docs(seed, from, count));

  t.deepEqual(counts(mapped), { mapped: PARTS, built: 0 });
  t.deepEqual(counts(rebuilt), { mapped: 0, built: PARTS });
  const expected = await answers(memory);
  t.deepEqual(await answers(mapped), expected);
  t.deepEqual(await answers(rebuilt), expected);
  for (const s of [mapped, rebuilt, memory]) await s.close();
});

test('/search/similar finds its source through the id index of sealed segments, in memory, after an overwrite, and not after a delete', async (t) => {
  const dir = tempDir('derived');
  const store = await buildStore(dir);
  await store.close();
  const s = await reopen(t, dir);
  const source = async (id: string) => {
    const hits = await s.searchSimilar({ collection: 'docs', id, top_k: 3000, include_attributes: [] });
    t.false(
      hits.some((h) => h.id === id),
      `${id} is excluded from its own results`,
    );
    return hits;
  };
  // d1950 was overwritten: its row in seg-2 is dead, its live row in seg-3.
  const records = Object.fromEntries((await s.records('docs')).map((r) => [r.id, r]));
  const viaSearch = async (id: string) =>
    (await s.search({ query: records[id].vector as number[], scope: ['docs'], top_k: 3000, include_attributes: [] })).filter((h) => h.id !== id);
  for (const id of ['d0', 'd1899', 'd1950', 'd2099']) {
    // The stored vector, sent back as the query, is normalized again: scores agree to f32 rounding.
    const [similar, search] = [(await source(id)).slice(0, 20), (await viaSearch(id)).slice(0, 20)];
    t.deepEqual(
      similar.map((h) => h.id),
      search.map((h) => h.id),
      `${id}: the live row's vector is the query`,
    );
    t.true(similar.every((h, i) => Math.abs(h.score - search[i].score) < 1e-5));
  }
  await s.upsert('docs', { records: [{ id: 'd7', vector: [1, 0, 0, 0] }] });
  t.is((await s.searchSimilar({ collection: 'docs', id: 'd7', top_k: 1, include_attributes: [] })).length, 1);
  await s.delete('docs', { ids: ['d8'] });
  const gone = await t.throwsAsync(s.searchSimilar({ collection: 'docs', id: 'd8' }));
  t.regex(gone?.message ?? '', /source record 'd8' does not exist/);
  t.true(existsSync(path.join(dir, 'seg-1.ids')));
  await s.close();
});

test('a compaction gives its merged segment derived files of its own, which a reopen maps', async (t) => {
  const dir = tempDir('derived');
  const store = await buildStore(dir);
  await upsert(store, docs(4, 2100, 500));
  await store.flush(); // a fourth small segment: the background compaction merges the four
  await store.waitForIndexes();
  const segments = readdirSync(dir).filter((f) => /^seg-\d+\.rows$/.test(f));
  t.is(segments.length, 1, 'the four segments were merged into one');
  const merged = segments[0].replace('.rows', '');
  t.deepEqual(derivedFiles(dir), KINDS.map((k) => `${merged}.${k}`).sort(), "the inputs' files are gone, the output has its own");
  t.deepEqual(counts(store), { mapped: 0, built: 3 }, "the compaction built its output's parts (and wrote their files)");
  const before = await answers(store);
  await store.close();
  const again = await reopen(t, dir);
  t.deepEqual(counts(again), { mapped: 3, built: 0 });
  t.deepEqual(await answers(again), before);
  await again.close();
});
