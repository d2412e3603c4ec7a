// Version history and pinned handles (spec "Versioning", "Versions (GET /versions body)", "Pinned
// instance"): with historyVersions N the last N commit versions stay readable through checkpoints
// and compactions; atVersion / pin() serve one of them read-only beside the writer.
import test from 'ava';
import { Store } from '../../lib/index';
import { rejectsWith, tempDir } from './helpers';

/** The records of collection c as `id:value` strings, in storage order. */
async function contents(store: Store): Promise<string[]> {
  return (await store.records('c')).map((r) => `${r.id}:${(r.attrs.v as { Int: bigint }).Int}`);
}

const record = (id: string, v: number) => ({ id, vector: [1, v], attrs: { v: { Int: v } } });

test('with historyVersions, every version of the window opens exactly as it was, across checkpoints and compactions', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: 2, historyVersions: 6 });
  const seen = new Map<number, string[]>();
  for (let i = 0; i < 20; i++) {
    await writer.upsert('c', { records: [record(`r${i % 7}`, i), record(`n${i}`, i)] });
    if (i % 3 === 2) await writer.delete('c', { ids: [`n${i - 1}`] });
    if (i % 5 === 4) await writer.flush();
    if (i % 8 === 7) await writer.compact();
    seen.set(writer.commitVersion(), await contents(writer));
  }
  const versions = await writer.versions();
  t.is(versions.commit_version, writer.commitVersion());
  t.is(versions.pinned, null);
  t.true(versions.oldest_readable !== null && versions.oldest_readable <= writer.commitVersion() - 5, JSON.stringify(versions));
  t.deepEqual(
    versions.readable,
    Array.from({ length: writer.commitVersion() - versions.oldest_readable! + 1 }, (_, k) => versions.oldest_readable! + k),
  );
  for (const [version, expected] of seen) {
    if (version < versions.oldest_readable!) continue;
    const pinned = await Store.open({ path: dir, atVersion: version });
    t.is(pinned.commitVersion(), version);
    t.is(pinned.pinned(), version);
    t.deepEqual(await contents(pinned), expected, `version ${version}`);
    await pinned.close();
  }
  await writer.close();
});

test('a version a background compaction rewrote the segments of still opens as it was', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: 2, historyVersions: 3 });
  for (let i = 1; i <= 6; i++) {
    await writer.upsert('c', { records: [record('a', i)] });
    await writer.flush(); // each checkpoint leaves the previous segment all dead: compaction drops it
    await writer.waitForIndexes();
  }
  t.true(writer.footprintCached().compactions > 0);
  for (let v = 4; v <= 6; v++) {
    const pinned = await Store.open({ path: dir, atVersion: v });
    t.deepEqual(await contents(pinned), [`a:${v}`], `version ${v}`);
    await pinned.close();
  }
  await writer.close();
});

test("the versions before a store's first checkpoint stay readable after it, and a reader lists what the writer lists", async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: 2, historyVersions: 3 });
  for (let i = 1; i <= 5; i++) await writer.upsert('c', { records: [record('a', i)] });
  await writer.flush(); // the first manifest: versions 1..4 live only in the log it kept
  const versions = await writer.versions();
  t.true(versions.oldest_readable !== null && versions.oldest_readable <= 3, JSON.stringify(versions));
  for (let v = 3; v <= 5; v++) {
    const pinned = await Store.open({ path: dir, atVersion: v });
    t.deepEqual(await contents(pinned), [`a:${v}`], `version ${v}`);
    await pinned.close();
  }
  const reader = await Store.open({ path: dir, readOnly: true });
  t.deepEqual(await reader.versions(), versions);
  await reader.close();
  await writer.close();
});

test('history off: versions() has no readable versions and a null oldest_readable', async (t) => {
  const writer = await Store.open({ path: tempDir(), dimension: 2 });
  await writer.upsert('c', { records: [record('a', 1)] });
  t.deepEqual(await writer.versions(), { commit_version: writer.commitVersion(), oldest_readable: null, pinned: null, readable: [] });
  const memory = await Store.open({ inMemory: true, dimension: 2 });
  t.deepEqual(await memory.versions(), { commit_version: 0, oldest_readable: null, pinned: null, readable: [] });
  await writer.close();
});

test('a version whose files are gone: the open fails naming the oldest readable version', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: 2, historyVersions: 2 });
  for (let i = 0; i < 10; i++) {
    await writer.upsert('c', { records: [record('a', i)] });
    await writer.flush();
  }
  const { oldest_readable: oldest } = await writer.versions();
  const e = await rejectsWith(t, Store.open({ path: dir, atVersion: 1 }), 400);
  t.regex(e.message, new RegExp(`version 1 is not readable.*oldest readable version is ${oldest}`));
  const tooNew = await rejectsWith(t, Store.open({ path: dir, atVersion: 99 }), 400);
  t.regex(tooNew.message, /version 99 is not readable \(the newest is 10\)/);
  await writer.close();
});

test('a pinned handle refuses writes with 403, never refreshes, and the writer keeps writing beside it', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: 2, historyVersions: 10 });
  await writer.upsert('c', { records: [record('a', 1)] });
  await writer.upsert('c', { records: [record('a', 2)] });
  const pinned = await Store.open({ path: dir, atVersion: 1 });
  t.is(pinned.role, 'Reader');
  const e = await rejectsWith(t, pinned.upsert('c', { records: [record('b', 1)] }), 403);
  t.regex(e.message, /pinned at version 1/);
  await rejectsWith(t, pinned.compact(), 403);
  await rejectsWith(t, pinned.flush(), 403);
  await writer.upsert('c', { records: [record('a', 3)] });
  await writer.flush();
  t.deepEqual(await pinned.refresh(), { adopted: false });
  t.deepEqual(await contents(pinned), ['a:1']);
  t.is((await pinned.versions()).pinned, 1);
  t.is(pinned.cluster().commit_version, 1);
  t.is(pinned.stale(), false);
  await Promise.all([pinned.close(), writer.close()]);
});

test('pin() moves a Reader to a past version in place; a failure leaves the prior state serving', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: 2, historyVersions: 3 });
  for (let i = 1; i <= 6; i++) {
    await writer.upsert('c', { records: [record('a', i)] });
    await writer.flush(); // a checkpoint per version: what falls out of the window goes
  }
  await writer.waitForIndexes(); // the compactions those checkpoints start are done too
  const reader = await Store.open({ path: dir });
  t.deepEqual(await contents(reader), ['a:6']);
  t.deepEqual(await reader.pin(5), { pinned: 5 });
  t.deepEqual(await contents(reader), ['a:5']);
  t.is(reader.pinned(), 5);
  await rejectsWith(t, reader.pin(1), 400);
  t.deepEqual(await contents(reader), ['a:5'], 'still the version it served');
  t.is(reader.pinned(), 5);
  await rejectsWith(t, writer.pin(5), 409);
  await rejectsWith(t, reader.pin(-1), 400);
  await Promise.all([reader.close(), writer.close()]);
});

test('historyVersions and atVersion take whole numbers', async (t) => {
  await rejectsWith(t, Store.open({ path: tempDir(), dimension: 2, historyVersions: 1.5 }), 400);
  await rejectsWith(t, Store.open({ path: tempDir(), dimension: 2, atVersion: -3 }), 400);
});
