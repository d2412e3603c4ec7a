// Replication through a real radosgw (lib/features/cluster/shipper.ts, restore.ts): what the
// writer ships after sync() restores, whole, into a fresh directory; restores continue
// incrementally; a writer whose CURRENT changed under it, or whose lease lapsed, is fenced.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCurrent } from '../../lib/features/cluster/current';
import { restore } from '../../lib/features/cluster/restore';
import { Fenced, Unconfirmed } from '../../lib/features/cluster/shipper';
import { ClusterNode, OutcomeUnknown } from '../../lib/index';
import { radosgwForFile } from '../harness/radosgw';
import { until } from '../harness/until';
import { concurrency, contents, dir, intercepted, keys, opened, records, shipOneByOne, successor, writer } from './shipping';

const rgw = radosgwForFile();

rgw.test('what sync() acknowledged restores whole into a fresh directory: log records, checkpointed segments, deletions, a compaction', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects);
  await store.upsert('c', records(0, 100));
  await shipper.sync();
  await store.flush();
  await store.delete('c', { ids: ['r3', 'r4'] });
  await store.upsert('c', records(100, 50));
  await shipper.sync();
  await store.compact();
  await store.upsert('c', records(150, 5));
  await shipper.sync();

  const copy = dir(t);
  t.truthy(await restore(objects, 's', copy));
  const restored = await opened(t, copy);
  t.is(await contents(restored), await contents(store));
  t.is((await restored.list({ scope: ['c'], limit: 10_000 })).length, 153);
});

rgw.test('a restore continues from the last one: new log chunks are appended, a new generation replaces the directory state', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects);
  await store.upsert('c', records(0, 10));
  await shipper.sync();
  const copy = dir(t);
  const first = await restore(objects, 's', copy);
  const reader = await opened(t, copy);
  t.is(await contents(reader), await contents(store));

  await store.upsert('c', records(10, 10));
  await shipper.sync();
  const second = await restore(objects, 's', copy, { previous: first });
  t.is(second?.etag, first?.etag, 'same generation: CURRENT untouched');
  t.true((second?.chunks ?? 0) > (first?.chunks ?? 0));
  t.deepEqual(await reader.refresh(), { adopted: true });
  t.is(await contents(reader), await contents(store));

  await store.flush();
  await store.upsert('c', records(20, 10));
  await shipper.sync();
  const third = await restore(objects, 's', copy, { previous: second });
  t.not(third?.etag, second?.etag, 'a checkpoint published a new generation');
  t.deepEqual(await reader.refresh(), { adopted: true });
  t.is(await contents(reader), await contents(store));
});

rgw.test('concurrent writes share rounds: fewer log chunks than syncs, and every acknowledged write restores', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects);
  await store.upsert('c', records(0, 1));
  await shipper.sync();
  await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      await store.upsert('c', records(1 + i, 1));
      await shipper.sync();
    }),
  );
  let chunks = 0;
  for await (const _ of objects.listAll('s/log/')) chunks++;
  t.true(chunks < 41, `${chunks} chunks for 41 syncs`);
  const copy = dir(t);
  await restore(objects, 's', copy);
  t.is((await (await opened(t, copy)).list({ scope: ['c'], limit: 100 })).length, 41);
});

rgw.test('a writer whose CURRENT another writer replaced is fenced at its next publish, and stays fenced', async (t) => {
  const objects = await rgw.bucket(t);
  const first = await writer(t, objects, { epoch: 1 });
  await first.store.upsert('c', records(0, 5));
  await first.shipper.sync();

  // A successor restores what was published and takes over.
  const { store, shipper } = await successor(t, objects, 2);
  await store.upsert('c', records(5, 5));
  await shipper.sync();

  await first.store.flush(); // a new generation: the old writer must publish CURRENT, and cannot
  await t.throwsAsync(first.shipper.sync(), { instanceOf: Fenced, message: /CURRENT changed under this writer/ });
  await first.store.upsert('c', records(100, 1));
  await t.throwsAsync(first.shipper.sync(), { instanceOf: Fenced });

  const copy = dir(t);
  const published = await restore(objects, 's', copy);
  t.is(await contents(await opened(t, copy)), await contents(store), "the successor's state is intact");
  t.deepEqual(
    published?.record.logs.map((part) => part.prefix),
    ['s/log/1/0/', 's/log/2/0/'],
    "the predecessor's chunks are the first part of the successor's log, not uploaded again",
  );
});

