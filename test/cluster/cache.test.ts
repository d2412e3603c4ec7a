// A cluster reader's bounded local copy (--cache-bytes, lib/features/cluster/collection_cache.ts,
// the core's resident collections): it restores no segment file at start, fetches a collection's
// files on the first read that needs them, answers exactly what a full copy answers, keeps its
// segment files within the bound by dropping the collections read longest ago, and follows the
// writer's checkpoints on refresh. Against a real radosgw.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { Shipper } from '../../lib/features/cluster/shipper';
import { ObjectStore } from '../../lib/features/cluster/object_store';
import { ClusterNode, Store, StoreError } from '../../lib/index';
import { call, startServer, tempDir } from '../http/helpers';
import { faultProxy } from '../harness/fault_proxy';
import { radosgwForFile } from '../harness/radosgw';
import { answers, COLLECTIONS, dir, records, ROWS } from './collections';

const rgw = radosgwForFile();

/** A writer with three collections in sealed segments (a checkpoint each) and a log tail, all published. */
async function published(t: ExecutionContext, objects: ObjectStore) {
  const home = dir(t);
  const store = await Store.open({ dimension: 4, path: home });
  t.teardown(() => store.close());
  const shipper = new Shipper({ store, dir: home, objects, prefix: 's', epoch: 1, base: null, lease: { confirm: async () => true, verify: async () => true } });
  for (const c of COLLECTIONS) await store.upsert(c, records(c, 0, ROWS));
  await store.flush();
  await store.upsert('a', records('a', ROWS, 10));
  await store.delete('b', { ids: ['b1', 'b2'] });
  await shipper.sync();
  return { store, shipper };
}

async function reader(t: ExecutionContext, objects: ObjectStore, cacheBytes?: number, home = dir(t)) {
  const node = new ClusterNode({
    objects,
    prefix: 's',
    location: 's3://test/s',
    dir: home,
    reader: true,
    standby: false,
    leaseTtlMs: 4000,
    open: {},
    ...(cacheBytes !== undefined && { cacheBytes }),
  });
  const store = await node.start();
  t.teardown(() => node.close());
  return { node, store, home };
}

/** Bytes of the segment files in a directory. */
const segmentBytes = (home: string) =>
  fs
    .readdirSync(home)
    .filter((n) => n.startsWith('seg-'))
    .reduce((sum, n) => sum + fs.statSync(path.join(home, n)).size, 0);
const segmentFiles = (home: string) => fs.readdirSync(home).filter((n) => n.startsWith('seg-'));

rgw.test('a lazy reader restores no segment file at start, fetches a collection on its first read, and answers what a full copy answers', async (t) => {
  const objects = await rgw.bucket(t);
  await published(t, objects);
  const full = await reader(t, objects);
  const lazy = await reader(t, objects, 1 << 30);
  t.deepEqual(segmentFiles(lazy.home), [], 'nothing fetched before a read needs it');
  t.deepEqual(await lazy.store.collections(), COLLECTIONS, 'every collection is listed');
  t.is(await answers(lazy.store, 'a'), await answers(full.store, 'a'));
  t.true(segmentFiles(lazy.home).length > 0);
  t.is(lazy.node.cache?.counters.fetched, 1, 'one collection fetched');
  const burst = await Promise.all(Array.from({ length: 8 }, () => answers(lazy.store, 'b')));
  t.true(
    burst.every((a) => a === burst[0]),
    'concurrent first reads of a collection agree',
  );
  t.is(lazy.node.cache?.counters.fetched, 2, 'concurrent first reads of a collection fetch it once');
  for (const c of COLLECTIONS) t.is(await answers(lazy.store, c), await answers(full.store, c));
  t.deepEqual(await lazy.store.get('b', ['b0', 'b1']), await full.store.get('b', ['b0', 'b1']), 'deletions from the log apply to a fetched collection');
  t.is(segmentBytes(lazy.home), segmentBytes(full.home), 'with room for all, it holds what a full copy holds');
});

