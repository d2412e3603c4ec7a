// Backups on the library (issue 50): Store.createBackup / listBackups / deleteBackup over a
// directory target, and restoreBackup, which rebuilds a store directory only from a backup whose
// every file checks out.
import { existsSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { openTarget } from '../../lib/features/backups/target';
import { restoreBackup, Store } from '../../lib/index';
import { genVector, rejectsWith, tempDir } from './helpers';

const DIM = 8;
const WORDS = ['apple', 'river', 'stone', 'cloud', 'ember', 'frost', 'maple', 'quartz'];

const doc = (i: number, round = 0) => ({
  id: `d${i}`,
  vector: genVector(i * 31 + round, DIM),
  vectors: { title: genVector(i * 17 + round + 5, DIM) },
  attrs: { body: { Str: `${WORDS[i % 8]} ${WORDS[(i * 3 + round) % 8]} note ${i}` }, n: { Int: i + round } },
});

async function upsertDocs(store: Store, from: number, count: number, round = 0): Promise<void> {
  await store.upsert('docs', { records: Array.from({ length: count }, (_, k) => doc(from + k, round)) });
}

async function namedVectors(store: Store): Promise<void> {
  await store.createCollection('docs');
  await store.setVectorNames('docs', ['title']);
}

/** A store with every kind of state a backup carries: sealed segments and their derived files, the log, meta, aliases, named vectors. */
async function filledStore(dir: string, options: { historyVersions?: number } = {}): Promise<Store> {
  const store = await Store.open({ path: dir, dimension: DIM, backupTo: path.join(dir, '..', `${path.basename(dir)}-target`), ...options });
  await namedVectors(store);
  await store.setFtsSchema('docs', ['body']);
  await store.setFilterIndex('docs', ['body']);
  await store.putMeta('docs', { owner: 'team-a' });
  await store.putAlias('current', 'docs');
  await upsertDocs(store, 0, 300);
  await store.flush();
  await upsertDocs(store, 300, 200);
  await store.flush();
  await store.upsert('other', { records: [{ id: 'o1', vector: genVector(999, DIM) }] });
  await store.waitForIndexes();
  return store;
}

/** Everything a reader sees of a store, for a record-for-record comparison. */
async function everything(store: Store): Promise<unknown> {
  const collections = (await store.collections()).sort();
  const out: Record<string, unknown> = { collections, aliases: await store.aliases(), version: store.commitVersion() };
  for (const name of collections) {
    out[name] = {
      records: (await store.records(name)).sort((a, b) => a.id.localeCompare(b.id)),
      meta: await store.getMeta(name),
    };
  }
  out.search = await store.search({ query: genVector(7, DIM), top_k: 10, scope: ['docs'] });
  out.named = await store.search({ query: genVector(8, DIM), names: ['title'], top_k: 5, scope: ['docs'] });
  out.text = await store.textSearch({ field: 'body', query: 'river stone', scope: ['docs'], top_k: 10 });
  return out;
}

const targetOf = (dir: string) => path.join(dir, '..', `${path.basename(dir)}-target`);
const filesIn = (target: string) => readdirSync(path.join(target, 'files')).sort();

test('a backup taken while writes go on holds every write acknowledged before it; its restore reads as the store did at its commit version', async (t) => {
  const dir = tempDir();
  const store = await filledStore(dir, { historyVersions: 10_000 });
  let writing = true;
  let round = 1;
  const writes = (async () => {
    while (writing) {
      await upsertDocs(store, (round * 7) % 500, 5, round);
      round++;
    }
  })();
  await upsertDocs(store, 0, 1, 1000);
  const acknowledged = store.commitVersion();
  const backup = await store.createBackup({ name: 'mid-write' });
  writing = false;
  await writes;
  t.true(backup.commit_version >= acknowledged, `${backup.commit_version} >= ${acknowledged}`);
  t.is(backup.new_bytes, backup.bytes, 'a first backup copies every file');
  const restored = path.join(tempDir(), 'restored');
  const answer = await restoreBackup(path.join(targetOf(dir), 'mid-write'), restored);
  t.like(answer, { restored: 'mid-write', commit_version: backup.commit_version, files: backup.files, bytes: backup.bytes });
  const pinned = await Store.open({ path: dir, atVersion: backup.commit_version });
  const copy = await Store.open({ path: restored });
  t.deepEqual(await everything(copy), await everything(pinned));
  await Promise.all([copy.close(), pinned.close(), store.close()]);
});

test('a restore carries every derived file the source had: its indexes are not rebuilt', async (t) => {
  const dir = tempDir();
  const store = await filledStore(dir);
  await store.createBackup({ name: 'b' });
  const restored = path.join(tempDir(), 'restored');
  await restoreBackup(path.join(targetOf(dir), 'b'), restored);
  const derived = (d: string) =>
    readdirSync(d)
      .filter((f) => /^seg-\d+\./.test(f))
      .sort();
  t.deepEqual(derived(restored), derived(dir));
  await store.close();
});

test('a backup of an unchanged store copies nothing; after 1% of rows change it copies about that much', async (t) => {
  const dir = tempDir();
  const store = await Store.open({ path: dir, dimension: DIM, backupTo: targetOf(dir) });
  await namedVectors(store);
  for (let from = 0; from < 4000; from += 1000) await upsertDocs(store, from, 1000);
  await store.flush();
  await store.waitForIndexes();
  const first = await store.createBackup();
  const again = await store.createBackup();
  t.is(again.new_bytes, 0, JSON.stringify(again));
  t.is(again.bytes, first.bytes);
  await upsertDocs(store, 0, 40, 1);
  await store.flush();
  await store.waitForIndexes();
  const changed = await store.createBackup();
  t.true(changed.new_bytes > 0);
  t.true(changed.new_bytes / changed.bytes < 0.05, `${changed.new_bytes} of ${changed.bytes}`);
  t.deepEqual(
    (await store.listBackups()).map((b) => b.name),
    [first.name, again.name, changed.name],
  );
  await store.close();
});

test('deleting a backup removes its catalog and the files no other backup names, and leaves the others restorable', async (t) => {
  const dir = tempDir();
  const store = await filledStore(dir);
  await store.createBackup({ name: 'old' });
  const oldFiles = filesIn(targetOf(dir));
  await upsertDocs(store, 0, 100, 7);
  await store.delete('docs', { ids: ['d400'] });
  await store.flush();
  await store.compact();
  await store.waitForIndexes();
  await store.createBackup({ name: 'new' });
  const catalog = (name: string) =>
    (JSON.parse(JSON.parse(readFileSync(path.join(targetOf(dir), 'backups', `${name}.json`), 'utf8')).catalog) as { files: { key: string }[] }).files.map((f) =>
      f.key.replace('files/', ''),
    );
  const newKeys = new Set(catalog('new'));
  const onlyOld = oldFiles.filter((f) => !newKeys.has(f));
  t.true(onlyOld.length > 0, 'the compaction replaced files the old backup named');
  const deleted = await store.deleteBackup('old');
  t.is(deleted.deleted, 'old');
  t.is(deleted.files, onlyOld.length);
  t.deepEqual(filesIn(targetOf(dir)), [...newKeys].sort());
  t.deepEqual(
    (await store.listBackups()).map((b) => b.name),
    ['new'],
  );
  await rejectsWith(t, store.deleteBackup('old'), 404);
  const restored = path.join(tempDir(), 'restored');
  await restoreBackup(path.join(targetOf(dir), 'new'), restored);
  const copy = await Store.open({ path: restored });
  t.deepEqual(await everything(copy), await everything(store));
  await Promise.all([copy.close(), store.close()]);
});

/** A backup's catalog's file entries, and a fresh directory to restore into. */
async function backedUp(t: { teardown(f: () => void): void }): Promise<{ target: string; restored: string; store: Store }> {
  const dir = tempDir();
  const store = await filledStore(dir);
  await store.createBackup({ name: 'b' });
  t.teardown(() => void store.close());
  return { target: targetOf(dir), restored: path.join(tempDir(), 'restored'), store };
}

const largestFile = (target: string) =>
  filesIn(target)
    .map((f) => ({ f, size: readFileSync(path.join(target, 'files', f)).length }))
    .sort((a, b) => b.size - a.size)[0].f;

test('restore refuses a file whose bytes changed, naming it, and creates nothing', async (t) => {
  const { target, restored } = await backedUp(t);
  const victim = largestFile(target);
  const file = path.join(target, 'files', victim);
  const bytes = readFileSync(file);
  bytes[bytes.length >> 1] ^= 0x40;
  writeFileSync(file, bytes);
  const err = await rejectsWith(t, restoreBackup(path.join(target, 'b'), restored), 400);
  t.regex(err.message, new RegExp(`damaged: files/${victim.replaceAll('.', '\\.')}`));
  t.false(existsSync(restored));
  t.deepEqual(
    readdirSync(path.dirname(restored)).filter((f) => f.includes('restoring')),
    [],
  );
});

test('restore refuses a truncated file and a missing one, naming each', async (t) => {
  const { target, restored } = await backedUp(t);
  const victim = largestFile(target);
  truncateSync(path.join(target, 'files', victim), 10);
  t.regex((await rejectsWith(t, restoreBackup(path.join(target, 'b'), restored), 400)).message, new RegExp(`damaged: files/${victim.replaceAll('.', '\\.')}`));
  rmSync(path.join(target, 'files', victim));
  t.regex(
    (await rejectsWith(t, restoreBackup(path.join(target, 'b'), restored), 400)).message,
    new RegExp(`incomplete: files/${victim.replaceAll('.', '\\.')}`),
  );
  t.false(existsSync(restored));
});

test('restore refuses a damaged catalog, an unknown backup, and a directory that is not empty', async (t) => {
  const { target, restored } = await backedUp(t);
  await rejectsWith(t, restoreBackup(path.join(target, 'nope'), restored), 404);
  writeFileSync(path.join(restored, '..', 'keep'), 'x');
  await rejectsWith(t, restoreBackup(path.join(target, 'b'), path.dirname(restored)), 400);
  const catalog = path.join(target, 'backups', 'b.json');
  writeFileSync(catalog, readFileSync(catalog, 'utf8').replace('"commit_version', '"commit_versiom'));
  t.regex((await rejectsWith(t, restoreBackup(path.join(target, 'b'), restored), 400)).message, /catalog .* does not match its checksum/);
  t.false(existsSync(restored));
});

test('two backups of one store at once: one runs, the other is refused with 409', async (t) => {
  const { store } = await backedUp(t);
  const results = await Promise.allSettled([store.createBackup({ name: 'x' }), store.createBackup({ name: 'y' })]);
  t.is(results.filter((r) => r.status === 'fulfilled').length, 1);
  const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  t.is(refused.reason.status, 409);
  t.regex(refused.reason.message, /a backup of this store is running/);
  t.is((await store.createBackup({ name: 'z' })).name, 'z', 'the turn is free again');
});

test('a taken name is 409; a bad name is 400; without backupTo every backup method is 400', async (t) => {
  const { store } = await backedUp(t);
  await rejectsWith(t, store.createBackup({ name: 'b' }), 409);
  for (const name of ['', '../x', '.hidden', 'a/b', 'x'.repeat(129)]) await rejectsWith(t, store.createBackup({ name }), 400, name);
  await rejectsWith(t, store.createBackup({ name: 7 as unknown as string }), 400);
  const plain = await Store.open({ path: tempDir(), dimension: DIM });
  for (const call of [plain.createBackup(), plain.listBackups(), plain.deleteBackup('b')]) t.regex((await rejectsWith(t, call, 400)).message, /--backup-to/);
  await plain.close();
});

test('a read-only handle refreshes first: its backup holds every write the writer acknowledged, logged or checkpointed', async (t) => {
  const dir = tempDir();
  const writer = await filledStore(dir);
  const reader = await Store.open({ path: dir, readOnly: true, backupTo: targetOf(dir) });
  await upsertDocs(writer, 0, 10, 3);
  const logged = await reader.createBackup({ name: 'logged' });
  t.is(logged.commit_version, writer.commitVersion(), 'the writer only logged the write');
  t.is(reader.commitVersion(), writer.commitVersion());
  await upsertDocs(writer, 10, 10, 3);
  await writer.flush();
  const checkpointed = await reader.createBackup({ name: 'checkpointed' });
  t.is(checkpointed.commit_version, writer.commitVersion());
  const restored = path.join(tempDir(), 'restored');
  await restoreBackup(path.join(targetOf(dir), 'checkpointed'), restored);
  const copy = await Store.open({ path: restored });
  t.deepEqual(await everything(copy), await everything(writer));
  await Promise.all([copy.close(), reader.close(), writer.close()]);
});

test('a pinned handle cannot back up (409); an in-memory store refuses backupTo (400)', async (t) => {
  const dir = tempDir();
  const writer = await filledStore(dir, { historyVersions: 100 });
  const pinned = await Store.open({ path: dir, atVersion: writer.commitVersion() - 1, backupTo: targetOf(dir) });
  await rejectsWith(t, pinned.createBackup(), 409);
  await rejectsWith(t, Store.open({ inMemory: true, dimension: DIM, backupTo: tempDir() }), 400);
  await Promise.all([pinned.close(), writer.close()]);
});

test('a target that fails answers 502 naming the target and the cause, and the store goes on serving', async (t) => {
  const dir = tempDir();
  const blocker = path.join(tempDir(), 'a-file');
  writeFileSync(blocker, 'not a directory');
  const store = await Store.open({ path: dir, dimension: DIM, backupTo: path.join(blocker, 'target') });
  await namedVectors(store);
  await upsertDocs(store, 0, 10);
  const err = await rejectsWith(t, store.createBackup(), 502);
  t.regex(err.message, /the backup target .*a-file\/target failed: .*ENOTDIR/);
  t.is((await store.search({ query: genVector(1, DIM), top_k: 3 })).length, 3);
  await rejectsWith(t, store.createBackup(), 502, 'the turn was released');
  await store.close();
});

test('a directory target lands a file copied again before the first copy landed under each one its own key', async (t) => {
  const target = openTarget(path.join(tempDir(), 'target'));
  const file = path.join(tempDir(), 'wal.log');
  const keyOf = (sum: { bytes: number; crc32c: number }) => `files/wal.log.${sum.bytes}.${sum.crc32c}`;
  writeFileSync(file, 'first');
  const first = await target.putFile(file, undefined, keyOf);
  writeFileSync(file, 'second, longer');
  const second = await target.putFile(file, undefined, keyOf);
  await target.settle();
  t.not(first.key, second.key);
  t.is(readFileSync(path.join(target.location, first.key), 'utf8'), 'first');
  t.is(readFileSync(path.join(target.location, second.key), 'utf8'), 'second, longer');
  t.deepEqual([...(await target.listFiles()).keys()].sort(), [first.key, second.key].sort());
});

test("a delete refuses (409, naming it) while another backup's catalog is damaged, and deletes nothing; the damaged one itself can go", async (t) => {
  const dir = tempDir();
  const store = await filledStore(dir);
  await store.createBackup({ name: 'a' });
  await upsertDocs(store, 0, 50, 9);
  await store.flush();
  await store.waitForIndexes();
  await store.createBackup({ name: 'b' });
  const target = targetOf(dir);
  const catalog = path.join(target, 'backups', 'b.json');
  writeFileSync(catalog, readFileSync(catalog, 'utf8').replace('"files', '"filez'));
  const before = filesIn(target);
  const err = await rejectsWith(t, store.deleteBackup('a'), 409);
  t.regex(err.message, /the backup b is damaged/);
  t.deepEqual(filesIn(target), before);
  t.deepEqual(
    (await store.listBackups()).map((b) => b.name),
    ['a'],
    'a damaged catalog is not listed',
  );
  t.is((await store.deleteBackup('b')).deleted, 'b');
  const restored = path.join(tempDir(), 'restored');
  await restoreBackup(path.join(target, 'a'), restored);
  t.true(existsSync(path.join(restored, 'HEADER')));
  await store.close();
});

test('a backup whose call is cancelled rejects with 499, lists nothing, and frees the turn for the next', async (t) => {
  const { store } = await backedUp(t);
  const err = await rejectsWith(t, store.createBackup({ name: 'cancelled' }, { signal: AbortSignal.abort() }), 499);
  t.true(err.cancelled);
  t.deepEqual(
    (await store.listBackups()).map((b) => b.name),
    ['b'],
  );
  t.is((await store.createBackup({ name: 'next' })).name, 'next');
});
