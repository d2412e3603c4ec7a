// Backups to an object store (issue 50; README "Backups"): `--backup-to s3://BUCKET/PREFIX
// --backup-endpoint URL` against the radosgw the cluster tests start, and `tessera restore --from
// s3://BUCKET/PREFIX/NAME` back into a directory. The bucket is looked at only to count what a
// backup or a delete left there, or to damage it.
import type { ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ObjectStore } from '../../lib/features/cluster/object_store';
import { radosgwForFile } from '../harness/radosgw';
import { type Answer, call, prng, runCli, type Server, startServer, tempDir, unitRecords } from '../http/helpers';

const rgw = radosgwForFile();
const QUERY = [0.5, 0.1, -0.3, 0.8];

interface Target {
  objects: ObjectStore;
  env: NodeJS.ProcessEnv;
  endpoint: string;
  prefix: string;
  /** s3://BUCKET/PREFIX */
  location: string;
}

/** A fresh bucket and prefix, with the gateway's credentials as the environment a server or restore reads them from. */
async function s3Target(t: ExecutionContext): Promise<Target> {
  const objects = await rgw.bucket(t);
  const gateway = rgw.gateway();
  const env = gateway.env;
  const prefix = `backups-${randomBytes(3).toString('hex')}`;
  return { objects, env, endpoint: gateway.endpoint, prefix, location: `s3://${objects.bucket}/${prefix}` };
}

async function backupServer(t: ExecutionContext, target: Target, more: string[] = []): Promise<Server> {
  const server = await startServer(['--backup-to', target.location, '--backup-endpoint', target.endpoint, ...more], target.env);
  t.teardown(() => server.stop());
  return server;
}

/** A request that must succeed: its JSON answer. */
async function ok(server: Pick<Server, 'url'>, method: string, route: string, body?: unknown): Promise<Answer['json']> {
  const r = await call(server, method, route, body);
  if (r.status !== 200) throw new Error(`${method} ${route}: ${r.status} ${r.text}`);
  return r.json;
}

/** The objects under `prefix/` + `under`, key (less `prefix/`) -> bytes. */
async function objectsUnder(target: Target, under: string, prefix = target.prefix): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const object of target.objects.listAll(`${prefix}/${under}`)) out.set(object.key.slice(prefix.length + 1), object.size);
  return out;
}

const sum = (sizes: Iterable<number>) => [...sizes].reduce((a, b) => a + b, 0);

/** What a client reads of collection c: its records by id and a search. */
async function answers(server: Pick<Server, 'url'>, prefix = ''): Promise<unknown> {
  const records = (await ok(server, 'GET', `${prefix}/collections/c/records`)) as { id: string }[];
  return {
    records: records.sort((a, b) => (a.id < b.id ? -1 : 1)),
    meta: await ok(server, 'GET', `${prefix}/collections/c/meta`),
    search: await ok(server, 'POST', `${prefix}/search`, { query: QUERY, top_k: 10 }),
  };
}

async function fill(server: Pick<Server, 'url'>, prefix = ''): Promise<void> {
  const records = unitRecords(60, 4, prng(1)).map((r, i) => ({ ...r, attrs: { n: { Int: i } } }));
  await ok(server, 'POST', `${prefix}/collections/c/upsert`, { records });
  await ok(server, 'PUT', `${prefix}/collections/c/meta`, { owner: 'ops' });
  await ok(server, 'POST', `${prefix}/flush`);
  await ok(server, 'POST', `${prefix}/collections/c/upsert`, { records: unitRecords(5, 4, prng(2), 'log') });
}

/** `tessera restore --from s3://...` with the gateway's credentials. */
async function restore(target: Target, from: string, data: string) {
  const r = await runCli(['restore', '--from', from, '--data', data, '--backup-endpoint', target.endpoint], target.env);
  return { ...r, json: r.code === 0 ? JSON.parse(r.stdout) : undefined };
}

const newDir = () => path.join(tempDir(), 'restored');

rgw.test('a server backs up to s3://BUCKET/PREFIX, lists, restores into a directory that serves the same answers, and deletes the objects', async (t) => {
  const target = await s3Target(t);
  const server = await backupServer(t, target);
  await fill(server);
  const expected = await answers(server);
  const one = await ok(server, 'POST', '/backups', { name: 'one' });
  t.is(one.new_bytes, one.bytes, 'the first backup copies every byte');
  const afterOne = await objectsUnder(target, 'files/');
  t.is(afterOne.size, one.files);
  t.is(sum(afterOne.values()), one.bytes);
  t.deepEqual([...(await objectsUnder(target, 'backups/')).keys()], ['backups/one.json'], 'the catalog is PREFIX/backups/<name>.json');

  await ok(server, 'POST', '/flush');
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(3, 4, prng(3), 'more') });
  await ok(server, 'POST', '/flush');
  const two = await ok(server, 'POST', '/backups', { name: 'two' });
  t.true(two.new_bytes < two.bytes, 'what the bucket holds already is not copied again');
  const list = await ok(server, 'GET', '/backups');
  t.deepEqual(
    list.map((b: { name: string }) => b.name),
    ['one', 'two'],
  );
  t.like(list[0], { commit_version: one.commit_version, files: one.files, bytes: one.bytes });

  const data = newDir();
  const restored = await restore(target, `${target.location}/one`, data);
  t.is(restored.code, 0, restored.stderr);
  t.like(restored.json, { restored: 'one', commit_version: one.commit_version, files: one.files, bytes: one.bytes });
  const served = await startServer(['--data', data]);
  t.teardown(() => served.stop());
  t.deepEqual(await answers(served), expected);
  t.is((await ok(served, 'GET', '/versions')).commit_version, one.commit_version);

  const before = await objectsUnder(target, 'files/');
  const deleted = await ok(server, 'DELETE', '/backups/one');
  const after = await objectsUnder(target, 'files/');
  const removed = [...before.keys()].filter((key) => !after.has(key));
  t.true(removed.length > 0);
  t.deepEqual(deleted, { deleted: 'one', files: removed.length, bytes: sum(removed.map((key) => before.get(key)!)) });
  t.is(after.size, two.files, 'the files of two stay, and only they');
  t.is(sum(after.values()), two.bytes);
  t.deepEqual([...(await objectsUnder(target, 'backups/')).keys()], ['backups/two.json']);

  t.like(await ok(server, 'DELETE', '/backups/two'), { deleted: 'two', files: two.files, bytes: two.bytes });
  t.deepEqual([...(await objectsUnder(target, '')).keys()], [], 'no object is left under the prefix');
  t.deepEqual(await ok(server, 'GET', '/backups'), []);
});