rgw.test('past --cache-bytes the collections read longest ago are removed; reading one again fetches it again, with the same answers', async (t) => {
  const objects = await rgw.bucket(t);
  await published(t, objects);
  const full = await reader(t, objects);
  const oneCollection = await oneCollectionBytes(t, objects);
  // Room for one collection and a half: each fetch past the first drops the one before.
  const lazy = await reader(t, objects, Math.floor(oneCollection * 1.5));
  for (const c of [...COLLECTIONS, ...COLLECTIONS]) {
    t.is(await answers(lazy.store, c), await answers(full.store, c), `collection ${c}`);
    t.true(segmentBytes(lazy.home) <= oneCollection * 1.5, 'the segment files stay within the bound');
  }
  t.deepEqual(lazy.node.cache?.counters, { fetched: 6, evicted: 5 });
});

/** Bytes of one collection's segment files, as a reader holding only it keeps. */
async function oneCollectionBytes(t: ExecutionContext, objects: ObjectStore): Promise<number> {
  const probe = await reader(t, objects, 1 << 30);
  await answers(probe.store, 'a');
  return segmentBytes(probe.home);
}

rgw.test('past the bound the collection read longest ago goes, not the one fetched first', async (t) => {
  const objects = await rgw.bucket(t);
  await published(t, objects);
  const lazy = await reader(t, objects, Math.floor((await oneCollectionBytes(t, objects)) * 2.5));
  await answers(lazy.store, 'a');
  await answers(lazy.store, 'b');
  await answers(lazy.store, 'a');
  await answers(lazy.store, 'c');
  t.deepEqual(lazy.node.cache?.counters, { fetched: 3, evicted: 1 });
  await answers(lazy.store, 'a');
  t.deepEqual(lazy.node.cache?.counters, { fetched: 3, evicted: 1 }, 'a, read after b, is still held');
  await answers(lazy.store, 'b');
  t.deepEqual(lazy.node.cache?.counters, { fetched: 4, evicted: 2 }, 'b was the one dropped');
});

rgw.test('a read over collections that together pass the bound still answers: the collections it needs are kept', async (t) => {
  const objects = await rgw.bucket(t);
  await published(t, objects);
  const full = await reader(t, objects);
  const lazy = await reader(t, objects, 1);
  t.deepEqual(await lazy.store.stats(), await full.store.stats(), '/stats counts every collection');
  const everywhere = { query: [1, 3, 98, 0], top_k: 10 };
  t.deepEqual(await lazy.store.search(everywhere), await full.store.search(everywhere));
});

rgw.test('a batch whose legs miss their collections one at a time keeps every one it fetched, within a bound smaller than all of them', async (t) => {
  const objects = await rgw.bucket(t);
  await published(t, objects);
  const full = await reader(t, objects);
  const lazy = await reader(t, objects, Math.floor((await oneCollectionBytes(t, objects)) * 1.5));
  const batch = { queries: COLLECTIONS.map((c) => ({ query: [1, 5, c.charCodeAt(0), 0], top_k: 3, scope: [c] })) };
  t.deepEqual(await lazy.store.searchBatch(batch), await full.store.searchBatch(batch));
  t.is(lazy.node.cache?.counters.fetched, 3);
});

rgw.test("a collection's meta answers without fetching its files", async (t) => {
  const objects = await rgw.bucket(t);
  const { store: writer, shipper } = await published(t, objects);
  await writer.putMeta('b', { owner: 'ops' });
  await shipper.sync();
  const lazy = await reader(t, objects, 1 << 30);
  t.deepEqual(await lazy.store.getMeta('b'), { owner: 'ops' });
  t.is(lazy.node.cache?.counters.fetched, 0);
});

