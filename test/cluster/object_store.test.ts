import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { NotFound, ObjectStoreError, PreconditionFailed, Unreachable } from '../../lib/features/cluster/errors';
import { ObjectStore } from '../../lib/features/cluster/object_store';
import { faultProxy } from '../harness/fault_proxy';
import { radosgwForFile } from '../harness/radosgw';

// The S3 client against a real radosgw: conditional writes, ranges, listing, and the errors a
// misconfigured or absent object store gives.

const rgw = radosgwForFile();

rgw.test('radosgw boots and answers', (t) => {
  t.log(`radosgw booted in ${rgw.gateway().bootMs} ms`);
  t.regex(rgw.gateway().endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
});

rgw.test('put, get, head, delete round-trip bytes and ETags; a missing key is NotFound', async (t) => {
  const store = await rgw.bucket(t);
  const bytes = Buffer.from([0, 1, 2, 255, 254]);
  const { etag } = await store.put('dir/a b+c%.bin', bytes);
  t.regex(etag, /^[0-9a-f]{32}$/);
  t.deepEqual(await store.get('dir/a b+c%.bin'), { body: bytes, etag, size: bytes.length });
  t.deepEqual(await store.head('dir/a b+c%.bin'), { key: 'dir/a b+c%.bin', etag, size: 5 });
  await store.delete('dir/a b+c%.bin');
  await store.delete('dir/a b+c%.bin');
  await t.throwsAsync(store.get('dir/a b+c%.bin'), { instanceOf: NotFound, message: /GET .*404 NoSuchKey/ });
  await t.throwsAsync(store.head('dir/a b+c%.bin'), { instanceOf: NotFound });
});

rgw.test('If-None-Match: * creates once; the second create is PreconditionFailed and changes nothing', async (t) => {
  const store = await rgw.bucket(t);
  const { etag } = await store.put('lease', 'first', { ifNoneMatch: '*' });
  const error = await t.throwsAsync(store.put('lease', 'second', { ifNoneMatch: '*' }), { instanceOf: PreconditionFailed });
  t.is(error?.status, 412);
  t.deepEqual(await store.get('lease'), { body: Buffer.from('first'), etag, size: 5 });
});

rgw.test('If-Match replaces only the object with that ETag; a stale or missing one is PreconditionFailed', async (t) => {
  const store = await rgw.bucket(t);
  const first = await store.put('lease', 'first');
  const second = await store.put('lease', 'second', { ifMatch: first.etag });
  await t.throwsAsync(store.put('lease', 'third', { ifMatch: first.etag }), { instanceOf: PreconditionFailed });
  await t.throwsAsync(store.put('absent', 'x', { ifMatch: first.etag }), { instanceOf: PreconditionFailed });
  t.deepEqual(await store.get('lease'), { body: Buffer.from('second'), etag: second.etag, size: 6 });
});

rgw.test('16 racing creates of one key: exactly one wins', async (t) => {
  const store = await rgw.bucket(t);
  const outcomes = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => store.put('lease', `racer ${i}`, { ifNoneMatch: '*' })));
  const winners = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
  t.is(winners.length, 1);
  for (const o of outcomes) if (o.status === 'rejected') t.true(o.reason instanceof PreconditionFailed, String(o.reason));
  t.is((await store.get('lease')).body.toString(), `racer ${winners[0]}`);
});

rgw.test('a byte range reads just those bytes', async (t) => {
  const store = await rgw.bucket(t);
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  await store.put('blob', bytes);
  t.deepEqual((await store.get('blob', { start: 10, end: 19 })).body, bytes.subarray(10, 20));
  t.deepEqual((await store.get('blob', { start: 990 })).body, bytes.subarray(990));
});

rgw.test("a read tells the whole object's size: from Content-Range for a range, and a range of an empty object is 416", async (t) => {
  const store = await rgw.bucket(t);
  await store.put('blob', Buffer.alloc(1000, 7));
  t.is((await store.get('blob', { start: 0, end: 99 })).size, 1000);
  t.is((await store.get('blob', { start: 0, end: 4999 })).size, 1000);
  t.is((await store.get('blob')).size, 1000);
  await store.put('empty', Buffer.alloc(0));
  t.is((await store.get('empty')).size, 0);
  await t.throwsAsync(store.get('empty', { start: 0, end: 99 }), { instanceOf: ObjectStoreError, message: /416/ });
});

