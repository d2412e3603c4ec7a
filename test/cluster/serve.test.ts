// Cluster mode through `tessera serve` against a real radosgw (spec: Cluster status, States and
// transitions: standby, fenced; cross-cutting durability): acknowledged writes survive the
// writer's SIGKILL, a standby takes over, a paused writer resumes fenced, readers converge, and 16
// racing writers leave one.
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { call, type Server, startServer, tempDir, until } from '../http/helpers';
import { readCurrent } from '../../lib/features/cluster/current';
import { NotFound, ObjectStoreError } from '../../lib/features/cluster/errors';
import type { ObjectStore } from '../../lib/features/cluster/object_store';
import { objectStoreFailures } from '../../lib/features/cluster/serve';
import { HttpError } from '../../lib/http/errors';
import type { Request } from '../../lib/http/request';
import { type Route, route } from '../../lib/http/route';
import { faultProxy } from '../harness/fault_proxy';
import { radosgwForFile } from '../harness/radosgw';

const rgw = radosgwForFile();
// Long enough that a renewal slowed by a loaded machine (CI runs the fuzzers beside these) never lapses.
const TTL_MS = 4000;
const TTL = `${TTL_MS / 1000}s`;

interface Cluster {
  args: (...more: string[]) => string[];
  env: NodeJS.ProcessEnv;
  /** The bucket, for a test that looks at (or damages) what the members published. */
  objects: ObjectStore;
  prefix: string;
}

/** A fresh bucket and prefix; `args` are a member's flags over its own new --data. */
async function cluster(t: ExecutionContext): Promise<Cluster> {
  const objects = await rgw.bucket(t);
  const gateway = rgw.gateway();
  const env = gateway.env;
  const prefix = `store-${randomBytes(3).toString('hex')}`;
  return {
    env,
    objects,
    prefix,
    args: (...more) => [
      '--cluster',
      `s3://${objects.bucket}/${prefix}`,
      '--cluster-endpoint',
      gateway.endpoint,
      '--lease-ttl',
      TTL,
      '--data',
      tempDir(),
      ...more,
    ],
  };
}

async function member(t: ExecutionContext, c: Cluster, more: string[] = [], waitReady = true): Promise<Server> {
  const server = await startServer(c.args(...more), c.env, { waitReady });
  t.teardown(() => server.stop());
  return server;
}

const upsert = (server: Server, ids: string[]) =>
  call(server, 'POST', '/collections/c/upsert', { records: ids.map((id, i) => ({ id, vector: [1, i, 0, 0] })) });
const ids = async (server: Server) => ((await call(server, 'POST', '/list', { scope: ['c'], limit: 10_000 })).json as { id: string }[]).map((h) => h.id).sort();
const status = async (server: Server, path: string) => (await fetch(server.url + path)).status;

rgw.test('/cluster of a writer and a reader reports every field truthfully; /metrics counts the lease', async (t) => {
  const c = await cluster(t);
  const writer = await member(t, c);
  await upsert(writer, ['a']);
  const w = (await call(writer, 'GET', '/cluster')).json;
  t.like(w, { role: 'ClusterWriter', cluster: true, holds_writer_handle: true, fenced: false, staleness_secs: 0, max_staleness_secs: null });
  t.regex(w.lease_owner, /:1$/);
  const reader = await member(t, c, ['--cluster-reader']);
  t.like((await call(reader, 'GET', '/cluster')).json, {
    role: 'ClusterReader',
    cluster: true,
    holds_writer_handle: false,
    fenced: false,
    lease_owner: null,
    commit_version: w.commit_version,
  });
  t.regex(await (await fetch(`${writer.url}/metrics`)).text(), /svc_lease_acquired_total 1\n/);
});

