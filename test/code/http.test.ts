// /code-search over HTTP through `tessera serve`, `tessera ingest --code` from the command line,
// and a package built without feature code answering 404.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { call, packageBuiltWith, runCli, startServer, tempDir } from '../http/helpers';
import { codeTree } from './tree';

test('tessera ingest --code, then /code-search over HTTP; a re-ingest writes nothing unchanged', async (t) => {
  const data = path.join(tempDir(), 'store');
  const root = codeTree();
  const r = await runCli(['ingest', '--code', root, '--collection', 'code', '--data', data, '--dimension', '0']);
  t.is(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  t.like(summary, { files: 34, written: 34, unchanged: 0, removed: 0 });
  t.regex(r.stderr, /ingest \[#+\] 34\/34 files/);
  const again = await runCli(['ingest', '--code', root, '--collection', 'code', '--data', data]);
  t.like(JSON.parse(again.stdout.trim().split('\n').at(-1)!), { written: 0, unchanged: 34, chunks: 0 });

  const server = await startServer(['--data', data, '--dimension', '0']);
  t.teardown(() => server.stop());
  const found = await call(server, 'POST', '/code-search', { collection: 'code', query: 'parse json', limit: 2 });
  t.is(found.status, 200);
  t.is(found.json.files.length, 2);
  t.like(found.json.files[0], { path: 'src/json.ts', language: 'typescript' });
  t.like(found.json.files[0].symbols[0], { symbol: 'parseJson', kind: 'function', start_line: 1, end_line: 4 });
  const forced = await call(server, 'POST', '/code-search', { collection: 'code', query: 'json', vector: true });
  t.is(forced.status, 400);
  t.regex(forced.json.error, /--embed-provider/);
  const bad = await call(server, 'POST', '/code-search', { collection: 'code', query: 7 });
  t.is(bad.status, 400);
  t.regex(bad.json.error, /query/);
  t.true((await call(server, 'GET', '/stats')).json.features.includes('code'));
});

test('tessera ingest --code refuses FILE arguments and a flag meant for it without it (exit 2)', async (t) => {
  t.is((await runCli(['ingest', '--code', '.', '--collection', 'c', 'x.ts'])).code, 2);
  t.is((await runCli(['ingest', '--collection', 'c', '--embed-provider', 'hash:8', '--max-file-bytes', '1KiB', 'x.txt'])).code, 2);
  t.is((await runCli(['ingest', '--code', '.'])).code, 2, 'no --collection');
});

test('a package built with memory but without code answers 404 on /code-search and refuses ingest --code; code alone does not build', async (t) => {
  const cli = packageBuiltWith('memory,rerank');
  const server = await startServer(['--dimension', '0'], {}, { cli });
  t.teardown(() => server.stop());
  t.is((await call(server, 'POST', '/code-search', { collection: 'c', query: 'x' })).status, 404);
  t.deepEqual((await call(server, 'GET', '/stats')).json.features, ['memory', 'rerank']);
  const ingest = spawnSync(
    process.execPath,
    [cli, 'ingest', '--code', tempDir(), '--collection', 'c', '--data', path.join(tempDir(), 's'), '--dimension', '0'],
    { encoding: 'utf8' },
  );
  t.is(ingest.status, 2, 'refused, as a command the store refuses');
  t.regex(ingest.stderr, /not in this build \(feature code\)/);
  t.throws(() => packageBuiltWith('code'), { message: /needs feature memory/ });
});
