import test from 'ava';
import { call, runCli, startServer, tempDir, unitRecords, until, uploadHoldingTheSlot } from './helpers';

test('an acknowledged upsert survives SIGKILL', async (t) => {
  const data = tempDir();
  const first = await startServer(['--data', data]);
  const records = unitRecords(50, 4);
  t.deepEqual((await call(first, 'POST', '/collections/durable/upsert', { records })).json, { upserted: 50 });
  await first.stop('SIGKILL');

  const second = await startServer(['--data', data]);
  t.teardown(() => second.stop());
  const stored = (await call(second, 'GET', '/collections/durable/records')).json as { id: string }[];
  t.deepEqual(stored.map((r) => r.id).sort(), records.map((r) => r.id).sort());
});

test('a second process on the same --data is a Reader whose writes, /flush included, answer 409 naming the holder', async (t) => {
  const data = tempDir();
  const writer = await startServer(['--data', data]);
  t.teardown(() => writer.stop());
  await call(writer, 'POST', '/collections/shared/upsert', { records: unitRecords(3, 4) });
  const reader = await startServer(['--data', data]);
  t.teardown(() => reader.stop());

  const cluster = (await call(reader, 'GET', '/cluster')).json;
  t.like(cluster, { role: 'Reader', holds_writer_handle: false, cluster: false });
  t.true(Number.isInteger(cluster.staleness_secs));
  for (const [path, body] of [
    ['/collections/shared/upsert', { records: unitRecords(1, 4) }],
    ['/flush', undefined],
  ] as const) {
    const refused = await call(reader, 'POST', path, body);
    t.is(refused.status, 409, path);
    t.true(refused.json.error.includes(String(writer.proc.pid)), `${path}: ${refused.json.error}`);
  }
  t.is((await call(reader, 'GET', '/collections')).status, 200);
  t.is((await call(writer, 'GET', '/cluster')).json.role, 'Writer');
});

test('SIGTERM lets an in-flight request finish, then flushes, closes and exits 0', async (t) => {
  const data = tempDir();
  // One slot, so a second request is shed exactly while the upload is in flight; info logs, so
  // the shutdown's first line says when SIGTERM has been taken.
  const server = await startServer(['--data', data, '--max-concurrent-requests', '1', '--log-level', 'info']);
  const body = JSON.stringify({ records: unitRecords(10, 4) });
  const inFlight = await uploadHoldingTheSlot(server, '/collections/graceful/upsert', body.slice(0, 10));
  server.proc.kill('SIGTERM');
  await until(() => server.stderr().includes('shutting down'), 'the server took SIGTERM');
  inFlight.req.end(body.slice(10));
  t.is((await inFlight.response).status, 200);
  t.is(await server.stop('SIGTERM'), 0);

  const again = await startServer(['--data', data]);
  t.teardown(() => again.stop());
  t.is((await call(again, 'GET', '/collections/graceful/records')).json.length, 10);
});

test('reopening a store with another dimension is a startup error naming both values', async (t) => {
  const data = tempDir();
  const first = await startServer(['--data', data, '--dimension', '4']);
  await call(first, 'POST', '/collections/c/upsert', { records: unitRecords(1, 4) });
  t.is(await first.stop('SIGTERM'), 0);
  const r = await runCli(['serve', '--port', '0', '--data', data, '--dimension', '8']);
  t.is(r.code, 2);
  t.regex(r.stderr, /4/);
  t.regex(r.stderr, /8/);
});

test('--in-memory serves a store with role InMemory', async (t) => {
  const server = await startServer(['--in-memory']);
  t.teardown(() => server.stop());
  t.is((await call(server, 'GET', '/cluster')).json.role, 'InMemory');
  t.is((await call(server, 'POST', '/collections/m/upsert', { records: unitRecords(2, 4) })).status, 200);
  t.is((await call(server, 'GET', '/collections/m/records')).json.length, 2);
});
