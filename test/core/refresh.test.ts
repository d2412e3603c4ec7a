// Readers and refresh (spec "Maintenance" POST /refresh, "States and transitions", "Cluster
// status"): a Reader serves the state it opened or last refreshed to, adopts newer committed state
// only when asked, never a torn one, and reports how stale it is.
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { Store } from '../../lib/index';
import { genVector, tempDir } from './helpers';

const DIM = 4;

const batch = (tag: string, count: number) => ({
  records: Array.from({ length: count }, (_, i) => ({ id: `${tag}-${i}`, vector: genVector(i, DIM), attrs: { tag: { Str: tag } } })),
});

/** Record counts per tag attribute. */
async function tags(store: Store): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const r of await store.records('c')) {
    const tag = (r.attrs.tag as { Str: string }).Str;
    out.set(tag, (out.get(tag) ?? 0) + 1);
  }
  return out;
}

test('a Reader serves the state it opened at until refresh() adopts newer writes; then adopted is false until more arrive', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: DIM });
  await writer.upsert('c', batch('a', 10));
  const reader = await Store.open({ path: dir });
  t.is(reader.role, 'Reader');
  await writer.upsert('c', batch('b', 10));
  t.deepEqual([...(await tags(reader)).keys()], ['a'], 'reads never refresh on their own');
  t.true(reader.cluster().commit_version < writer.cluster().commit_version, 'the lag shows in commit_version');
  t.deepEqual(await reader.refresh(), { adopted: true });
  t.is(reader.commitVersion(), writer.commitVersion());
  t.deepEqual(
    await tags(reader),
    new Map([
      ['a', 10],
      ['b', 10],
    ]),
  );
  t.deepEqual(await reader.refresh(), { adopted: false }, 'already current');
  await Promise.all([reader.close(), writer.close()]);
});

test('refresh() adopts across checkpoints and compactions: sealed segments, a new log, rewritten segments', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: DIM });
  await writer.upsert('c', batch('a', 2000));
  const reader = await Store.open({ path: dir });
  await writer.flush();
  await writer.upsert('c', batch('b', 5));
  t.deepEqual(await reader.refresh(), { adopted: true });
  t.deepEqual(
    await tags(reader),
    new Map([
      ['a', 2000],
      ['b', 5],
    ]),
  );
  await writer.upsert('c', batch('a', 1000)); // overwrites half of the sealed segment
  await writer.compact();
  t.deepEqual(await reader.refresh(), { adopted: true });
  t.deepEqual(
    await tags(reader),
    new Map([
      ['a', 2000],
      ['b', 5],
    ]),
  );
  t.is((await reader.stats()).footprint.dead_rows, 0, 'the reader serves the compacted segments');
  await Promise.all([reader.close(), writer.close()]);
});

test('a writer and an in-memory store answer refresh() with adopted false', async (t) => {
  const writer = await Store.open({ path: tempDir(), dimension: DIM });
  await writer.upsert('c', batch('a', 1));
  t.deepEqual(await writer.refresh(), { adopted: false });
  const memory = await Store.open({ inMemory: true, dimension: DIM });
  t.deepEqual(await memory.refresh(), { adopted: false });
  t.is(writer.cluster().staleness_secs, 0);
  await writer.close();
});

test('a read-only handle refreshes like a Reader', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: DIM });
  const readOnly = await Store.open({ path: dir, readOnly: true });
  await writer.upsert('c', batch('a', 3));
  t.deepEqual(await readOnly.refresh(), { adopted: true });
  t.is((await tags(readOnly)).get('a'), 3);
  await Promise.all([readOnly.close(), writer.close()]);
});

test('refreshing while the writer writes, checkpoints and compacts: every state adopted is whole and newer than the last', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: DIM });
  await writer.upsert('c', batch('w0', 200));
  const reader = await Store.open({ path: dir });
  let done = false;
  const writes = (async () => {
    for (let i = 1; i <= 40; i++) {
      await writer.upsert('c', batch(`w${i}`, 200));
      await writer.upsert('c', batch(`w${i - 1}`, 200)); // overwrites: dead rows for compaction
      if (i % 5 === 0) await writer.flush();
      if (i % 10 === 0) await writer.compact();
    }
    done = true;
  })();
  let last = reader.commitVersion();
  let refreshes = 0;
  while (!done || refreshes === 0) {
    await reader.refresh();
    refreshes++;
    t.true(reader.commitVersion() >= last, 'never goes back');
    last = reader.commitVersion();
    for (const [tag, count] of await tags(reader)) if (count !== 200) t.fail(`batch ${tag} has ${count} of 200 records`);
  }
  await writes;
  await reader.refresh();
  t.is(reader.commitVersion(), writer.commitVersion());
  t.is((await tags(reader)).size, 41);
  await Promise.all([reader.close(), writer.close()]);
});