rgw.test("the writer's acknowledged writes survive its SIGKILL: a new writer on another disk serves every one", async (t) => {
  const c = await cluster(t);
  const writer = await member(t, c);
  const acked: string[] = [];
  for (let batch = 0; batch < 20; batch++) {
    const batchIds = Array.from({ length: 50 }, (_, i) => `b${batch}-${i}`);
    t.is((await upsert(writer, batchIds)).status, 200);
    acked.push(...batchIds);
    if (batch === 10) t.is((await call(writer, 'POST', '/flush')).status, 200);
  }
  await writer.stop('SIGKILL');
  const successor = await member(t, c, ['--standby']);
  t.deepEqual(await ids(successor), acked.sort());
  const status = (await call(successor, 'GET', '/cluster')).json;
  t.is(status.role, 'ClusterWriter');
  t.regex(status.lease_owner, /:2$/, 'the next epoch');
});

rgw.test('a standby answers /health 200, /ready and data routes 503 until the writer is gone, then takes over within the lease TTL plus a bound', async (t) => {
  const c = await cluster(t);
  const writer = await member(t, c);
  await upsert(writer, ['x']);
  const standby = await member(t, c, ['--standby'], false);
  await until(async () => (await status(standby, '/health')) === 200, 'standby listening');
  await until(async () => /standby: waiting for the writer lease/.test((await call(standby, 'GET', '/collections')).json.error), 'standby waiting');
  t.is(await status(standby, '/ready'), 503);
  t.is((await call(standby, 'GET', '/collections')).status, 503);
  const killed = Date.now();
  await writer.stop('SIGKILL');
  await until(async () => (await status(standby, '/ready')) === 200, 'standby took over', 30_000);
  const failoverMs = Date.now() - killed;
  t.log(`failover ${failoverMs} ms (lease TTL ${TTL})`);
  t.true(failoverMs < TTL_MS + 10_000, `${failoverMs} ms`);
  t.deepEqual(await ids(standby), ['x']);
});

rgw.test("a writer paused past its lease resumes fenced: /ready 503, every write refused; the new writer's data is intact", async (t) => {
  const c = await cluster(t);
  const writer = await member(t, c);
  await upsert(writer, ['before']);
  const standby = await member(t, c, ['--standby'], false);
  writer.proc.kill('SIGSTOP');
  t.teardown(() => writer.proc.kill('SIGCONT'));
  await until(async () => (await status(standby, '/ready')) === 200, 'standby took over', 30_000);
  t.is((await upsert(standby, ['after'])).status, 200);
  writer.proc.kill('SIGCONT');
  await until(async () => (await call(writer, 'GET', '/cluster')).json.fenced === true, 'old writer fenced', 30_000);
  t.is(await status(writer, '/ready'), 503);
  const refused = await upsert(writer, ['late']);
  t.is(refused.status, 503);
  t.regex(refused.json.error, /superseded \(fenced\)/);
  t.deepEqual(await ids(standby), ['after', 'before']);
  t.regex(await (await fetch(`${writer.url}/metrics`)).text(), /svc_lease_fenced_total 1\n/);
});

rgw.test('a writer paused past its lease that nobody took over acknowledges its next write: the write renews the lease first', async (t) => {
  const c = await cluster(t);
  const writer = await member(t, c);
  await upsert(writer, ['before']);
  writer.proc.kill('SIGSTOP');
  t.teardown(() => writer.proc.kill('SIGCONT'));
  // Time must pass while it is stopped; how long past the TTL does not change what it must answer.
  const stopped = Date.now();
  await until(async () => Date.now() - stopped > 2 * TTL_MS, 'paused past the lease TTL', 30_000);
  writer.proc.kill('SIGCONT');
  t.is((await upsert(writer, ['after'])).status, 200);
  t.like((await call(writer, 'GET', '/cluster')).json, { role: 'ClusterWriter', fenced: false });
  t.is(await status(writer, '/ready'), 200);
  t.deepEqual(await ids(writer), ['after', 'before']);
});

