// Sealed segments keep their attributes column by column in one more file (seg-N.cols) beside the
// per-row blobs of seg-N.rows, and filters, order_by, group_by/sum, limit_per and named projection
// read the columns. These tests hold the file to what it promises: a flush writes one per sealed
// segment and a reopen reads it as written (the store's column_segments counter says how many
// segments serve columns; the file is not rewritten); a damaged file is ignored by a reader and
// rebuilt by a writer; a compaction writes its output's file; and on attributes of mixed types
// under one name every route answers byte for byte as it did from the blobs, before the rows were
// sealed.
import test, { type ExecutionContext } from 'ava';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type RecordInput, type Value, Store, stringifyExact } from '../../lib/index';
import { prng, tempDir } from './helpers';

const DIM = 4;
const WORDS = ['apple', 'Apple', 'APPLES', 'run', 'running', 'café', 'naïve', '日本語', 'x1', '42', 'a', 'e-mail', 'fox', 'Fox', 'brown', ''];
const FEW = ['red', 'green', 'blue', 'Red', 'cyan'];
const INTS = [0n, 1n, -1n, 5n, 42n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n)];
const FLOATS = [0, -0, 1.5, -2.5, 42, 1e300];

class Gen {
  readonly rand: () => number;
  constructor(seed: number) {
    this.rand = prng(seed);
  }
  pick<T>(a: readonly T[]): T {
    return a[Math.floor(this.rand() * a.length)];
  }
  words(lo: number, hi: number): string {
    const n = lo + Math.floor(this.rand() * (hi - lo + 1));
    return Array.from({ length: n }, () => this.pick(WORDS)).join(this.pick([' ', '-', ', ', '/']));
  }
  /** Any Value type, or undefined for an absent attribute. */
  any(): Value | undefined {
    switch (Math.floor(this.rand() * 9)) {
      case 0:
        return undefined;
      case 1:
        return { Int: this.pick(INTS) };
      case 2:
        return { Float: this.pick(FLOATS) };
      case 3:
        return { Bool: this.rand() < 0.5 };
      case 4:
        return { DateTime: this.pick(INTS) };
      case 5:
        return 'Null';
      case 6:
        return { List: Array.from({ length: Math.floor(this.rand() * 4) }, () => this.words(0, 2)) };
      default:
        return { Str: this.words(0, 4) };
    }
  }
  vector(): number[] {
    return Array.from({ length: DIM }, () => Math.fround(this.rand() * 2 - 1));
  }
}

/**
 * Records whose names hold mixed types: v any type (absent too); c mostly one of few Str values
 * (a coded column); n mostly Int; s text; rare in about 2% of records. With shuffle, some records
 * list their names in another order.
 */
function mixedRecords(seed: number, count: number, shuffle: boolean): RecordInput[] {
  const g = new Gen(seed);
  return Array.from({ length: count }, (_, i) => {
    const entries: [string, Value | undefined][] = [
      ['v', g.any()],
      ['c', g.rand() < 0.7 ? { Str: g.pick(FEW) } : g.any()],
      ['n', g.rand() < 0.7 ? { Int: BigInt(Math.floor(g.rand() * 20) - 5) } : g.any()],
      ['s', g.rand() < 0.8 ? { Str: g.words(1, 6) } : g.any()],
      ['rare', g.rand() < 0.02 ? g.any() : undefined],
    ];
    if (shuffle && g.rand() < 0.3) entries.reverse();
    const attrs: Record<string, Value> = {};
    for (const [k, v] of entries) if (v !== undefined) attrs[k] = v;
    return { id: `r${i}`, vector: g.vector(), attrs };
  });
}

const KEYS = ['v', 'c', 'n', 's', 'rare', 'nobody'];

