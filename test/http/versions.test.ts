// GET /versions, --history-versions and --at-version over HTTP (spec "Versioning", "Pinned
// instance", Errors 403 on pinned).
import test from 'ava';
import { call, runCli, startServer, tempDir, unitRecords, until } from './helpers';

test('--history-versions: /versions lists the readable window; --at-version serves one of them read-only beside the writer', async (t) => {
  const data = tempDir();
  const writer = await startServer(['--data', data, '--history-versions', '4']);
  t.teardown(() => writer.stop());
  for (let i = 1; i <= 6; i++) {
    await call(writer, 'POST', '/collections/c/upsert', { records: unitRecords(i, 4) });
    await call(writer, 'POST', '/flush');
  }
  const versions = (await call(writer, 'GET', '/versions')).json;
  t.is(versions.commit_version, 6);
  t.is(versions.pinned, null);
  t.true(versions.oldest_readable <= 3, JSON.stringify(versions));
  t.deepEqual(versions.readable.at(-1), 6);

  const pinned = await startServer(['--data', data, '--at-version', '4']);
  t.teardown(() => pinned.stop());
  t.is((await call(pinned, 'GET', '/versions')).json.pinned, 4);
  t.is((await call(pinned, 'GET', '/cluster')).json.commit_version, 4);
  t.is((await call(pinned, 'GET', '/stats')).json.footprint.doc_count, 4);
  const write = await call(pinned, 'POST', '/collections/c/upsert', { records: unitRecords(1, 4, undefined, 'z') });
  t.is(write.status, 403);
  t.regex(write.json.error, /pinned at version 4/);
  t.is((await call(pinned, 'POST', '/compact')).status, 403);
  t.deepEqual((await call(pinned, 'POST', '/refresh')).json, { adopted: false });
  t.is((await call(writer, 'POST', '/collections/c/upsert', { records: unitRecords(8, 4) })).status, 200, 'the writer writes beside it');
  t.is((await call(pinned, 'GET', '/stats')).json.footprint.doc_count, 4);
  // A reader's staleness is the age of its open when it never refreshed; pinned, it stays ready.
  await until(async () => (await call(pinned, 'GET', '/cluster')).json.staleness_secs >= 1, 'the pinned instance ages');
  t.is((await call(pinned, 'GET', '/ready')).status, 200);
  const bounded = await runCli(['serve', '--port', '0', '--data', data, '--at-version', '4', '--max-staleness', '5s']);
  t.is(bounded.code, 2);
  t.regex(bounded.stderr, /--max-staleness bounds how far a reader falls behind; an --at-version instance never refreshes/);
});

test('--at-version of a version whose files are gone exits 2 before listening, naming the oldest readable version', async (t) => {
  const data = tempDir();
  const writer = await startServer(['--data', data, '--history-versions', '2']);
  for (let i = 1; i <= 5; i++) {
    await call(writer, 'POST', '/collections/c/upsert', { records: unitRecords(i, 4) });
    await call(writer, 'POST', '/flush');
  }
  const { oldest_readable: oldest } = (await call(writer, 'GET', '/versions')).json;
  await writer.stop();
  const r = await runCli(['serve', '--port', '0', '--data', data, '--at-version', '1']);
  t.is(r.code, 2);
  t.false(r.stdout.includes('listening'));
  t.regex(r.stderr, new RegExp(`version 1 is not readable.*oldest readable version is ${oldest}`));
  t.is(r.stderr.trimEnd().split('\n').length, 1);
});

test('history off: /versions has an empty readable list and null oldest_readable', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  await call(server, 'POST', '/collections/c/upsert', { records: unitRecords(2, 4) });
  t.deepEqual((await call(server, 'GET', '/versions')).json, { commit_version: 1, oldest_readable: null, pinned: null, readable: [] });
});