rgw.test('a reader serves the published state and converges on POST /refresh', async (t) => {
  const c = await cluster(t);
  const writer = await member(t, c);
  await upsert(writer, ['one']);
  const reader = await member(t, c, ['--cluster-reader']);
  t.deepEqual(await ids(reader), ['one']);
  await upsert(writer, ['two']);
  await call(writer, 'POST', '/flush');
  await upsert(writer, ['three']);
  t.true((await call(reader, 'GET', '/cluster')).json.commit_version < (await call(writer, 'GET', '/cluster')).json.commit_version, 'lag shows');
  t.deepEqual((await call(reader, 'POST', '/refresh')).json, { adopted: true });
  t.deepEqual(await ids(reader), ['one', 'three', 'two']);
  t.is((await call(reader, 'GET', '/cluster')).json.commit_version, (await call(writer, 'GET', '/cluster')).json.commit_version);
  t.deepEqual((await call(reader, 'POST', '/refresh')).json, { adopted: false });
  t.is((await upsert(reader, ['nope'])).status, 403);
});

rgw.test('16 writers racing for one store: exactly one serves, the others exit naming the lease', async (t) => {
  const c = await cluster(t);
  const racers = await Promise.all(Array.from({ length: 16 }, () => member(t, c, [], false)));
  const exited = (s: Server) => s.proc.exitCode !== null;
  await until(
    async () => (await Promise.all(racers.map(async (s) => exited(s) || (await status(s, '/ready').catch(() => 0)) === 200))).every(Boolean),
    'each racer serves or exits',
    60_000,
  );
  const serving = racers.filter((s) => !exited(s));
  t.is(serving.length, 1);
  for (const s of racers.filter(exited)) {
    t.is(s.proc.exitCode, 1);
    t.regex(
      s.stderr(),
      /cannot join the cluster store at s3:\/\/\S+: the writer lease of s3:\/\/.* is held by another writer; start with --standby to wait for it/,
    );
  }
  t.is((await upsert(serving[0], ['won'])).status, 200);
});

rgw.test('an object store that refuses or stalls gives clear 503s and 504s, never a lost acknowledged write', async (t) => {
  const c = await cluster(t);
  const proxy = await faultProxy(Number(new URL(rgw.gateway().endpoint).port));
  t.teardown(() => proxy.close());
  // A refused upload is tried 3 more times with random backoff (up to 0.7 s in all) before the 503:
  // the write timeout leaves room for that on a loaded machine; the stall waits it out for the 504.
  const via = c.args('--write-timeout', '3s').map((a) => (a === rgw.gateway().endpoint ? `http://127.0.0.1:${proxy.port}` : a));
  const writer = await startServer(via, c.env);
  t.teardown(() => writer.stop());
  t.is((await upsert(writer, ['acked-1'])).status, 200);

  proxy.mode = 'refuse';
  const refused = await upsert(writer, ['unacked-1']);
  t.is(refused.status, 503);
  t.regex(refused.json.error, /not acknowledged/);
  t.is(await status(writer, '/health'), 200);

  proxy.mode = 'stall';
  const stalled = await upsert(writer, ['unacked-2']);
  t.is(stalled.status, 504);
  t.false(stalled.json.retryable);

  proxy.mode = 'pass';
  await until(async () => (await upsert(writer, ['acked-2'])).status === 200, 'writes acknowledged again', 30_000);
  await writer.stop('SIGKILL');
  const successor = await member(t, c, ['--standby']);
  const survived = await ids(successor);
  for (const id of ['acked-1', 'acked-2']) t.true(survived.includes(id), id);
  t.true(survived.every((id) => /^(un)?acked-\d$/.test(id)));
});