rgw.test('listing follows continuation tokens over keys needing XML and URI escapes, and stays under its prefix', async (t) => {
  const store = await rgw.bucket(t);
  const keys = Array.from({ length: 7 }, (_, i) => `wal/${String(i).padStart(3, '0')} & <x>+é`);
  await Promise.all([...keys.map((k) => store.put(k, k)), store.put('walrus', 'outside the prefix')]);
  const first = await store.list('wal/', { maxKeys: 3 });
  t.is(first.objects.length, 3);
  t.truthy(first.nextContinuationToken);
  const listed: string[] = [];
  for await (const o of store.listAll('wal/', { maxKeys: 3 })) listed.push(o.key);
  t.deepEqual(listed, keys);
  t.deepEqual((await store.list('nothing/')).objects, []);
});

rgw.test('wrong credentials are a clear 403 naming the variables to check', async (t) => {
  const good = await rgw.bucket(t);
  const wrong = rgw.gateway().store(good.bucket, { credentials: { accessKeyId: rgw.gateway().credentials.accessKeyId, secretAccessKey: 'not the secret' } });
  t.teardown(() => wrong.close());
  const error = await t.throwsAsync(wrong.get('anything'), { instanceOf: ObjectStoreError });
  t.is(error?.status, 403);
  t.is(error?.code, 'SignatureDoesNotMatch');
  t.regex(error!.message, /403 SignatureDoesNotMatch.*AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY/);
  const unknown = rgw.gateway().store(good.bucket, { credentials: { accessKeyId: 'NOSUCHKEY', secretAccessKey: 'x' } });
  t.teardown(() => unknown.close());
  await t.throwsAsync(unknown.head('anything'), { instanceOf: ObjectStoreError, message: /403 AccessDenied/ });
});

rgw.test('an endpoint with nothing listening is Unreachable, named, after the bounded retries', async (t) => {
  const store = new ObjectStore({ endpoint: 'http://127.0.0.1:1', bucket: 'b', region: 'us-east-1', credentials: rgw.gateway().credentials, retries: 1 });
  t.teardown(() => store.close());
  const error = await t.throwsAsync(store.get('k'), { instanceOf: Unreachable });
  t.is(error?.code, 'ECONNREFUSED');
  t.regex(error!.message, /object store at http:\/\/127\.0\.0\.1:1: GET b\/k: unreachable/);
});

test('a partial answer whose Content-Range names no total size is refused, not read as the whole object', async (t) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(206, { 'content-range': 'bytes 0-9/*', etag: '"e"' });
    res.end(Buffer.alloc(10));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;
  const store = new ObjectStore({
    endpoint: `http://127.0.0.1:${port}`,
    bucket: 'b',
    region: 'us-east-1',
    credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    retries: 0,
  });
  t.teardown(() => store.close());
  await t.throwsAsync(store.get('k', { start: 0, end: 99 }), {
    instanceOf: ObjectStoreError,
    message: /GET b\/k: 206 with no total size in Content-Range \(bytes 0-9\/\*\)/,
  });
});

rgw.test("a call abandoned while its request is in flight rejects with the signal's reason, not as a store failure, and is not retried", async (t) => {
  const store = await rgw.bucket(t);
  await store.put('k', 'v');
  const gateway = rgw.gateway();
  const proxy = await faultProxy(Number(new URL(gateway.endpoint).port));
  t.teardown(() => proxy.close());
  const via = new ObjectStore({ endpoint: `http://127.0.0.1:${proxy.port}`, bucket: store.bucket, credentials: gateway.credentials, region: gateway.region });
  t.teardown(() => via.close());
  proxy.mode = 'stall';
  const abandon = new AbortController();
  const reason = new Error('abandoned by its caller');
  // The request is sent before get() returns: the abort lands on it in flight.
  const getting = via.get('k', undefined, { signal: abandon.signal });
  abandon.abort(reason);
  await t.throwsAsync(getting, { is: reason });
  proxy.mode = 'pass';
  t.is((await via.get('k')).body.toString(), 'v');
});