/** Every predicate variant over every key, with constants of every type, and compositions. */
function filters(seed: number): unknown[] {
  const g = new Gen(seed);
  const value = (): Value => g.any() ?? 'Null';
  const out: unknown[] = [];
  for (const k of KEYS) {
    for (const op of ['Eq', 'Ne', 'Lt', 'Le', 'Gt', 'Ge']) {
      out.push([{ [op]: [k, value()] }], [{ [op]: [k, { Str: g.pick(FEW) }] }], [{ [op]: [k, { Int: g.pick(INTS) }] }]);
    }
    out.push(
      [{ In: [k, [{ Str: g.pick(FEW) }, { Str: g.pick(FEW) }]] }],
      [{ In: [k, [value(), value(), { Int: 5 }]] }],
      [{ NotIn: [k, [{ Str: g.pick(FEW) }, value()]] }],
      [{ Contains: [k, { Str: g.words(1, 1) }] }],
      [{ NotContains: [k, { Str: g.words(1, 1) }] }],
      [{ ContainsAny: [k, [{ Str: g.words(1, 1) }, { Str: g.words(0, 2) }]] }],
      [{ Glob: [k, `*${g.pick(WORDS)}*`] }],
      [{ IGlob: [k, `${g.pick(FEW).toUpperCase()}*`] }],
      [{ Regex: [k, `(?i).*${g.pick(['apple', 'run', 'fox', 'e'])}.*`] }],
      [{ Fuzzy: [k, g.words(1, 2), 1] }],
      [{ ContainsAllTokens: [k, g.words(1, 2)] }],
      [{ ContainsAnyToken: [k, g.words(1, 2)] }],
      [{ ContainsTokenSequence: [k, g.words(2, 3)] }],
    );
  }
  const leaves = out.length;
  for (let i = 0; i < 20; i++) {
    const leaf = () => g.pick(out.slice(0, leaves)) as unknown[];
    out.push([...leaf(), ...leaf()], [{ Any: [...leaf(), ...leaf()] }], [{ Not: leaf()[0] }], [{ All: [...leaf(), { Not: leaf()[0] }] }]);
  }
  return out;
}

const json = (x: unknown) => Buffer.from(stringifyExact(x));

/** The raw answer of every route that reads attributes, for every filter: the thing to compare. */
async function answers(store: Store, seed: number): Promise<string[]> {
  const out: string[] = [];
  const query = [0.5, -0.25, 1, 0.125];
  const fs = filters(seed);
  for (const [i, filter] of fs.entries()) {
    const key = KEYS[i % KEYS.length];
    const at = (route: string, body: Buffer) => `${route} ${body.toString('utf8')}\n`;
    const bodies: [string, Buffer, (b: Buffer) => Promise<Buffer>][] = [
      ['list', json({ filter, limit: 10000 }), (b) => store.listJson(b)],
      ['list order_by', json({ filter, order_by: { field: key, descending: i % 2 === 0 }, limit: 50 }), (b) => store.listJson(b)],
      ['list include', json({ filter, include_attributes: [key, 'c', 'nobody'], limit: 200 }), (b) => store.listJson(b)],
      ['aggregate', json({ filter, group_by: key, sum: ['n', 'v'] }), (b) => store.aggregateJson(b)],
      ['search', json({ query, filter, top_k: 30, exact: true }), (b) => store.searchJson(b)],
      ['search limit_per', json({ query, filter, top_k: 10, exact: true, limit_per: { field: key, max: 2 } }), (b) => store.searchJson(b)],
    ];
    for (const [route, body, run] of bodies) out.push(at(route, body) + (await run(body)).toString('utf8'));
  }
  return out;
}

function columnFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /^seg-\d+\.cols$/.test(f))
    .sort();
}

function rowsFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /^seg-\d+\.rows$/.test(f))
    .sort();
}

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Asserts two answer lists agree line by line, reporting the first difference only. */
function sameAnswers(t: ExecutionContext, got: string[], want: string[], what: string): void {
  t.is(got.length, want.length);
  const i = got.findIndex((a, k) => a !== want[k]);
  t.is(i, -1, i < 0 ? what : `${what}: first difference\n got ${got[i].slice(0, 400)}\nwant ${want[i].slice(0, 400)}`);
}

type Write = (s: Store) => Promise<unknown>;

/** An in-memory store (blobs only) and a store in dir, fed the same writes through both(). */
async function twins(dir: string): Promise<{ memory: Store; store: Store; both: (write: Write) => Promise<void> }> {
  const memory = await Store.open({ inMemory: true, dimension: DIM });
  const store = await Store.open({ path: dir, dimension: DIM });
  const both = async (write: Write) => {
    for (const s of [memory, store]) await write(s);
  };
  return { memory, store, both };
}

/** A store of two collections (names in one order, and in varying orders) flushed to sealed segments. */
async function sealedStore(t: ExecutionContext, dir: string): Promise<{ before: string[]; after: string[] }> {
  const store = await Store.open({ path: dir, dimension: DIM });
  await store.upsert('a', { records: mixedRecords(1, 1500, false) });
  await store.upsert('b', { records: mixedRecords(2, 700, true) });
  t.is(store.footprintCached().column_segments, 0, 'memory segments have no columns');
  const before = await answers(store, 7);
  await store.flush();
  t.is(store.footprintCached().column_segments, 2, 'a flush seals each collection into a segment with columns');
  const after = await answers(store, 7);
  await store.close();
  return { before, after };
}