rgw.test('a poisoned writer answers /health 503, and its restart releases the lease: a standby takes over at once, long before the TTL', async (t) => {
  const c = await cluster(t);
  const writer = await startServer(c.args('--lease-ttl', '60s'), { ...c.env, TESSERA_TEST_FAULTS: '1' });
  t.teardown(() => writer.stop());
  t.is((await upsert(writer, ['kept'])).status, 200);
  const standby = await member(t, c, ['--lease-ttl', '60s', '--standby'], false);
  t.is((await call(writer, 'POST', '/_test/poison-next-write')).status, 200);
  t.true((await upsert(writer, ['lost'])).status >= 500);
  t.is((await call(writer, 'GET', '/health')).status, 503);
  const restarted = Date.now();
  await writer.stop('SIGTERM');
  await until(async () => (await status(standby, '/ready')) === 200, 'standby took over', 30_000);
  t.true(Date.now() - restarted < 60_000 / 2, 'released, not lapsed');
  t.deepEqual(await ids(standby), ['kept']);
});

rgw.test('with --history-versions a reader lists the past versions the writer kept (GET /versions)', async (t) => {
  const c = await cluster(t);
  const writer = await member(t, c, ['--history-versions', '5']);
  await upsert(writer, ['a']);
  await call(writer, 'POST', '/flush');
  await upsert(writer, ['b']);
  await call(writer, 'POST', '/flush');
  const reader = await member(t, c, ['--cluster-reader']);
  const versions = (await call(reader, 'GET', '/versions')).json;
  t.true(versions.readable.length >= 2, JSON.stringify(versions));
  t.deepEqual(versions.readable, (await call(writer, 'GET', '/versions')).json.readable);
});

