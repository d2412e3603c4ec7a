// `tessera stats` and `tessera export` beside a running server: they open the store read-only,
// take no lock, and see what the server made durable.
import test from 'ava';
import * as path from 'node:path';
import { call, runCli, startServer, tempDir } from '../http/helpers';

test('tessera stats prints what GET /stats answers, while a server serves the store', async (t) => {
  const data = path.join(tempDir(), 'store');
  const server = await startServer(['--data', data, '--dimension', '3']);
  t.teardown(() => server.stop());
  t.is((await call(server, 'POST', '/collections/c/upsert', { records: [{ id: 'a', vector: [1, 0, 0] }, { id: 'b' }] })).status, 200);
  const r = await runCli(['stats', '--data', data]);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(JSON.parse(r.stdout), (await call(server, 'GET', '/stats')).json);
});

test('tessera export reads a collection while a server serves the store', async (t) => {
  const data = path.join(tempDir(), 'store');
  const server = await startServer(['--data', data, '--dimension', '3', '--distance', 'Euclidean']);
  t.teardown(() => server.stop());
  t.is((await call(server, 'POST', '/collections/c/upsert', { records: [{ id: 'a', vector: [1, 2, 3] }] })).status, 200);
  const r = await runCli(['export', '--collection', 'c', '--data', data]);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, '{"id":"a","vector":[1,2,3],"attrs":{}}\n');
  t.is((await call(server, 'GET', '/health')).status, 200);
});

test('tessera export of a collection the store lacks exits 2 naming it', async (t) => {
  const data = path.join(tempDir(), 'store');
  const server = await startServer(['--data', data, '--dimension', '3']);
  t.teardown(() => server.stop());
  const r = await runCli(['export', '--collection', 'nope', '--data', data]);
  t.is(r.code, 2);
  t.is(r.stderr, "tessera: collection 'nope' does not exist\n");
});