rgw.test('a write is not acknowledged while the lease is unconfirmed; once it is again, the next sync acknowledges', async (t) => {
  const objects = await rgw.bucket(t);
  let held = true;
  const { store, shipper } = await writer(t, objects, { held: () => held });
  await store.upsert('c', records(0, 1));
  await shipper.sync();
  held = false;
  await store.upsert('c', records(1, 1));
  await t.throwsAsync(shipper.sync(), { instanceOf: Unconfirmed, message: /lease is not confirmed/ });
  t.is(shipper.fencedBy, null, 'a lapse is not a supersession');
  held = true;
  await shipper.sync();
  const copy = dir(t);
  await restore(objects, 's', copy);
  t.is((await (await opened(t, copy)).list({ scope: ['c'] })).length, 2);
});

rgw.test('fence() latches: every later sync rejects', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects);
  shipper.fence('the lease names another writer');
  await store.upsert('c', records(0, 1));
  await t.throwsAsync(shipper.sync(), { instanceOf: Fenced, message: 'the lease names another writer' });
});

rgw.test('nothing published restores to null and creates nothing', async (t) => {
  const objects = await rgw.bucket(t);
  const copy = path.join(dir(t), 'not-yet');
  t.is(await restore(objects, 's', copy), null);
  t.false(fs.existsSync(copy));
});

rgw.test('ClusterNode: a writer acknowledges through durable(), a reader node pulls it on store.refresh(), status() reports both', async (t) => {
  const objects = await rgw.bucket(t);
  const common = { objects, prefix: 'n', location: `s3://${objects.bucket}/n`, standby: false, leaseTtlMs: 5000 };
  const writer = new ClusterNode({ ...common, dir: dir(t), reader: false, open: { dimension: 2 } });
  const store = await writer.start();
  t.teardown(() => writer.close());
  await store.upsert('c', records(0, 3));
  await writer.durable();
  const reader = new ClusterNode({ ...common, dir: dir(t), reader: true, open: {} });
  const copy = await reader.start();
  t.teardown(() => reader.close());
  t.is(await contents(copy), await contents(store));
  await store.upsert('c', records(3, 2));
  await writer.durable();
  t.deepEqual(await copy.refresh(), { adopted: true });
  t.is(await contents(copy), await contents(store));
  t.like(writer.status(), { role: 'ClusterWriter', cluster: true, holds_writer_handle: true, fenced: false });
  t.like(reader.status(), { role: 'ClusterReader', holds_writer_handle: false, lease_owner: null, commit_version: writer.status().commit_version });
  await t.throwsAsync(reader.durable(), { message: /does not write the cluster store/ });
});

rgw.test('a restore into a directory restored before fetches only the files it lacks', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects);
  await store.upsert('c', records(0, 50));
  await store.flush();
  await shipper.sync();
  const copy = dir(t);
  await restore(objects, 's', copy);
  const fetched: string[] = [];
  const fetching = (real: (...args: unknown[]) => unknown, key: unknown, ...rest: unknown[]) => {
    fetched.push(String(key));
    return real(key, ...rest);
  };
  const counting = intercepted(objects, { get: fetching, getInto: fetching });
  await restore(counting, 's', copy);
  t.deepEqual(
    fetched.filter((k) => k.includes('/files/')),
    [],
    'no file fetched again after a restart',
  );
  fs.rmSync(path.join(copy, 'HEADER'));
  await restore(counting, 's', copy);
  t.deepEqual(
    fetched.filter((k) => k.includes('/files/')),
    ['s/files/1/HEADER'],
    'a missing one is fetched',
  );
  t.is(await contents(await opened(t, copy)), await contents(store));
});