rgw.test('a reader started before anything was published answers /ready and data routes 503 until a writer publishes', async (t) => {
  const c = await cluster(t);
  const reader = await member(t, c, ['--cluster-reader'], false);
  await until(async () => (await status(reader, '/health')) === 200, 'reader listening');
  const early = await call(reader, 'GET', '/collections');
  t.is(early.status, 503);
  t.regex(early.json.error, /waiting for a writer to publish s3:\/\//);
  t.is(await status(reader, '/ready'), 503);
  const writer = await member(t, c);
  await upsert(writer, ['first']);
  await until(async () => (await status(reader, '/ready')) === 200, 'reader serving', 30_000);
  // The writer publishes its empty store as it starts: a reader that looked then serves that until
  // it refreshes. The acknowledged write is published, so a refresh brings it.
  t.is((await call(reader, 'POST', '/refresh')).status, 200);
  t.deepEqual(await ids(reader), ['first']);
});

rgw.test(
  'an object missing from the published state: a refresh answers 503 retryable and keeps serving, a starting reader waits with 503; both serve once a newer state no longer names it',
  async (t) => {
    const c = await cluster(t);
    const writer = await member(t, c);
    await upsert(writer, ['a']);
    await call(writer, 'POST', '/flush');
    const reader = await member(t, c, ['--cluster-reader']);
    await call(writer, 'POST', '/collections/c/upsert', { records: [{ id: 'b', vector: [0, 0, 1, 0] }] });
    await call(writer, 'POST', '/flush');
    // The damage a superseded writer's sweep once did: a segment file the newest CURRENT names, deleted.
    const published = await readCurrent(c.objects, c.prefix);
    const named = Object.entries(published?.record.files ?? {}).filter(([name]) => name.endsWith('.rows'));
    const [, lost] = named[named.length - 1];
    await c.objects.delete(lost);

    const refresh = await call(reader, 'POST', '/refresh');
    t.is(refresh.status, 503);
    t.true(refresh.json.retryable);
    t.regex(refresh.json.error, /NoSuchKey/);
    t.deepEqual(await ids(reader), ['a'], 'the state it had still serves');
    const starting = await member(t, c, ['--cluster-reader'], false);
    await until(
      async () =>
        /restoring the published state of s3:\/\/\S+ failed .*NoSuchKey.*; retrying/.test((await call(starting, 'GET', '/collections')).json.error ?? ''),
      'the starting reader says why it waits',
    );
    const waiting = await call(starting, 'GET', '/collections');
    t.is(waiting.status, 503);
    t.true(waiting.json.retryable);
    t.is(await status(starting, '/ready'), 503);

    // A newer state without that segment: its only record deleted, then compacted away.
    t.is((await call(writer, 'POST', '/collections/c/delete', { ids: ['b'] })).status, 200);
    t.is((await call(writer, 'POST', '/compact')).status, 200);
    t.false(Object.values((await readCurrent(c.objects, c.prefix))?.record.files ?? {}).includes(lost));
    t.deepEqual((await call(reader, 'POST', '/refresh')).json, { adopted: true });
    t.deepEqual(await ids(reader), ['a']);
    await until(async () => (await status(starting, '/ready')) === 200, 'the starting reader serves', 30_000);
    t.deepEqual(await ids(starting), ['a']);
  },
);

rgw.test("SIGTERM ends a standby's wait: it exits 0 and never takes the lease", async (t) => {
  const c = await cluster(t);
  const writer = await member(t, c);
  await upsert(writer, ['kept']);
  const owner = (await call(writer, 'GET', '/cluster')).json.lease_owner;
  const standby = await member(t, c, ['--standby'], false);
  await until(async () => /standby: waiting for the writer lease/.test((await call(standby, 'GET', '/collections')).json.error ?? ''), 'standby waiting');
  t.is(await standby.stop('SIGTERM'), 0);
  const lease = JSON.parse((await c.objects.get(`${c.prefix}/lease.json`)).body.toString('utf8'));
  t.is(`${lease.owner}:${lease.epoch}`, owner, 'the writer holds the lease it held');
  t.like((await call(writer, 'GET', '/cluster')).json, { lease_owner: owner, fenced: false });
  t.is((await upsert(writer, ['after'])).status, 200);
});

rgw.test('a writer deletes what no published state names only past --gc-grace (default 5m), counted in svc_gc_deleted_total', async (t) => {
  const deletedAfterPublishes = async (more: string[]) => {
    const c = await cluster(t);
    const writer = await member(t, c, more);
    for (const id of ['a', 'b', 'c']) {
      await upsert(writer, [id]);
      await call(writer, 'POST', '/flush');
    }
    const deleted = async () => Number(/svc_gc_deleted_total (\d+)/.exec(await (await fetch(`${writer.url}/metrics`)).text())?.[1]);
    return { deleted, writer };
  };
  const kept = await deletedAfterPublishes([]);
  t.is(await kept.deleted(), 0, 'superseded log chunks are kept within the grace period');
  const prompt = await deletedAfterPublishes(['--gc-grace', '0s']);
  await until(async () => (await prompt.deleted()) > 0, 'superseded log chunks deleted at once');
  t.deepEqual(await ids(prompt.writer), ['a', 'b', 'c']);
});

test('an object-store failure a retry can cure answers 503 retryable on any route; a refusal such as 403 stays a fault of ours', async (t) => {
  const failing = (err: Error): Route =>
    route({
      method: 'POST',
      path: '/refresh',
      access: 'read',
      doc: { operationId: 'refresh', summary: 'a refresh', responses: {} },
      handle: async () => Promise.reject(err),
    });
  const [missing] = objectStoreFailures([failing(new NotFound('GET b/k: 404 NoSuchKey', 404, 'NoSuchKey'))]);
  const answer = await t.throwsAsync(
    Promise.resolve().then(() => missing.handle({} as Request)),
    { instanceOf: HttpError },
  );
  t.like(answer, { status: 503, fields: { retryable: true }, headers: { 'Retry-After': '1' } });
  t.regex(answer?.message ?? '', /NoSuchKey.*retry/);
  const denied = new ObjectStoreError('GET b/k: 403 AccessDenied', 403, 'AccessDenied');
  const [refused] = objectStoreFailures([failing(denied)]);
  await t.throwsAsync(
    Promise.resolve().then(() => refused.handle({} as Request)),
    { is: denied },
  );
});
