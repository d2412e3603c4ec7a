// A writer that holds only some collections (OpenOptions.resident; cluster mode's bounded writer):
// the others are listed, their rows and files left out, until hold() brings them in; release()
// lets one go, checkpointing first when its rows changed; its checkpoints and its replication
// point keep naming what it does not hold, so nothing is lost by not holding it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { Store, StoreError } from '../../lib/index';
import { Child, tempDir } from './helpers';

const COLLECTIONS = ['a', 'b', 'c'];

const records = (c: string, from: number, n: number) => ({
  records: Array.from({ length: n }, (_, i) => ({ id: `${c}${from + i}`, vector: [1, (from + i) % 17, c.charCodeAt(0), 0], attrs: { n: { Int: from + i } } })),
});

/** A store with 50 rows in each collection, all sealed. */
async function sealedStore(): Promise<string> {
  const dir = tempDir();
  const store = await Store.open({ dimension: 4, path: dir });
  for (const c of COLLECTIONS) await store.upsert(c, records(c, 0, 50));
  await store.flush();
  await store.close();
  return dir;
}

/** Every collection's ids, as a full open sees them. */
async function idsOf(dir: string): Promise<Record<string, string[]>> {
  const store = await Store.open({ path: dir });
  try {
    const out: Record<string, string[]> = {};
    for (const c of await store.collections()) out[c] = (await store.list({ scope: [c], limit: 10_000 })).map((h) => h.id).sort();
    return out;
  } finally {
    await store.close();
  }
}

const range = (c: string, n: number) => Array.from({ length: n }, (_, i) => `${c}${i}`).sort();

test('an upsert or delete of a collection the writer does not hold is 503 naming it; hold() brings it in with its rows', async (t) => {
  const dir = await sealedStore();
  const store = await Store.open({ path: dir, resident: ['a'] });
  t.teardown(() => store.close());
  t.deepEqual(await store.collections(), COLLECTIONS, 'every collection is listed');
  for (const write of [() => store.upsert('b', records('b', 50, 1)), () => store.delete('c', { ids: ['c1'] })]) {
    const err = await t.throwsAsync(write(), { instanceOf: StoreError });
    t.is(err?.status, 503);
    t.regex(err?.message ?? '', /collection '[bc]' is not held by this instance/);
  }
  await store.hold(['b']);
  await store.upsert('b', records('b', 50, 5));
  t.is((await store.list({ scope: ['b'], limit: 1000 })).length, 55);
  await store.close();
  t.deepEqual(await idsOf(dir), { a: range('a', 50), b: range('b', 55), c: range('c', 50) });
});

test('release() of a collection whose rows changed checkpoints it first: nothing written to it is lost', async (t) => {
  const dir = await sealedStore();
  const store = await Store.open({ path: dir, resident: COLLECTIONS });
  await store.upsert('a', records('a', 50, 10));
  await store.delete('a', { ids: ['a0', 'a1'] });
  await store.release(['a']);
  t.deepEqual(Object.keys(await store.collectionReads()).sort(), ['b', 'c'], 'a is no longer resident');
  await t.throwsAsync(store.search({ query: [1, 0, 0, 0], top_k: 1, scope: ['a'] }), { message: /collection 'a' is not held/ });
  await store.hold(['a']);
  t.is((await store.list({ scope: ['a'], limit: 1000 })).length, 58, 'held again, with the rows written before it was let go');
  await store.release(['a']);
  await store.close();
  t.deepEqual(await idsOf(dir), { a: range('a', 60).filter((id) => id !== 'a0' && id !== 'a1'), b: range('b', 50), c: range('c', 50) });
});

test('a checkpoint names the segments of the collections the writer does not hold, and their schema as changed meanwhile', async (t) => {
  const dir = await sealedStore();
  const store = await Store.open({ path: dir, resident: ['a'] });
  await store.putMeta('b', { owner: 'x' });
  await store.upsert('a', records('a', 50, 10));
  await store.flush();
  await store.close();
  const full = await Store.open({ path: dir });
  t.teardown(() => full.close());
  t.deepEqual(await full.getMeta('b'), { owner: 'x' });
  t.is((await full.list({ scope: ['b'], limit: 1000 })).length, 50);
  t.is((await full.list({ scope: ['a'], limit: 1000 })).length, 60);
});