rgw.test('a held collection dropped by the writer is forgotten: nothing counted as evicted, its files removed', async (t) => {
  const objects = await rgw.bucket(t);
  const { store: writer, shipper } = await published(t, objects);
  const lazy = await reader(t, objects, 1 << 30);
  await answers(lazy.store, 'a');
  await answers(lazy.store, 'b');
  await writer.dropCollection('a');
  await writer.flush();
  await shipper.sync();
  await lazy.store.refresh();
  await answers(lazy.store, 'c');
  t.deepEqual(await lazy.store.collections(), ['b', 'c']);
  t.deepEqual(lazy.node.cache?.counters, { fetched: 3, evicted: 0 });
  t.deepEqual(lazy.node.cache?.resident(), ['b', 'c']);
  const full = await reader(t, objects);
  t.is(segmentBytes(lazy.home), segmentBytes(full.home), 'b and c held, as a full copy holds them');
});

rgw.test('a held collection dropped, then created again and checkpointed, is fetched anew: refreshes keep working', async (t) => {
  const objects = await rgw.bucket(t);
  const { store: writer, shipper } = await published(t, objects);
  const lazy = await reader(t, objects, 1 << 30);
  await answers(lazy.store, 'a');
  await writer.dropCollection('a');
  await writer.flush();
  await shipper.sync();
  await lazy.store.refresh();
  await writer.upsert('a', records('a', 0, 40));
  await writer.flush();
  await shipper.sync();
  t.deepEqual(await lazy.store.refresh(), { adopted: true });
  const full = await reader(t, objects);
  t.is(await answers(lazy.store, 'a'), await answers(full.store, 'a'));
});

rgw.test('a held collection that grew past the bound on refresh is removed, and fetched again when read', async (t) => {
  const objects = await rgw.bucket(t);
  const { store: writer, shipper } = await published(t, objects);
  const bound = Math.floor((await oneCollectionBytes(t, objects)) * 1.5);
  const lazy = await reader(t, objects, bound);
  await answers(lazy.store, 'a');
  await writer.upsert('a', records('a', 5000, ROWS));
  await writer.flush();
  await shipper.sync();
  await lazy.store.refresh();
  t.true(segmentBytes(lazy.home) <= bound, 'within the bound after the refresh');
  t.is(lazy.node.cache?.counters.evicted, 1);
  const full = await reader(t, objects);
  t.is(await answers(lazy.store, 'a'), await answers(full.store, 'a'));
});

rgw.test('a bounded reader restarted over its directory holds again what it held, without fetching it', async (t) => {
  const objects = await rgw.bucket(t);
  await published(t, objects);
  const home = dir(t);
  const first = await reader(t, objects, 1 << 30, home);
  await answers(first.store, 'a');
  await first.node.close();
  const again = await reader(t, objects, 1 << 30, home);
  t.deepEqual(again.node.cache?.resident(), ['a']);
  const full = await reader(t, objects);
  t.is(await answers(again.store, 'a'), await answers(full.store, 'a'));
  t.is(again.node.cache?.counters.fetched, 0, 'nothing fetched for a');
  t.is(await answers(again.store, 'b'), await answers(full.store, 'b'));
  t.is(again.node.cache?.counters.fetched, 1);
});

rgw.test('temporary files a killed fetch left in the directory are removed', async (t) => {
  const objects = await rgw.bucket(t);
  await published(t, objects);
  const home = dir(t);
  fs.writeFileSync(path.join(home, 'replica-tmp.seg-1.vec'), Buffer.alloc(4096));
  fs.writeFileSync(path.join(home, 'replica-tmp.seg-77.rows'), Buffer.alloc(4096));
  const lazy = await reader(t, objects, 1 << 30, home);
  t.deepEqual(
    fs.readdirSync(home).filter((n) => n.startsWith('replica-tmp.')),
    [],
  );
  const full = await reader(t, objects);
  t.is(await answers(lazy.store, 'a'), await answers(full.store, 'a'));
});