rgw.test('a fresh restore lists the open log once, fetches each chunk it lists once, and each file in one request', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects);
  await shipOneByOne({ store, shipper }, 0, 30);
  const fetched: string[] = [];
  let lists = 0;
  let heads = 0;
  const fetching = (real: (...args: unknown[]) => unknown, key: unknown, ...rest: unknown[]) => {
    fetched.push(String(key));
    return real(key, ...rest);
  };
  const counting = intercepted(objects, {
    get: fetching,
    getInto: fetching,
    head: (real, ...args) => {
      heads++;
      return real(...args);
    },
    listAll: (real, ...args) => {
      lists++;
      return real(...args);
    },
  });
  const copy = dir(t);
  await restore(counting, 's', copy);
  const chunkGets = fetched.filter((k) => k.includes('/log/'));
  t.is(lists, 1);
  t.is(chunkGets.length, 30, 'every shipped chunk once');
  t.is(new Set(chunkGets).size, chunkGets.length);
  const fileGets = fetched.filter((k) => k.includes('/files/'));
  t.true(fileGets.length > 0);
  t.is(new Set(fileGets).size, fileGets.length, 'each file in one request');
  t.is(heads, 0, 'no HEAD: the first range tells the size');
  t.is(await contents(await opened(t, copy)), await contents(store));
});

rgw.test('takeover after takeover: each successor inherits the log parts before it, and a restore reads them all in order', async (t) => {
  const objects = await rgw.bucket(t);
  const first = await writer(t, objects, { epoch: 1 });
  await first.store.upsert('c', records(0, 5));
  await first.shipper.sync();
  let store = first.store;
  for (const epoch of [2, 3]) {
    const next = await successor(t, objects, epoch);
    store = next.store;
    await next.shipper.sync();
    await store.upsert('c', records(epoch * 10, 5));
    await next.shipper.sync();
  }
  const copy = dir(t);
  const published = await restore(objects, 's', copy);
  t.is(published?.record.logs.length, 3);
  t.is(await contents(await opened(t, copy)), await contents(store));
  t.is((await store.list({ scope: ['c'] })).length, 15);
});

rgw.test('a publish uploads its files several at once, at most 8', async (t) => {
  const objects = await rgw.bucket(t);
  const uploads = concurrency();
  const counting = intercepted(objects, {
    put: (real, ...args) => (String(args[0]).includes('/files/') ? uploads.around(() => real(...args)) : real(...args)),
  });
  const { store, shipper } = await writer(t, counting);
  await store.upsert('c', records(0, 50));
  await store.flush();
  await shipper.sync();
  t.true(uploads.most > 1, `at most ${uploads.most} upload(s) at once`);
  t.true(uploads.most <= 8, `${uploads.most} uploads at once`);
  const copy = dir(t);
  await restore(objects, 's', copy);
  t.is(await contents(await opened(t, copy)), await contents(store));
});

rgw.test('an empty published file restores as an empty file (its first range answers 416)', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects);
  await store.upsert('c', records(0, 3));
  await store.flush();
  await shipper.sync();
  const published = await readCurrent(objects, 's');
  if (published === null) throw new Error('nothing published');
  await objects.put('s/files/1/EMPTY', Buffer.alloc(0));
  await objects.put('s/CURRENT', JSON.stringify({ ...published.record, files: { ...published.record.files, EMPTY: 's/files/1/EMPTY' } }), {
    ifMatch: published.etag,
  });
  const copy = dir(t);
  await restore(objects, 's', copy);
  t.is(fs.statSync(path.join(copy, 'EMPTY')).size, 0);
  t.is(await contents(await opened(t, copy)), await contents(store));
});