test('a flush writes a column file per sealed segment; a reopen reads it as written, answering as the blobs did', async (t) => {
  const dir = tempDir('columns');
  const { before, after } = await sealedStore(t, dir);
  sameAnswers(t, after, before, 'sealed (columns) answers as in memory (blobs)');
  const cols = columnFiles(dir);
  t.deepEqual(
    cols,
    rowsFiles(dir).map((f) => f.replace('.rows', '.cols')),
    'one column file beside each rows file',
  );
  const written = cols.map((f) => ({ stat: statSync(path.join(dir, f)), digest: digest(path.join(dir, f)) }));

  const reopened = await Store.open({ path: dir });
  t.is(reopened.footprintCached().column_segments, cols.length, 'every sealed segment serves its columns after a reopen');
  sameAnswers(t, await answers(reopened, 7), before, 'reopened answers as before');
  await reopened.close();
  cols.forEach((f, i) => {
    const now = statSync(path.join(dir, f));
    t.is(now.ino, written[i].stat.ino, `${f} was opened, not rewritten`);
    t.is(now.mtimeMs, written[i].stat.mtimeMs);
    t.is(digest(path.join(dir, f)), written[i].digest);
  });

  const reader = await Store.open({ path: dir, readOnly: true });
  t.is(reader.footprintCached().column_segments, cols.length, 'a reader serves the columns too');
  await reader.close();
});

test('a damaged column file is ignored by a reader and rebuilt by a writer, answers unchanged', async (t) => {
  const dir = tempDir('columns-damage');
  const { before } = await sealedStore(t, dir);
  const [first, second] = columnFiles(dir).map((f) => path.join(dir, f));
  const good = readFileSync(first);
  const damaged = Buffer.from(good);
  damaged[Math.floor(damaged.length / 2)] ^= 0x04;
  writeFileSync(first, damaged);
  rmSync(second);

  const reader = await Store.open({ path: dir, readOnly: true });
  t.is(reader.footprintCached().column_segments, 0, 'the reader reads blobs for the damaged and the missing file');
  sameAnswers(t, await answers(reader, 7), before, 'a reader without usable columns answers as before');
  await reader.close();
  t.deepEqual(readFileSync(first), damaged, 'a reader writes nothing');

  const writer = await Store.open({ path: dir });
  t.is(writer.footprintCached().column_segments, 2, 'the writer rebuilt both');
  t.deepEqual(readFileSync(first), good, 'the damaged file is rebuilt to the bytes first written');
  t.truthy(statSync(second).size > 0, 'the missing file is built');
  sameAnswers(t, await answers(writer, 7), before, 'the writer answers as before');
  await writer.close();
});

test('mixed-type attributes answer every predicate and route alike from columns and blobs, across a reopen', async (t) => {
  // Rows of both kinds at once: sealed segments (columns) under in-memory rows (blobs) that
  // overwrite some of them, so one answer merges both paths.
  const dir = tempDir('columns-mixed');
  const records = mixedRecords(3, 2000, true);
  const { memory, store, both } = await twins(dir);
  await both((s) => s.upsert('m', { records: records.slice(0, 1600) }));
  await store.flush();
  const overwrites = mixedRecords(4, 400, false).map((r, i) => ({ ...r, id: `r${i * 3}` }));
  await both((s) => s.upsert('m', { records: [...records.slice(1600), ...overwrites] }));
  await both((s) => s.delete('m', { ids: ['r1', 'r10', 'r100'] }));
  t.is(store.footprintCached().column_segments, 1);
  const want = await answers(memory, 11);
  sameAnswers(t, await answers(store, 11), want, 'sealed columns plus memory rows answer as memory alone');
  await store.close();
  const reopened = await Store.open({ path: dir });
  sameAnswers(t, await answers(reopened, 11), want, 'and so after a reopen');
  await reopened.close();
  await memory.close();
});

test("a compaction's merged segment is written with its column file and answers as the blobs did", async (t) => {
  const dir = tempDir('columns-compact');
  const records = mixedRecords(5, 1200, true);
  const { memory, store, both } = await twins(dir);
  for (const part of [records.slice(0, 500), records.slice(500, 900), records.slice(900)]) {
    await both((s) => s.upsert('k', { records: part }));
    await store.flush();
  }
  await both((s) => s.delete('k', { ids: records.filter((_, i) => i % 3 === 0).map((r) => r.id) }));
  await store.compact();
  const { segments, column_segments } = store.footprintCached();
  t.is(store.footprintCached().dead_rows, 0, 'the compaction rewrote every segment with dead rows');
  t.true(segments >= 1);
  t.is(column_segments, segments, 'every segment the compaction wrote serves columns');
  t.deepEqual(
    columnFiles(dir),
    rowsFiles(dir).map((f) => f.replace('.rows', '.cols')),
    'one column file beside each rows file, none left of the inputs',
  );
  sameAnswers(t, await answers(store, 13), await answers(memory, 13), 'the merged columns answer as memory alone');
  await store.close();
  await memory.close();
});