rgw.test('an object store failing while a collection is fetched answers 503 naming it, and the next read fetches it', async (t) => {
  const objects = await rgw.bucket(t);
  await published(t, objects);
  const full = await reader(t, objects);
  const proxy = await faultProxy(Number(new URL(rgw.gateway().endpoint).port));
  t.teardown(() => proxy.close());
  const gateway = rgw.gateway();
  const via = new ObjectStore({
    endpoint: `http://127.0.0.1:${proxy.port}`,
    bucket: objects.bucket,
    credentials: gateway.credentials,
    region: gateway.region,
    retries: 0,
  });
  const lazy = await reader(t, via, 1 << 30);
  proxy.mode = 'refuse';
  const err = await t.throwsAsync(answers(lazy.store, 'a'), { instanceOf: StoreError });
  t.is(err?.status, 503);
  t.regex(err?.message ?? '', /collection 'a' could not be fetched from the object store/);
  proxy.mode = 'pass';
  t.is(await answers(lazy.store, 'a'), await answers(full.store, 'a'));
});

rgw.test("a lazy reader follows the writer's checkpoints on refresh: new segments of a held collection are fetched, superseded ones removed", async (t) => {
  const objects = await rgw.bucket(t);
  const { store: writer, shipper } = await published(t, objects);
  const lazy = await reader(t, objects, 1 << 30);
  await answers(lazy.store, 'a');
  const before = segmentFiles(lazy.home);
  await writer.upsert('a', records('a', 0, 50));
  await writer.upsert('b', records('b', 1000, 50));
  await writer.compact();
  await shipper.sync();
  t.deepEqual(await lazy.store.refresh(), { adopted: true });
  const full = await reader(t, objects);
  for (const c of COLLECTIONS) t.is(await answers(lazy.store, c), await answers(full.store, c), `collection ${c}`);
  const owned = new Set(segmentFiles(lazy.home));
  t.false(
    before.every((n) => owned.has(n)),
    'the compacted segments were removed',
  );
});

rgw.test('refreshes that overlap fetch one after another: full and bounded readers both end at the newest state', async (t) => {
  const objects = await rgw.bucket(t);
  const { store: writer, shipper } = await published(t, objects);
  const full = await reader(t, objects);
  const lazy = await reader(t, objects, 1 << 30);
  await answers(lazy.store, 'a');
  await writer.upsert('a', records('a', 0, 100));
  await writer.compact();
  await shipper.sync();
  const refreshes = await Promise.all([full, lazy, full, lazy, full, lazy].map((r) => r.store.refresh()));
  t.true(refreshes.some((r) => r.adopted));
  const fresh = await reader(t, objects);
  for (const c of COLLECTIONS) {
    t.is(await answers(full.store, c), await answers(fresh.store, c), `full reader, collection ${c}`);
    t.is(await answers(lazy.store, c), await answers(fresh.store, c), `bounded reader, collection ${c}`);
  }
});