// The race this stands for: a reader reads a compaction's manifest (which keeps the checkpoint's
// version: the log after it still applies), then the writer checkpoints (a new manifest, then the
// log emptied) before the reader reads the log. Here the log is emptied by hand before the refresh.
test('a refresh never adopts a state behind the one served: a log emptied after a compaction manifest was read fails it, and the next checkpoint is adopted', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: DIM });
  await writer.upsert('c', batch('a', 20));
  await writer.flush();
  await writer.upsert('c', batch('a', 5)); // a quarter of the sealed rows dead: no compaction yet
  await writer.upsert('c', batch('b', 5));
  const reader = await Store.open({ path: dir });
  const served = reader.commitVersion();
  t.is(served, writer.commitVersion());
  await writer.upsert('c', batch('a', 10)); // half dead: the automatic compaction rewrites the segment
  await writer.waitForIndexes();
  t.true(writer.footprintCached().compactions > 0);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'MANIFEST'), 'utf8')) as { commit_version: number };
  t.true(manifest.commit_version < served, 'the compaction kept the checkpoint version: the log after it carries the rest');
  fs.truncateSync(path.join(dir, 'wal.log'), 0);
  await t.throwsAsync(reader.refresh(), { message: /behind/ });
  t.is(reader.commitVersion(), served, 'never goes back');
  t.deepEqual(
    await tags(reader),
    new Map([
      ['a', 20],
      ['b', 5],
    ]),
  );
  await writer.flush();
  t.deepEqual(await reader.refresh(), { adopted: true });
  t.is(reader.commitVersion(), writer.commitVersion());
  t.deepEqual(
    await tags(reader),
    new Map([
      ['a', 20],
      ['b', 5],
    ]),
  );
  await Promise.all([reader.close(), writer.close()]);
});

test('setResident() that would load a state behind the one served fails and changes nothing: neither what is served nor what is held', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: DIM });
  await writer.upsert('d', batch('d', 3));
  await writer.upsert('c', batch('a', 20));
  await writer.flush();
  await writer.upsert('c', batch('a', 5));
  const reader = await Store.open({ path: dir, resident: ['c'] });
  const served = reader.commitVersion();
  await writer.upsert('c', batch('a', 10)); // half dead: the automatic compaction rewrites the segment
  await writer.waitForIndexes();
  fs.truncateSync(path.join(dir, 'wal.log'), 0); // the state the refresh test builds: the log emptied after a compaction's manifest
  await t.throwsAsync(reader.setResident(null), { message: /behind/ });
  t.is(reader.commitVersion(), served);
  await writer.flush();
  t.deepEqual(await reader.refresh(), { adopted: true });
  await t.throwsAsync(reader.list({ scope: ['d'], limit: 10 }), { message: /collection 'd' is not held/ });
  await reader.setResident(null);
  t.is((await reader.list({ scope: ['d'], limit: 10 })).length, 3);
  await Promise.all([reader.close(), writer.close()]);
});

test('maxStalenessMs: a Reader not refreshed within it is stale until a refresh succeeds', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: DIM });
  await writer.upsert('c', batch('a', 1));
  const reader = await Store.open({ path: dir, maxStalenessMs: 1000 });
  t.is(reader.cluster().max_staleness_secs, 1);
  while (!reader.stale()) await new Promise((resolve) => setTimeout(resolve, 20));
  t.true(reader.stalenessMs() > 1000);
  await reader.refresh();
  t.false(reader.stale());
  t.false(writer.stale(), 'a writer is never stale');
  await t.throwsAsync(Store.open({ path: dir, maxStalenessMs: -1 }), { message: /maxStalenessMs/ });
  await Promise.all([reader.close(), writer.close()]);
});