rgw.test('a file larger than one fetch range restores byte for byte', async (t) => {
  const objects = await rgw.bucket(t);
  // No index, so the rows seal as one segment (with one a memory segment seals at 4,096 rows).
  const { store, shipper, home } = await writer(t, objects, { open: { dimension: 128, ann: 'none', quantization: 'none' } });
  const vector = (i: number) => Array.from({ length: 128 }, (_, j) => Math.sin(i * 128 + j));
  for (let first = 0; first < 40_000; first += 10_000) {
    await store.upsert('c', { records: Array.from({ length: 10_000 }, (_, i) => ({ id: `${first + i}`, vector: vector(first + i) })) });
  }
  await store.flush();
  await shipper.sync();
  const copy = dir(t);
  const published = await restore(objects, 's', copy);
  const large = Object.keys(published?.record.files ?? {}).filter((name) => fs.statSync(path.join(home, name)).size > 16 << 20);
  t.true(large.length > 0, 'a vector file above 16 MiB');
  for (const name of large) t.true(fs.readFileSync(path.join(copy, name)).equals(fs.readFileSync(path.join(home, name))), name);
});

rgw.test('with history on, past versions travel too: a restored copy lists them and a read-only handle pins one', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects, { open: { historyVersions: 10 } });
  await store.upsert('c', records(0, 3));
  await store.flush();
  const early = store.commitVersion();
  await store.upsert('c', records(3, 3));
  await store.flush();
  await store.upsert('c', records(6, 3));
  await shipper.sync();
  const copy = dir(t);
  await restore(objects, 's', copy);
  const reader = await opened(t, copy);
  const versions = await reader.versions();
  t.true(versions.readable.includes(early), JSON.stringify(versions));
  await reader.pin(early);
  t.is((await reader.list({ scope: ['c'] })).length, 3);
});

rgw.test('objects no published state names are collected: superseded files and log chunks go, and what remains restores', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects, { gcGraceMs: 0 });
  for (let round = 0; round < 3; round++) {
    await store.upsert('c', records(round * 10, 10));
    await store.flush();
    await shipper.sync();
  }
  await store.compact();
  await shipper.sync();
  await store.upsert('c', records(100, 1));
  await shipper.sync(); // waits for no sweep, but its publish-free round leaves the last one running
  await store.flush();
  await shipper.sync(); // a publish: the previous sweep has finished before it uploads
  const copy = dir(t);
  const published = await restore(objects, 's', copy);
  const named = Object.values(published?.record.files ?? {}).sort();
  await until(async () => JSON.stringify(await keys(objects, 's/files/')) === JSON.stringify(named), 'superseded files collected');
  const parts = published?.record.logs.map((part) => part.prefix) ?? [];
  await until(async () => (await keys(objects, 's/log/')).every((key) => parts.some((part) => key.startsWith(part))), 'superseded log chunks collected');
  t.is(await contents(await opened(t, copy)), await contents(store));
});

rgw.test('derived files saved after a generation was published join it at the next sync', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper, home } = await writer(t, objects);
  await store.upsert('c', records(0, 50));
  await store.flush();
  await shipper.sync();
  const first = Object.keys((await restore(objects, 's', dir(t)))?.record.files ?? {});
  await store.waitForIndexes();
  const local = fs.readdirSync(home).filter((name) => /^seg-\d+\./.test(name) && !name.endsWith('.tmp'));
  await shipper.sync();
  const copy = dir(t);
  const published = await restore(objects, 's', copy);
  t.deepEqual(
    Object.keys(published?.record.files ?? {})
      .filter((name) => name.startsWith('seg-'))
      .sort(),
    local.sort(),
  );
  t.log(`first publish named ${first.length} files, the next ${Object.keys(published?.record.files ?? {}).length}`);
  t.is(await contents(await opened(t, copy)), await contents(store));
});

rgw.test('a writer that cannot start (CURRENT of an unknown format) fails naming it and hands the lease on at once', async (t) => {
  const objects = await rgw.bucket(t);
  await objects.put('n/CURRENT', JSON.stringify({ format: 2 }));
  const common = { objects, prefix: 'n', location: `s3://${objects.bucket}/n`, standby: false, leaseTtlMs: 60_000, reader: false, open: { dimension: 2 } };
  const first = new ClusterNode({ ...common, dir: dir(t) });
  await t.throwsAsync(first.start(), { message: /n\/CURRENT has format 2; this version reads format 1/ });
  await objects.delete('n/CURRENT');
  const second = new ClusterNode({ ...common, dir: dir(t) });
  t.teardown(() => second.close());
  await second.start();
  t.regex(second.status().lease_owner ?? '', /:2$/, 'taken at once, long before the 60 s TTL');
});