test('a store opened with resident holds only those collections: a read of another is 503 naming it, setResident() brings it in', async (t) => {
  const home = dir(t);
  const writer = await Store.open({ dimension: 4, path: home });
  for (const c of COLLECTIONS) await writer.upsert(c, records(c, 0, 20));
  await writer.flush();
  const refused = await t.throwsAsync(writer.setResident(['a']), { instanceOf: StoreError, message: /only a reader at its newest version/ });
  t.is(refused?.status, 400);
  await writer.close();
  const lazy = await Store.open({ path: home, readOnly: true, resident: ['a'] });
  t.teardown(() => lazy.close());
  t.is((await lazy.list({ scope: ['a'], limit: 100 })).length, 20);
  const err = await t.throwsAsync(lazy.search({ query: [1, 0, 0, 0], top_k: 3, scope: ['a', 'b'] }), { instanceOf: StoreError });
  t.is(err?.status, 503);
  t.regex(err?.message ?? '', /collection 'b' is not held by this instance/);
  await t.throwsAsync(lazy.stats(), { message: /'b', 'c'/ });
  await t.throwsAsync(lazy.pin(1), { message: /holds only some collections' files/ });
  await t.throwsAsync(lazy.setResident('b' as unknown as string[]), { message: /setResident\(\) must be an array of collection names/ });
  await lazy.setResident(['a', 'b']);
  t.is((await lazy.list({ scope: ['b'], limit: 100 })).length, 20);
  await lazy.setResident(null);
  t.is((await lazy.stats()).footprint.doc_count, 60);
});

test('a cluster writer keeping history takes no cacheBytes (400): past versions need every collection', (t) => {
  const objects = {} as ObjectStore;
  const options = {
    objects,
    prefix: 's',
    location: 's3://b/s',
    dir: dir(t),
    reader: false,
    standby: false,
    leaseTtlMs: 4000,
    open: { historyVersions: 3 },
    cacheBytes: 1 << 20,
  };
  const err = t.throws(() => new ClusterNode(options), { instanceOf: StoreError });
  t.is(err?.status, 400);
  t.regex(err?.message ?? '', /cacheBytes bounds a writer that keeps no history/);
});

test('resident is refused in memory, at a past version and on a writer keeping history (400), and must be a list of names', async (t) => {
  const home = dir(t);
  await t.throwsAsync(Store.open({ dimension: 4, inMemory: true, resident: ['a'] }), { message: /applies to a store on disk at its newest version/ });
  const writer = await Store.open({ dimension: 4, path: home, historyVersions: 2 });
  await writer.upsert('a', records('a', 0, 1));
  await writer.close();
  await t.throwsAsync(Store.open({ path: home, atVersion: 1, resident: ['a'] }), { message: /applies to a store on disk at its newest version/ });
  await t.throwsAsync(Store.open({ path: home, historyVersions: 2, resident: ['a'] }), { message: /keeps no history/ });
  await t.throwsAsync(Store.open({ dimension: 4, path: home, readOnly: true, resident: 'a' as unknown as string[] }), {
    message: /resident must be an array of collection names/,
  });
});

rgw.test('tessera serve --cluster-reader --cache-bytes answers /search and /list like a full reader, within the bound', async (t) => {
  const bucket = (await rgw.bucket(t)).bucket;
  const gateway = rgw.gateway();
  const env = gateway.env;
  const prefix = `store-${randomBytes(3).toString('hex')}`;
  const args = (...more: string[]) => ['--cluster', `s3://${bucket}/${prefix}`, '--cluster-endpoint', gateway.endpoint, '--lease-ttl', '4s', ...more];
  const writer = await startServer(args(), env);
  t.teardown(() => writer.stop());
  for (const c of COLLECTIONS) t.is((await call(writer, 'POST', `/collections/${c}/upsert`, records(c, 0, ROWS))).status, 200);
  t.is((await call(writer, 'POST', '/flush')).status, 200);
  const full = await startServer(args('--cluster-reader'), env);
  t.teardown(() => full.stop());
  const data = tempDir();
  const lazy = await startServer(args('--cluster-reader', '--cache-bytes', '1KiB', '--data', data), env);
  t.teardown(() => lazy.stop());
  for (const c of [...COLLECTIONS, 'a']) {
    const search = { query: [1, 2, c.charCodeAt(0), 0], top_k: 5, scope: [c] };
    const got = await call(lazy, 'POST', '/search', search);
    t.is(got.status, 200);
    t.deepEqual(got.json, (await call(full, 'POST', '/search', search)).json);
    const list = { scope: [c], limit: 10_000 };
    t.deepEqual((await call(lazy, 'POST', '/list', list)).json, (await call(full, 'POST', '/list', list)).json);
  }
  const owners = new Set(segmentFiles(data).map((n) => n.split('.')[0]));
  t.is(owners.size, 1, `past a 1 KiB bound only the collection read last is held: ${segmentFiles(data)}`);
  const metrics = await (await fetch(`${lazy.url}/metrics`)).text();
  t.regex(metrics, /svc_cache_fetches_total 4\n/);
  t.regex(metrics, /svc_cache_evictions_total 3\n/);
  t.regex(metrics, new RegExp(`svc_cache_bytes ${segmentBytes(data)}\n`));
});