rgw.test('restore from s3:// refuses a damaged, a truncated and a missing object: exit 2 naming its key, nothing written', async (t) => {
  const target = await s3Target(t);
  const server = await backupServer(t, target);
  await fill(server);
  const expected = await answers(server);
  await ok(server, 'POST', '/backups', { name: 'b' });
  const key = [...(await objectsUnder(target, 'files/')).keys()].filter((k) => /^files\/seg-.*\.vec\./.test(k)).sort()[0];
  t.truthy(key, 'the backup holds a segment file');
  const objectKey = `${target.prefix}/${key}`;
  const original = (await target.objects.get(objectKey)).body;

  for (const [what, damage] of [
    [
      'damaged',
      async () => {
        const bytes = Buffer.from(original);
        bytes[bytes.length >> 1] ^= 0xff;
        await target.objects.put(objectKey, bytes);
      },
    ],
    ['truncated', () => target.objects.put(objectKey, original.subarray(0, original.length >> 1))],
    ['missing', () => target.objects.delete(objectKey)],
  ] as [string, () => Promise<unknown>][]) {
    await damage();
    const data = newDir();
    const r = await restore(target, `${target.location}/b`, data);
    t.is(r.code, 2, `${what}: ${r.stderr}`);
    t.true(r.stderr.includes(key), `${what}: the message names ${key}: ${r.stderr}`);
    t.deepEqual(fs.readdirSync(path.dirname(data)), [], `${what}: neither NEWDIR nor a NEWDIR.restoring-* beside it`);
    await target.objects.put(objectKey, original);
  }

  const data = newDir();
  t.is((await restore(target, `${target.location}/b`, data)).code, 0, 'put back, the backup restores');
  const served = await startServer(['--data', data]);
  t.teardown(() => served.stop());
  t.deepEqual(await answers(served), expected);
});

rgw.test('--namespaced with an s3:// target: each tenant backs up under PREFIX/<namespace>', async (t) => {
  const target = await s3Target(t);
  const server = await backupServer(t, target, ['--namespaced', '--data', tempDir()]);
  await fill(server, '/ns/acme');
  await ok(server, 'POST', '/ns/globex/collections/c/upsert', { records: unitRecords(4, 4, prng(7), 'g') });
  const acme = await ok(server, 'POST', '/ns/acme/backups', { name: 'same' });
  await ok(server, 'POST', '/ns/globex/backups', { name: 'same' });
  t.deepEqual([...(await objectsUnder(target, 'backups/', `${target.prefix}/acme`)).keys()], ['backups/same.json']);
  t.deepEqual([...(await objectsUnder(target, 'backups/', `${target.prefix}/globex`)).keys()], ['backups/same.json']);
  t.is(sum((await objectsUnder(target, 'files/', `${target.prefix}/acme`)).values()), acme.bytes);
  t.is((await ok(server, 'GET', '/ns/acme/backups')).length, 1);

  const data = newDir();
  const r = await restore(target, `${target.location}/acme/same`, data);
  t.is(r.code, 0, r.stderr);
  const served = await startServer(['--data', data]);
  t.teardown(() => served.stop());
  t.deepEqual(await answers(served), await answers(server, '/ns/acme'));
});

rgw.test('an object store that refuses (wrong credentials, no such bucket) answers 502 naming the target; the store goes on serving', async (t) => {
  const target = await s3Target(t);
  const wrongKey = await backupServer(t, { ...target, env: { ...target.env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' } });
  const noBucket = await backupServer(t, { ...target, location: `s3://no-such-bucket-${randomBytes(3).toString('hex')}/p` });
  for (const server of [wrongKey, noBucket]) {
    await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(5, 4) });
    const failed = await call(server, 'POST', '/backups', { name: 'b' });
    t.is(failed.status, 502, failed.text);
    t.regex(failed.json.error, /the backup target s3:\/\/\S+ failed: /);
    t.is((await call(server, 'GET', '/backups')).status, 502);
    t.is((await ok(server, 'POST', '/search', { query: QUERY, top_k: 3 })).length, 3, 'searches go on');
    t.deepEqual(await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(1, 4, prng(4), 'after') }), { upserted: 1 });
  }
  t.deepEqual([...(await objectsUnder(target, '')).keys()], [], 'nothing reached the bucket');
});