rgw.test(
  'a round that starts over after uploading some files (a compaction removed one under it) publishes: a file key of its own epoch already there counts as uploaded',
  async (t) => {
    const objects = await rgw.bucket(t);
    const { store, shipper, home } = await writer(t, objects);
    await store.upsert('c', records(0, 20));
    await store.flush();
    // What an earlier round put before it started over.
    const rows = fs.readdirSync(home).find((n) => /^seg-\d+\.rows$/.test(n))!;
    await objects.put(`s/files/1/${rows}`, fs.readFileSync(path.join(home, rows)), { ifNoneMatch: '*' });
    await shipper.sync();
    const current = await readCurrent(objects, 's');
    t.is(current?.record.files[rows], `s/files/1/${rows}`);
    const copy = dir(t);
    await restore(objects, 's', copy);
    const restored = await opened(t, copy, true);
    t.is((await restored.list({ scope: ['c'], limit: 100 })).length, 20);
  },
);

rgw.test(
  'a publish whose CURRENT failed after its first log chunk landed is not stuck: the next round puts the rest of the log after that chunk and acknowledges',
  async (t) => {
    const objects = await rgw.bucket(t);
    let failNextCurrent = true;
    const flaky = intercepted(objects, {
      put: (real, ...args) => {
        if (failNextCurrent && String(args[0]).endsWith('/CURRENT')) {
          failNextCurrent = false;
          return Promise.reject(new OutcomeUnknown('CURRENT: no answer (a test fault)', 0, 'ETIMEDOUT'));
        }
        return real(...args);
      },
    });
    const { store, shipper } = await writer(t, flaky);
    await store.upsert('c', records(0, 5));
    await t.throwsAsync(shipper.sync(), { instanceOf: OutcomeUnknown });
    await store.upsert('c', records(5, 5));
    await shipper.sync();
    const copy = dir(t);
    const published = await restore(objects, 's', copy);
    t.is(published?.chunks, 2, 'the chunk that landed, then the rest after it');
    t.is(await contents(await opened(t, copy)), await contents(store));
  },
);

rgw.test('a CURRENT whose answer was lost but which landed is read back and adopted: the write is acknowledged and the writer is not fenced', async (t) => {
  const objects = await rgw.bucket(t);
  let loseNextAnswer = true;
  const lossy = intercepted(objects, {
    put: async (real, ...args) => {
      const put = await real(...args);
      if (loseNextAnswer && String(args[0]).endsWith('/CURRENT')) {
        loseNextAnswer = false;
        throw new OutcomeUnknown('CURRENT: the answer was lost (a test fault)', 0, 'ECONNRESET');
      }
      return put;
    },
  });
  const { store, shipper } = await writer(t, lossy);
  await store.upsert('c', records(0, 5));
  await shipper.sync();
  t.is(shipper.fencedBy, null);
  await store.upsert('c', records(5, 5));
  await store.flush();
  await shipper.sync();
  const copy = dir(t);
  await restore(objects, 's', copy);
  t.is(await contents(await opened(t, copy)), await contents(store));
});

rgw.test("a writer whose lease epoch is not past the published state's (its lease object was deleted) refuses to claim, naming why", async (t) => {
  const objects = await rgw.bucket(t);
  const common = { objects, prefix: 'n', location: `s3://${objects.bucket}/n`, standby: false, leaseTtlMs: 60_000, reader: false, open: { dimension: 2 } };
  const first = new ClusterNode({ ...common, dir: dir(t) });
  const store = await first.start();
  await store.upsert('c', records(0, 3));
  await first.durable();
  await first.close();
  await objects.delete('n/lease.json');
  const second = new ClusterNode({ ...common, dir: dir(t) });
  await t.throwsAsync(second.start(), {
    message: /is at epoch 1, not past the published state's 1: its lease object was deleted or replaced; refusing to publish under a reused epoch/,
  });
  t.is((await readCurrent(objects, 'n'))?.record.epoch, 1, 'CURRENT untouched');
});
