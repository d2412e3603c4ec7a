// POST /refresh, /cluster currency and --max-staleness over HTTP: a reader server on the writer's
// directory adopts committed state when asked, shows its lag, and is unready while stale.
import test from 'ava';
import { call, startServer, tempDir, unitRecords, until } from './helpers';

test("a reader server adopts the writer's commits on POST /refresh and shows its lag in /cluster", async (t) => {
  const data = tempDir();
  const writer = await startServer(['--data', data]);
  t.teardown(() => writer.stop());
  await call(writer, 'POST', '/collections/c/upsert', { records: unitRecords(5, 4) });
  const reader = await startServer(['--data', data]);
  t.teardown(() => reader.stop());
  t.is((await call(reader, 'GET', '/cluster')).json.role, 'Reader');
  await call(writer, 'POST', '/collections/c/upsert', { records: unitRecords(5, 4, undefined, 'more') });
  const behind = (await call(reader, 'GET', '/cluster')).json;
  const ahead = (await call(writer, 'GET', '/cluster')).json;
  t.true(behind.commit_version < ahead.commit_version);
  t.is(ahead.staleness_secs, 0);
  t.is((await call(reader, 'GET', '/stats')).json.footprint.doc_count, 5);
  t.deepEqual((await call(reader, 'POST', '/refresh')).json, { adopted: true });
  t.is((await call(reader, 'GET', '/stats')).json.footprint.doc_count, 10);
  t.is((await call(reader, 'GET', '/cluster')).json.commit_version, ahead.commit_version);
  t.deepEqual((await call(reader, 'POST', '/refresh')).json, { adopted: false });
  t.deepEqual((await call(writer, 'POST', '/refresh')).json, { adopted: false }, 'the writer writes itself');
  t.is((await call(reader, 'POST', '/compact')).status, 409, 'compact is a write: the reader refuses it naming the holder');
});

test('a --read-only server refreshes (POST /refresh is not a write)', async (t) => {
  const data = tempDir();
  const writer = await startServer(['--data', data]);
  t.teardown(() => writer.stop());
  const readOnly = await startServer(['--data', data, '--read-only']);
  t.teardown(() => readOnly.stop());
  await call(writer, 'POST', '/collections/c/upsert', { records: unitRecords(3, 4) });
  t.deepEqual((await call(readOnly, 'POST', '/refresh')).json, { adopted: true });
  t.is((await call(readOnly, 'GET', '/stats')).json.footprint.doc_count, 3);
});

test('--max-staleness: a reader not refreshed within it answers /ready 503 until POST /refresh succeeds', async (t) => {
  const data = tempDir();
  const writer = await startServer(['--data', data]);
  t.teardown(() => writer.stop());
  await call(writer, 'POST', '/collections/c/upsert', { records: unitRecords(1, 4) });
  const reader = await startServer(['--data', data, '--max-staleness', '3s']);
  t.teardown(() => reader.stop());
  t.is((await call(reader, 'GET', '/cluster')).json.max_staleness_secs, 3);
  await until(async () => (await call(reader, 'GET', '/ready')).status !== 200, 'the reader goes stale past --max-staleness');
  const ready = await call(reader, 'GET', '/ready');
  t.is(ready.status, 503);
  t.regex(ready.json.error, /stale.*refresh/);
  t.true((await call(reader, 'GET', '/cluster')).json.staleness_secs >= 3);
  t.is((await call(reader, 'GET', '/health')).status, 200, 'stale is not unhealthy');
  t.deepEqual((await call(reader, 'POST', '/refresh')).json, { adopted: false });
  t.is((await call(reader, 'GET', '/ready')).status, 200, 'a successful refresh ends it, adopted or not');
  t.is((await call(reader, 'GET', '/cluster')).json.staleness_secs, 0);
});

test('--max-staleness takes a duration', async (t) => {
  const server = await startServer(['--max-staleness', 'soon'], {}, { waitReady: false }).catch((e: Error) => e);
  t.true(server instanceof Error);
  t.regex(String(server), /--max-staleness must be a positive duration/);
});