test('opening a writer whose log changed rows of collections it would not hold is 503 naming them; with fetchCollections it holds them too', async (t) => {
  const dir = await sealedStore();
  // A writer killed before its log was checkpointed: its log still holds these writes.
  const child = new Child();
  await child.call('open', { options: { path: dir } });
  await child.call('upsert', { collection: 'b', body: JSON.stringify(records('b', 50, 3)) });
  await child.call('delete', { collection: 'c', ids: ['c7'] });
  await child.kill();
  const err = await t.throwsAsync(Store.open({ path: dir, resident: ['a'] }), { instanceOf: StoreError });
  t.is(err?.status, 503);
  t.regex(err?.message ?? '', /collection 'b', 'c' is not held/);
  const fetched: string[][] = [];
  const store = await Store.open({ path: dir, resident: ['a'], fetchCollections: async (names) => void fetched.push(names) });
  t.deepEqual(fetched, [['b', 'c']], 'the files of every collection the log needs are asked for at once');
  t.deepEqual(Object.keys(await store.collectionReads()).sort(), COLLECTIONS);
  await store.close();
  t.deepEqual(await idsOf(dir), { a: range('a', 50), b: range('b', 53), c: range('c', 50).filter((id) => id !== 'c7') });
});

test('the replication point lists as cold what the manifest names but the directory lacks: the files of a collection not held', async (t) => {
  const dir = await sealedStore();
  const store = await Store.open({ path: dir, resident: ['a', 'b'] });
  t.teardown(() => store.close());
  const before = await store.replication();
  const manifest = JSON.parse(before.manifest) as { collections: { name: string; segments: { id: number }[] }[] };
  const idOf = (c: string) => manifest.collections.find((m) => m.name === c)!.segments[0].id;
  t.true(before.files.includes(`seg-${idOf('c')}.vec`), 'a file still in the directory is listed as such');
  t.true(
    before.cold.every((n) => !fs.existsSync(path.join(dir, n))),
    'cold names are those not in the directory',
  );
  for (const name of fs.readdirSync(dir)) if (name.startsWith(`seg-${idOf('c')}.`)) fs.rmSync(path.join(dir, name));
  const after = await store.replication();
  t.true(after.cold.includes(`seg-${idOf('c')}.vec`) && after.cold.includes(`seg-${idOf('c')}.rows`), 'the segment of c is named cold');
  t.false(after.files.some((n) => n.startsWith(`seg-${idOf('c')}.`)));
  t.true(after.files.includes(`seg-${idOf('a')}.vec`) && after.files.includes(`seg-${idOf('b')}.vec`));
  t.false(
    after.files.some((n) => after.cold.includes(n)),
    'no name is both',
  );
});

test('hold() of collections one of whose files is missing refuses the whole call: none of them is held, and each stays 503 until its files are there', async (t) => {
  const dir = await sealedStore();
  const store = await Store.open({ path: dir, resident: ['a'] });
  t.teardown(() => store.close());
  const manifest = JSON.parse((await store.replication()).manifest) as { collections: { name: string; segments: { id: number }[] }[] };
  const vecOfC = path.join(dir, `seg-${manifest.collections.find((m) => m.name === 'c')!.segments[0].id}.vec`);
  const saved = fs.readFileSync(vecOfC);
  fs.rmSync(vecOfC);
  await t.throwsAsync(store.hold(['b', 'c']), { instanceOf: StoreError });
  t.deepEqual(Object.keys(await store.collectionReads()), ['a'], 'b, whose files are whole, is not held either');
  for (const c of ['b', 'c']) {
    const err = await t.throwsAsync(store.upsert(c, records(c, 50, 1)), { instanceOf: StoreError });
    t.is(err?.status, 503, c);
  }
  fs.writeFileSync(vecOfC, saved);
  await store.hold(['b', 'c']);
  await store.upsert('c', records('c', 50, 1));
  await store.close();
  t.deepEqual(await idsOf(dir), { a: range('a', 50), b: range('b', 50), c: range('c', 51) });
});

test('collectionReads lists every resident collection; a read stamps its collection, and on a writer an upsert too', async (t) => {
  const dir = await sealedStore();
  const store = await Store.open({ path: dir, resident: ['a', 'b'] });
  t.teardown(() => store.close());
  t.deepEqual(await store.collectionReads(), { a: 0, b: 0 });
  await store.search({ query: [1, 0, 0, 0], top_k: 1, scope: ['a'] });
  const read = await store.collectionReads();
  t.true(read.a > 0);
  t.is(read.b, 0);
  await store.upsert('b', records('b', 50, 1));
  const written = await store.collectionReads();
  t.true(written.b > read.a, 'the upsert is the latest use');
  t.is(written.a, read.a, 'a write to b leaves the stamp of a');
});

