// Backups over HTTP and the CLI (issue 50; README "Backups"): POST/GET/DELETE /backups to a
// --backup-to directory, `tessera restore` back into a new directory, and what a restored store
// serves. The target's layout (files/<name>.<bytes>.<crc32c>, backups/<backup>.json written last)
// is looked at only to damage it, or to count what a backup or a delete left there.
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import type { BackupRestored } from '../../lib/features/backups/restore';
import { type Answer, call, prng, readOnlyServer, runCli, type Server, startServer, tempDir, unitRecords, until } from './helpers';

const WORDS = 'amber basalt cinder delta ember fjord granite harbor inlet jetty'.split(' ');
const QUERY = [0.5, 0.1, -0.3, 0.8];

/** A request that must succeed: its JSON answer. */
async function ok(server: Pick<Server, 'url'>, method: string, route: string, body?: unknown): Promise<Answer['json']> {
  const r = await call(server, method, route, body);
  if (r.status !== 200) throw new Error(`${method} ${route}: ${r.status} ${r.text}`);
  return r.json;
}

/** Records of collection docs: a default vector, a named one (title), a full-text body. */
function docs(n: number, seed: number, prefix = 'd'): object[] {
  const rand = prng(seed);
  return unitRecords(n, 4, rand, prefix).map((r) => ({
    ...r,
    vectors: { title: unitRecords(1, 4, rand)[0].vector },
    attrs: {
      body: { Str: Array.from({ length: 2 + Math.floor(rand() * 4) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ') },
      n: { Int: Math.floor(rand() * 100) },
    },
  }));
}

/**
 * A store worth comparing: two collections (one with a full-text field, named vectors and
 * metadata), an alias, records flushed into segments and some only in the log, a delete.
 */
async function seed(server: Pick<Server, 'url'>, prefix = ''): Promise<void> {
  await ok(server, 'POST', `${prefix}/collections/docs`);
  await ok(server, 'POST', `${prefix}/collections/docs/fts-schema`, { fields: ['body'] });
  await ok(server, 'POST', `${prefix}/collections/docs/vector-names`, { names: ['title'] });
  await ok(server, 'PUT', `${prefix}/collections/docs/meta`, { owner: 'ops', tier: '1' });
  await ok(server, 'POST', `${prefix}/collections/docs/upsert`, { records: docs(60, 1) });
  await ok(server, 'POST', `${prefix}/collections/other/upsert`, { records: unitRecords(30, 4, prng(2), 'o') });
  await ok(server, 'POST', `${prefix}/flush`);
  await ok(server, 'POST', `${prefix}/collections/docs/upsert`, { records: docs(20, 3, 'late') });
  await ok(server, 'POST', `${prefix}/collections/docs/delete`, { ids: ['d1', 'd2', 'late3'] });
  await ok(server, 'PUT', `${prefix}/aliases/current`, { target: 'docs' });
}

const byId = (records: { id: string }[]) => [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** Everything a client can read of the store: every collection's records and metadata, aliases, and searches of each kind. */
async function snapshot(server: Pick<Server, 'url'>, prefix = ''): Promise<Record<string, unknown>> {
  const collections: Record<string, unknown> = {};
  for (const name of ((await ok(server, 'GET', `${prefix}/collections`)) as string[]).sort())
    collections[name] = {
      records: byId(await ok(server, 'GET', `${prefix}/collections/${name}/records`)),
      meta: await ok(server, 'GET', `${prefix}/collections/${name}/meta`),
    };
  const has = (name: string) => name in collections;
  return {
    collections,
    aliases: await ok(server, 'GET', `${prefix}/aliases`),
    search: await ok(server, 'POST', `${prefix}/search`, { query: QUERY, top_k: 25 }),
    ...(has('docs')
      ? {
          alias: await ok(server, 'POST', `${prefix}/search`, { query: QUERY, scope: ['current'], top_k: 10, filter: [{ Gt: ['n', { Int: 20 }] }] }),
          named: await ok(server, 'POST', `${prefix}/search`, { query: QUERY, scope: ['docs'], names: ['title'], top_k: 10 }),
          text: await ok(server, 'POST', `${prefix}/text-search`, { field: 'body', query: 'harbor ember', top_k: 10 }),
        }
      : {}),
  };
}

/** The ids of every record of collection `name`, sorted. */
const ids = async (server: Pick<Server, 'url'>, name: string, prefix = ''): Promise<string[]> =>
  byId(await ok(server, 'GET', `${prefix}/collections/${name}/records`)).map((r) => r.id);

/** The files under TARGET/files (partial copies included), name -> bytes. */
function targetFiles(target: string): Map<string, number> {
  const dir = path.join(target, 'files');
  if (!fs.existsSync(dir)) return new Map();
  return new Map(fs.readdirSync(dir).map((name) => [name, fs.statSync(path.join(dir, name)).size]));
}

/** Until the server has no vector index build queued or running. */
const untilIndexed = (server: Server) =>
  until(async () => /^svc_index_builds_pending 0$/m.test((await call(server, 'GET', '/metrics')).text), 'the vector indexes are built');

const sum = (sizes: Iterable<number>) => [...sizes].reduce((a, b) => a + b, 0);

/** `tessera restore`; its JSON line parsed on success. */
async function restore(from: string, data: string, more: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const r = await runCli(['restore', '--from', from, '--data', data, ...more], env);
  return { ...r, json: r.code === 0 ? JSON.parse(r.stdout) : undefined };
}

/** A fresh, not yet existing directory to restore into (its parent is empty, to see that a refusal leaves nothing beside it). */
const newDir = () => path.join(tempDir(), 'restored');

/** Restores `from` into a new directory and serves it: the server, and what restore printed. */
async function restoredServer(t: { teardown(fn: () => unknown): void }, from: string): Promise<{ server: Server; restored: BackupRestored; data: string }> {
  const data = newDir();
  const r = await restore(from, data);
  if (r.code !== 0) throw new Error(`restore ${from}: exit ${r.code}: ${r.stderr}`);
  const server = await startServer(['--data', data]);
  t.teardown(() => server.stop());
  return { server, restored: r.json, data };
}

test('a backup taken under concurrent writes restores to exactly what the source served at its commit_version', async (t) => {
  const data = tempDir();
  const target = tempDir();
  const source = await startServer(['--data', data, '--backup-to', target, '--history-versions', '1000']);
  t.teardown(() => source.stop());
  await seed(source);

  // Writes go on, one after another, from before the backup is asked for until after it answered.
  let running = true;
  let written = 0;
  const acked: string[] = [];
  const writes = (async () => {
    for (let i = 0; running || written < 10; i++) {
      await ok(source, 'POST', '/collections/docs/upsert', { records: docs(1, 100 + i, `w${i}-`) });
      if (i % 4 === 0) await ok(source, 'POST', '/collections/other/upsert', { records: unitRecords(1, 4, prng(200 + i), `o${i % 7}`) });
      if (i % 6 === 0) await ok(source, 'PUT', '/collections/other/meta', { round: String(i) });
      if (i % 10 === 9) await ok(source, 'POST', '/flush');
      acked.push(`w${i}-0`);
      written++;
    }
  })();
  await until(() => written >= 5, 'some writes acknowledged before the backup');
  const ackedBefore = [...acked];
  const versionBefore = (await ok(source, 'GET', '/versions')).commit_version;
  const created = await ok(source, 'POST', '/backups', { name: 'under-writes' });
  running = false;
  await writes;
  t.log(`backup at version ${created.commit_version} (asked at ${versionBefore}) copied ${created.new_bytes} bytes for ${created.bytes}; ${written} writes`);

  t.is(created.name, 'under-writes');
  t.true(created.commit_version >= versionBefore, 'every write acknowledged before the call is in the backup');
  t.true(created.files > 0);
  // A flush under the copy makes it start over from the new state (what it copied stays): at least every byte.
  t.true(created.new_bytes >= created.bytes, 'the first backup into an empty target copies every byte');
  t.true(sum(targetFiles(target).values()) >= created.bytes, 'the target holds the files the backup names');
  t.true(created.seconds >= 0);

  const { server: restoredOne, restored } = await restoredServer(t, path.join(target, 'under-writes'));
  t.like(restored, { restored: 'under-writes', commit_version: created.commit_version, files: created.files, bytes: created.bytes });
  t.is(typeof restored.seconds, 'number');
  t.is((await ok(restoredOne, 'GET', '/versions')).commit_version, created.commit_version);

  // The source as it was at that version: a pinned instance on the same directory, beside the writer.
  const pinned = await startServer(['--data', data, '--at-version', String(created.commit_version)]);
  t.teardown(() => pinned.stop());
  const expected = await snapshot(pinned);
  t.deepEqual(await snapshot(restoredOne), expected);
  const restoredIds = await ids(restoredOne, 'docs');
  t.deepEqual(
    ackedBefore.filter((id) => !restoredIds.includes(id)),
    [],
    'the writes acknowledged before POST /backups are restored',
  );
  const docsExpected = (expected.collections as Record<string, { records: { id: string }[] }>).docs.records;
  t.true(
    docsExpected.some((r) => 'vectors' in r && Object.keys((r as { vectors: object }).vectors).length > 0),
    'named vectors are compared',
  );
  t.true((expected.text as unknown[]).length > 0, 'the text search finds something');
});

test('incremental: after a small change a backup copies only the new files; with no change it copies nothing', async (t) => {
  const data = tempDir();
  const target = tempDir();
  // A sealed segment's derived files (postings, id index) are saved in the background after a
  // flush; a restart writes any still missing while it opens, so each backup below sees them all.
  let server = await startServer(['--data', data, '--backup-to', target]);
  const restart = async () => {
    await server.stop('SIGTERM');
    server = await startServer(['--data', data, '--backup-to', target]);
  };
  t.teardown(() => server.stop());
  await ok(server, 'POST', '/collections/docs');
  await ok(server, 'POST', '/collections/docs/fts-schema', { fields: ['body'] });
  await ok(server, 'POST', '/collections/docs/vector-names', { names: ['title'] });
  await ok(server, 'POST', '/collections/docs/upsert', { records: docs(400, 7) });
  await ok(server, 'POST', '/flush');
  await restart();
  const full = await ok(server, 'POST', '/backups', { name: 'full' });
  t.is(full.new_bytes, full.bytes);

  await ok(server, 'POST', '/collections/docs/upsert', { records: docs(2, 8) });
  await ok(server, 'POST', '/flush');
  await restart();
  const small = await ok(server, 'POST', '/backups', { name: 'small' });
  t.log(`full ${full.bytes} bytes; after the change ${small.new_bytes} of ${small.bytes} copied`);
  t.true(small.bytes > full.bytes);
  t.true(small.new_bytes > 0, 'the change is copied');
  t.true(small.new_bytes * 10 < small.bytes, `new_bytes ${small.new_bytes} of ${small.bytes}`);
  t.is(sum(targetFiles(target).values()), full.bytes + small.new_bytes, 'the target holds each file once');

  const same = await ok(server, 'POST', '/backups', { name: 'same' });
  t.like(same, { commit_version: small.commit_version, files: small.files, bytes: small.bytes, new_bytes: 0 });

  const { server: restored } = await restoredServer(t, path.join(target, 'small'));
  t.deepEqual(await snapshot(restored), await snapshot(server));
});

test("a backup right after /flush holds the new segment's indexes: once they settled, another copies nothing", async (t) => {
  const data = tempDir();
  const target = tempDir();
  // A slow vector index build (a wide graph, one query thread): the backup is taken while it runs.
  const args = ['--data', data, '--backup-to', target, '--m', '64', '--ef-construction', '2000', '--query-threads', '1'];
  const first = await startServer(args);
  t.teardown(() => first.stop());
  await ok(first, 'POST', '/collections/docs');
  await ok(first, 'POST', '/collections/docs/fts-schema', { fields: ['body'] });
  await ok(first, 'POST', '/collections/docs/vector-names', { names: ['title'] });
  await ok(first, 'POST', '/collections/docs/upsert', { records: docs(3000, 21) });
  await ok(first, 'POST', '/flush');
  const atFlush = await ok(first, 'POST', '/backups', { name: 'at-flush' });
  t.log(JSON.stringify(atFlush), /svc_index_builds_pending \d+/.exec((await call(first, 'GET', '/metrics')).text)?.[0]);
  // Once the vector index is built, a clean stop and a start: every index and derived file of the segment is on disk after it.
  await untilIndexed(first);
  await first.stop('SIGTERM');
  const second = await startServer(args);
  t.teardown(() => second.stop());
  await untilIndexed(second);
  const settled = await ok(second, 'POST', '/backups', { name: 'settled' });
  t.log(JSON.stringify(settled));
  t.is(settled.commit_version, atFlush.commit_version);
  t.like(settled, { files: atFlush.files, bytes: atFlush.bytes, new_bytes: 0 }, 'the backup at the flush names every file of that state');
});

test('GET /backups lists complete backups oldest first; a default name carries the time and the version', async (t) => {
  const target = tempDir();
  const server = await startServer(['--backup-to', target]);
  t.teardown(() => server.stop());
  t.deepEqual(await ok(server, 'GET', '/backups'), []);
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(10, 4) });
  const first = await ok(server, 'POST', '/backups');
  t.regex(first.name, new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z-v${first.commit_version}$`));
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(3, 4, prng(9), 'x') });
  const second = await ok(server, 'POST', '/backups', '');
  const named = await ok(server, 'POST', '/backups', { name: 'Named_1.x-y' });
  const list = await ok(server, 'GET', '/backups');
  t.deepEqual(
    list.map((b: { name: string }) => b.name),
    [first.name, second.name, 'Named_1.x-y'],
  );
  for (const [entry, made] of [
    [list[0], first],
    [list[1], second],
    [list[2], named],
  ])
    t.like(entry, { name: made.name, commit_version: made.commit_version, files: made.files, bytes: made.bytes });
  for (const entry of list) t.false(Number.isNaN(Date.parse(entry.created_at)), entry.created_at);
  t.true(Date.parse(list[0].created_at) <= Date.parse(list[1].created_at));
  t.true(fs.existsSync(path.join(target, 'backups', 'Named_1.x-y.json')), 'the catalog is TARGET/backups/<name>.json');
});

test('DELETE /backups/{name} removes the backup and only the files no other backup names', async (t) => {
  const target = tempDir();
  const server = await startServer(['--backup-to', target]);
  t.teardown(() => server.stop());
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(100, 4) });
  await ok(server, 'POST', '/flush');
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(5, 4, prng(3), 'log') });
  await ok(server, 'POST', '/backups', { name: 'one' });
  const afterOne = targetFiles(target);
  await ok(server, 'POST', '/flush');
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(5, 4, prng(4), 'more') });
  await ok(server, 'POST', '/flush');
  const two = await ok(server, 'POST', '/backups', { name: 'two' });
  const before = targetFiles(target);
  const shared = [...afterOne.keys()].filter((name) => before.has(name));
  t.true(two.new_bytes < two.bytes, 'the two share files');
  t.is(before.size, afterOne.size + [...before.keys()].filter((name) => !afterOne.has(name)).length);

  const deleted = await ok(server, 'DELETE', '/backups/one');
  const after = targetFiles(target);
  const removed = [...before.keys()].filter((name) => !after.has(name));
  t.true(removed.length > 0, 'one named files two does not (the log it read)');
  t.deepEqual(deleted, { deleted: 'one', files: removed.length, bytes: sum(removed.map((name) => before.get(name)!)) });
  t.true(
    removed.every((name) => afterOne.has(name)),
    'only files of the deleted backup go',
  );
  t.is(after.size, two.files, 'what is left is exactly the files of two');
  t.is(sum(after.values()), two.bytes);
  t.true(
    shared.some((name) => after.has(name)),
    'a file both named stays',
  );
  t.deepEqual(
    (await ok(server, 'GET', '/backups')).map((b: { name: string }) => b.name),
    ['two'],
  );
  t.false(fs.existsSync(path.join(target, 'backups', 'one.json')));
  const gone = await restore(path.join(target, 'one'), newDir());
  t.is(gone.code, 2);
  t.regex(gone.stderr, /no complete backup named one/);

  const { server: restored } = await restoredServer(t, path.join(target, 'two'));
  t.deepEqual(await ids(restored, 'c'), await ids(server, 'c'));

  t.deepEqual(await ok(server, 'DELETE', '/backups/two'), { deleted: 'two', files: two.files, bytes: two.bytes });
  t.deepEqual([...targetFiles(target).keys()], [], 'the last backup gone, no file is left');
  t.deepEqual(await ok(server, 'GET', '/backups'), []);
});

test('kill -9 mid-backup: the source is intact, the partial backup is not listed, the next backup completes and restores', async (t) => {
  const data = tempDir();
  const target = tempDir();
  const stalling = { TESSERA_TEST_FAULTS: '1', TESSERA_TEST_BACKUP_STALL: '1' };
  const first = await startServer(['--data', data, '--backup-to', target], stalling);
  t.teardown(() => first.stop());
  await seed(first);
  await ok(first, 'POST', '/collections/other/upsert', { records: unitRecords(40, 4, prng(11), 'p') });
  await ok(first, 'POST', '/flush');
  await ok(first, 'POST', '/collections/other/upsert', { records: unitRecords(5, 4, prng(12), 'q') });
  const before = await snapshot(first);

  const stalled = call(first, 'POST', '/backups', { name: 'killed' }).catch((err: Error) => err);
  await until(() => [...targetFiles(target).keys()].some((name) => !name.endsWith('.partial')), 'a file of the backup landed in TARGET/files');
  await first.stop('SIGKILL');
  t.true((await stalled) instanceof Error, 'the killed backup never answered');
  const landed = [...targetFiles(target)].filter(([name]) => !name.endsWith('.partial'));
  t.false(fs.existsSync(path.join(target, 'backups', 'killed.json')));

  const second = await startServer(['--data', data, '--backup-to', target]);
  t.teardown(() => second.stop());
  t.deepEqual(await snapshot(second), before, 'the source serves every acknowledged write, as before the backup');
  t.deepEqual(await ok(second, 'GET', '/backups'), [], 'the partial backup is not listed');
  const refused = await restore(path.join(target, 'killed'), newDir());
  t.is(refused.code, 2);
  t.regex(refused.stderr, /no complete backup named killed/);

  const next = await ok(second, 'POST', '/backups', { name: 'killed' });
  const left = targetFiles(target);
  t.deepEqual(
    [...left.keys()].filter((name) => name.endsWith('.partial')),
    [],
    'no partial copy is left',
  );
  t.true(
    landed.every(([name, bytes]) => left.get(name) === bytes),
    'the files the killed backup copied whole stay',
  );
  t.is(sum(left.values()), sum(landed.map(([, bytes]) => bytes)) + next.new_bytes, 'and are not copied again');
  t.deepEqual(
    (await ok(second, 'GET', '/backups')).map((b: { name: string }) => b.name),
    ['killed'],
  );
  const { server: restored } = await restoredServer(t, path.join(target, 'killed'));
  t.deepEqual(await snapshot(restored), before);
});

test('two backups at once: the second answers 409 while the first runs, and so does a delete', async (t) => {
  const target = tempDir();
  const server = await startServer(['--backup-to', target], { TESSERA_TEST_FAULTS: '1', TESSERA_TEST_BACKUP_STALL: '1' });
  t.teardown(() => server.stop());
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(20, 4) });
  const stalled = call(server, 'POST', '/backups', { name: 'first' }).catch((err: Error) => err);
  await until(() => [...targetFiles(target).keys()].some((name) => !name.endsWith('.partial')), 'the first backup is copying');
  const second = await call(server, 'POST', '/backups', { name: 'second' });
  t.is(second.status, 409);
  t.regex(second.json.error, /a backup of this store is running/);
  const deleting = await call(server, 'DELETE', '/backups/first');
  t.is(deleting.status, 409);
  t.deepEqual(await ok(server, 'GET', '/backups'), [], 'listing goes on meanwhile; nothing is complete');
  t.is((await ok(server, 'POST', '/search', { query: QUERY, top_k: 3 })).length, 3, 'the store serves meanwhile');
  await server.stop('SIGKILL');
  t.true((await stalled) instanceof Error);
});

test('restore refuses a damaged, a truncated and a missing file: exit 2 naming its key, and nothing written', async (t) => {
  const target = tempDir();
  const server = await startServer(['--backup-to', target]);
  t.teardown(() => server.stop());
  await seed(server);
  await ok(server, 'POST', '/backups', { name: 'b' });
  const expected = await snapshot(server);
  const files = path.join(target, 'files');
  const segment = [...targetFiles(target).keys()].filter((name) => /^seg-.*\.vec\./.test(name)).sort()[0];
  t.truthy(segment, 'the backup holds a segment file');
  const file = path.join(files, segment);
  const original = fs.readFileSync(file);

  const refused = async (what: string, damage: () => void) => {
    damage();
    const dest = newDir();
    const r = await restore(path.join(target, 'b'), dest);
    t.is(r.code, 2, what);
    t.true(r.stderr.includes(`files/${segment}`), `${what}: the message names the file: ${r.stderr}`);
    t.is(r.stdout, '', what);
    t.deepEqual(fs.readdirSync(path.dirname(dest)), [], `${what}: neither NEWDIR nor a NEWDIR.restoring-* beside it`);
    fs.writeFileSync(file, original);
  };
  await refused('damaged', () => {
    const bytes = Buffer.from(original);
    bytes[bytes.length >> 1] ^= 0xff;
    fs.writeFileSync(file, bytes);
  });
  await refused('truncated', () => fs.truncateSync(file, original.length >> 1));
  await refused('missing', () => fs.rmSync(file));
  const empty = tempDir();
  t.is((await restore(path.join(target, 'b'), empty)).code, 0, 'put back, the backup restores, into an empty directory too');
  t.true(fs.readdirSync(empty).length > 0);

  const catalog = path.join(target, 'backups', 'b.json');
  const text = fs.readFileSync(catalog, 'utf8');
  fs.writeFileSync(
    catalog,
    text.replace(/"commit_version\\":(\d+)/, (_, v) => `"commit_version\\":${Number(v) + 1}`),
  );
  t.not(fs.readFileSync(catalog, 'utf8'), text, 'the catalog was changed');
  const dest = newDir();
  const damagedCatalog = await restore(path.join(target, 'b'), dest);
  t.is(damagedCatalog.code, 2);
  t.regex(damagedCatalog.stderr, /backups\/b\.json/);
  t.deepEqual(fs.readdirSync(path.dirname(dest)), []);
  fs.writeFileSync(catalog, text);

  const full = tempDir();
  fs.writeFileSync(path.join(full, 'keep'), 'x');
  const notEmpty = await restore(path.join(target, 'b'), full);
  t.is(notEmpty.code, 2);
  t.regex(notEmpty.stderr, /is not empty/);
  t.deepEqual(fs.readdirSync(full), ['keep']);

  const { server: restored } = await restoredServer(t, path.join(target, 'b'));
  t.deepEqual(await snapshot(restored), expected, 'the intact backup restores whole');
});

test('tessera restore: usage errors exit 2 naming the flag', async (t) => {
  const target = tempDir();
  for (const [args, message] of [
    [['restore', '--data', newDir()], /restore needs --from/],
    [['restore', '--from', path.join(target, 'b')], /restore needs --data/],
    [['restore', '--from', path.join(target, 'bad name!'), '--data', newDir()], /name must be/],
    [['restore', '--from', 's3://bucket/prefix/b', '--data', newDir()], /needs the object store's endpoint/],
    [['restore', '--from', path.join(target, 'b'), '--data', newDir(), '--backup-endpoint', 'http://127.0.0.1:1'], /a directory needs none/],
  ] as [string[], RegExp][]) {
    const r = await runCli(args);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, message, args.join(' '));
  }
});

test('a --read-only server backs up (and deletes) its store', async (t) => {
  const target = tempDir();
  const server = await readOnlyServer(['--backup-to', target], (writer) => seed(writer));
  t.teardown(() => server.stop());
  t.is((await call(server, 'POST', '/collections/c/upsert', { records: unitRecords(1, 4) })).status, 403, 'the server is read-only');
  const created = await ok(server, 'POST', '/backups', { name: 'ro' });
  t.true(created.files > 0);
  t.deepEqual(
    (await ok(server, 'GET', '/backups')).map((b: { name: string }) => b.name),
    ['ro'],
  );
  const { server: restored } = await restoredServer(t, path.join(target, 'ro'));
  t.deepEqual(await snapshot(restored), await snapshot(server));
  t.like(await ok(server, 'DELETE', '/backups/ro'), { deleted: 'ro', files: created.files, bytes: created.bytes });
});

test('without --backup-to every backup route answers 400 naming the flag', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  for (const [method, route] of [
    ['POST', '/backups'],
    ['GET', '/backups'],
    ['DELETE', '/backups/b'],
  ]) {
    const r = await call(server, method, route);
    t.is(r.status, 400, `${method} ${route}`);
    t.regex(r.json.error, /no backup target is configured.*--backup-to/, `${method} ${route}`);
  }
});

test('POST /backups refuses a bad name, a body of the wrong type and an unknown field with 400; a taken name with 409', async (t) => {
  const target = tempDir();
  const server = await startServer(['--backup-to', target]);
  t.teardown(() => server.stop());
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(3, 4) });
  for (const body of [
    { name: '' },
    { name: '.hidden' },
    { name: '-dash' },
    { name: 'a/b' },
    { name: '../up' },
    { name: 'with space' },
    { name: 'x'.repeat(129) },
    { name: 5 },
    { name: null },
    { name: ['a'] },
    { other: 'x' },
    [],
    'text',
    '{"name": ',
  ]) {
    const r = await call(server, 'POST', '/backups', body);
    t.is(r.status, 400, JSON.stringify(body));
    t.is(typeof r.json.error, 'string');
  }
  t.deepEqual(await ok(server, 'GET', '/backups'), [], 'no refused request made a backup');
  t.deepEqual([...targetFiles(target).keys()], []);

  t.is((await ok(server, 'POST', '/backups', { name: 'x'.repeat(128) })).name, 'x'.repeat(128), '128 characters is the longest name');
  await ok(server, 'POST', '/backups', { name: 'taken' });
  const taken = await call(server, 'POST', '/backups', { name: 'taken' });
  t.is(taken.status, 409);
  t.regex(taken.json.error, /a backup named taken exists/);
});

test('DELETE /backups/{name}: 404 for a backup that does not exist, 400 for a bad name', async (t) => {
  const target = tempDir();
  const server = await startServer(['--backup-to', target]);
  t.teardown(() => server.stop());
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(3, 4) });
  await ok(server, 'POST', '/backups', { name: 'kept' });
  const unknown = await call(server, 'DELETE', '/backups/nope');
  t.is(unknown.status, 404);
  t.regex(unknown.json.error, /no backup named nope/);
  t.is((await call(server, 'DELETE', '/backups/.x')).status, 400);
  t.is((await call(server, 'DELETE', `/backups/${'y'.repeat(129)}`)).status, 400);
  t.deepEqual(
    (await ok(server, 'GET', '/backups')).map((b: { name: string }) => b.name),
    ['kept'],
  );
});

test('with --token the backup routes need the bearer token', async (t) => {
  const target = tempDir();
  const server = await startServer(['--backup-to', target, '--token', 'backup-token']);
  t.teardown(() => server.stop());
  const auth = { authorization: 'Bearer backup-token' };
  for (const [method, route] of [
    ['POST', '/backups'],
    ['GET', '/backups'],
    ['DELETE', '/backups/b'],
  ])
    t.is((await call(server, method, route)).status, 401, `${method} ${route}`);
  t.deepEqual([...targetFiles(target).keys()], []);
  await call(server, 'POST', '/collections/c/upsert', { records: unitRecords(3, 4) }, auth);
  t.is((await call(server, 'POST', '/backups', { name: 'b' }, auth)).status, 200);
  t.is((await call(server, 'GET', '/backups', undefined, auth)).json.length, 1);
  t.is((await call(server, 'DELETE', '/backups/b', undefined, auth)).status, 200);
});

test('--namespaced: each tenant backs up through its prefix into TARGET/<namespace>', async (t) => {
  const root = tempDir();
  const target = tempDir();
  const server = await startServer(['--namespaced', '--data', root, '--backup-to', target]);
  t.teardown(() => server.stop());
  await seed(server, '/ns/acme');
  await ok(server, 'POST', '/ns/globex/collections/c/upsert', { records: unitRecords(7, 4, prng(5), 'g') });
  const unprefixed = await call(server, 'POST', '/backups', {});
  t.is(unprefixed.status, 400);
  t.regex(unprefixed.json.error, /\/ns\/\{namespace\}/);

  const acme = await ok(server, 'POST', '/ns/acme/backups', { name: 'same' });
  const globex = await ok(server, 'POST', '/ns/globex/backups', { name: 'same' });
  t.is(globex.new_bytes, globex.bytes, "one tenant's files are not another's");
  await ok(server, 'POST', '/ns/globex/backups', { name: 'g2' });
  t.deepEqual(
    (await ok(server, 'GET', '/ns/acme/backups')).map((b: { name: string }) => b.name),
    ['same'],
  );
  t.deepEqual(
    (await ok(server, 'GET', '/ns/globex/backups')).map((b: { name: string }) => b.name),
    ['same', 'g2'],
  );
  t.deepEqual(fs.readdirSync(target).sort(), ['acme', 'globex']);
  t.is(sum(targetFiles(path.join(target, 'acme')).values()), acme.bytes);
  t.true(fs.existsSync(path.join(target, 'globex', 'backups', 'same.json')));

  const { server: restored } = await restoredServer(t, path.join(target, 'acme', 'same'));
  t.deepEqual(await snapshot(restored), await snapshot(server, '/ns/acme'));
  const { server: restoredGlobex } = await restoredServer(t, path.join(target, 'globex', 'same'));
  t.deepEqual(await ids(restoredGlobex, 'c'), await ids(server, 'c', '/ns/globex'));

  t.like(await ok(server, 'DELETE', '/ns/acme/backups/same'), { deleted: 'same', files: acme.files });
  t.deepEqual(await ok(server, 'GET', '/ns/acme/backups'), []);
  t.is((await ok(server, 'GET', '/ns/globex/backups')).length, 2, "the other tenant's backups stay");
});

test('a target that fails answers 502 naming the target and the cause; the store goes on serving', async (t) => {
  const plain = path.join(tempDir(), 'plain');
  fs.writeFileSync(plain, 'a regular file');
  const target = path.join(plain, 'target');
  const server = await startServer(['--backup-to', target]);
  t.teardown(() => server.stop());
  await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(10, 4) });
  await ok(server, 'POST', '/flush');
  for (let attempt = 0; attempt < 2; attempt++) {
    const failed = await call(server, 'POST', '/backups', { name: 'b' });
    t.is(failed.status, 502, `attempt ${attempt}: ${failed.text}`);
    t.true(failed.json.error.includes(target), failed.json.error);
    t.regex(failed.json.error, /ENOTDIR|not a directory/);
  }
  const listed = await call(server, 'GET', '/backups');
  t.is(listed.status, 502);
  t.regex(listed.json.error, /ENOTDIR|not a directory/);
  t.is((await ok(server, 'POST', '/search', { query: QUERY, top_k: 5 })).length, 5, 'searches go on');
  t.deepEqual(await ok(server, 'POST', '/collections/c/upsert', { records: unitRecords(2, 4, prng(6), 'after') }), { upserted: 2 });
  t.is((await call(server, 'GET', '/ready')).status, 200);
  t.is(fs.readFileSync(plain, 'utf8'), 'a regular file');
});

test('--backup-to excludes --in-memory and --cluster: exit 2 before listening', async (t) => {
  const target = tempDir();
  const inMemory = await runCli(['serve', '--port', '0', '--in-memory', '--dimension', '4', '--backup-to', target]);
  t.is(inMemory.code, 2);
  t.regex(inMemory.stderr, /--backup-to and --in-memory exclude each other/);
  t.false(inMemory.stdout.includes('listening'));
  const cluster = await runCli([
    'serve',
    '--port',
    '0',
    '--dimension',
    '4',
    '--data',
    tempDir(),
    '--cluster',
    's3://bucket/prefix',
    '--cluster-endpoint',
    'http://127.0.0.1:1',
    '--backup-to',
    target,
  ]);
  t.is(cluster.code, 2);
  t.regex(cluster.stderr, /--backup-to and --cluster exclude each other/);
  const noEndpoint = await runCli(['serve', '--port', '0', '--dimension', '4', '--data', tempDir(), '--backup-to', 's3://bucket/prefix']);
  t.is(noEndpoint.code, 2);
  t.regex(noEndpoint.stderr, /needs backupEndpoint/);
  t.deepEqual(fs.readdirSync(target), [], 'nothing was written to the target');
});