test('hold() and release() are 400 on a reader and on a writer opened without resident', async (t) => {
  const dir = await sealedStore();
  const writer = await Store.open({ path: dir });
  for (const call of [() => writer.hold(['a']), () => writer.release(['a'])]) {
    const err = await t.throwsAsync(call(), { instanceOf: StoreError });
    t.is(err?.status, 400);
    t.regex(err?.message ?? '', /only a writer opened with resident/);
  }
  await t.throwsAsync(writer.hold('a' as unknown as string[]), { message: /hold\(\) must be an array of collection names/ });
  await writer.close();
  const reader = await Store.open({ path: dir, readOnly: true, resident: ['a'] });
  t.teardown(() => reader.close());
  await t.throwsAsync(reader.hold(['b']), { message: /only a writer opened with resident/ });
});

test('release() of a collection created since the last checkpoint checkpoints it first: the next checkpoint names it, and hold() brings it back', async (t) => {
  const dir = await sealedStore();
  const store = await Store.open({ path: dir, resident: COLLECTIONS });
  await store.createCollection('fresh');
  await store.release(['fresh']);
  await store.flush();
  t.false(store.poisoned() !== null, 'the checkpoint after it is not refused');
  await store.hold(['fresh']);
  await store.upsert('fresh', records('fresh', 0, 3));
  await store.close();
  t.deepEqual((await idsOf(dir)).fresh, range('fresh', 3));
});

test('a collection dropped and created again, then released before any checkpoint, is the new one: the dropped rows stay dropped', async (t) => {
  const dir = await sealedStore();
  const store = await Store.open({ path: dir, resident: COLLECTIONS });
  await store.dropCollection('b');
  await store.createCollection('b');
  await store.release(['b']);
  await store.flush();
  await store.close();
  t.deepEqual((await idsOf(dir)).b, [], 'the re-created collection is empty');
});

test('a collection not held that is dropped stays named cold until the next checkpoint forgets it', async (t) => {
  const dir = await sealedStore();
  const store = await Store.open({ path: dir, resident: ['a'] });
  t.teardown(() => store.close());
  const manifest = JSON.parse((await store.replication()).manifest) as { collections: { name: string; segments: { id: number }[] }[] };
  const cId = manifest.collections.find((m) => m.name === 'c')!.segments[0].id;
  for (const name of fs.readdirSync(dir)) if (name.startsWith(`seg-${cId}.`)) fs.rmSync(path.join(dir, name));
  await store.dropCollection('c');
  t.true((await store.replication()).cold.includes(`seg-${cId}.rows`), 'the manifest still names its files: they stay cold, not left out');
  await store.flush();
  const after = await store.replication();
  t.false(
    [...after.files, ...after.cold].some((n) => n.startsWith(`seg-${cId}.`)),
    'the checkpoint forgot them',
  );
});

test('sweepExpired on a writer holding some collections sweeps those and needs no other', async (t) => {
  const dir = tempDir();
  // Entries remembered with a clock long past have expired by now.
  const writer = await Store.open({ dimension: 4, path: dir, embedProvider: 'hash:4', clock: () => 1_000_000 });
  for (const c of COLLECTIONS) await writer.remember(c, { id: 'x', text: 'soon gone', ttl_seconds: 1 });
  await writer.flush();
  await writer.close();
  const store = await Store.open({ path: dir, resident: ['a'], fetchCollections: async (names) => t.fail(`fetched ${names}`) });
  t.deepEqual(await store.sweepExpired(), { deleted: 1 });
  await store.close();
  t.deepEqual(await idsOf(dir), { a: [], b: ['x'], c: ['x'] });
});

test("a lazy reader counts its own reads only: the writer's writes it replays on refresh do not stamp a collection", async (t) => {
  const dir = await sealedStore();
  const writer = await Store.open({ path: dir });
  t.teardown(() => writer.close());
  const reader = await Store.open({ path: dir, readOnly: true, resident: ['a', 'b'] });
  t.teardown(() => reader.close());
  await reader.search({ query: [1, 0, 0, 0], top_k: 1, scope: ['a'] });
  await writer.upsert('b', records('b', 50, 3));
  await reader.refresh();
  const uses = await reader.collectionReads();
  t.true(uses.a > 0);
  t.is(uses.b, 0, 'b was written, never read here');
});

test("the writer's sweep of unnamed segment files leaves a cluster fetch's temporary file alone", async (t) => {
  const dir = await sealedStore();
  const inFlight = path.join(dir, 'replica-tmp.seg-99.vec');
  fs.writeFileSync(inFlight, Buffer.alloc(64));
  const store = await Store.open({ path: dir });
  await store.upsert('a', records('a', 50, 1));
  await store.flush();
  await store.close();
  t.true(fs.existsSync(inFlight));
});
