import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { CLI, call, runCli, startServer, tempDir, unitRecords } from './helpers';

const FLAGS = [
  '--data',
  '--in-memory',
  '--host',
  '--port',
  '--dimension',
  '--distance',
  '--token',
  '--read-only',
  '--max-body-bytes',
  '--max-vector-bytes',
  '--mapped-vector-bytes',
  '--max-concurrent-requests',
  '--read-timeout',
  '--write-timeout',
  '--query-threads',
  '--mmap',
  '--no-mmap',
  '--ann',
  '--m',
  '--ef-construction',
  '--ef-search',
  '--n-lists',
  '--n-probe',
  '--overscan',
  '--seed',
  '--quantization',
  '--rescore',
  '--log-level',
  '--namespaced',
  '--warm-bytes',
  '--cluster',
  '--cluster-endpoint',
  '--lease-ttl',
  '--gc-grace',
  '--standby',
  '--cluster-reader',
  '--cache-bytes',
];

test('the compiled CLI starts with a node shebang', (t) => {
  t.true(fs.readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node\n'));
});

for (const args of [['--help'], ['serve', '--help']]) {
  test(`tessera ${args.join(' ')} documents every flag with its default`, async (t) => {
    const r = await runCli(args);
    t.is(r.code, 0);
    for (const flag of FLAGS) t.regex(r.stdout, new RegExp(`^  ${flag}\\b.*`, 'm'), flag);
    for (const line of r.stdout.split('\n').filter((l) => /^ {2}--/.test(l) && !/--(help|no-mmap)\b/.test(l))) t.regex(line, /default/, line);
  });
}

const BAD: string[][] = [
  [],
  ['bogus'],
  ['serve', '--bogus'],
  ['serve', '--port'],
  ['serve', '--port', 'abc'],
  ['serve', '--port', '70000'],
  ['serve', '--dimension', '-1'],
  ['serve', '--distance', 'Manhattan'],
  ['serve', '--read-timeout', '5'],
  ['serve', '--write-timeout', '0s'],
  ['serve', '--max-body-bytes', '0'],
  ['serve', '--max-body-bytes', '1.5MiB'],
  ['serve', '--max-vector-bytes', '0'],
  ['serve', '--max-vector-bytes', '8GB'],
  ['serve', '--max-vector-bytes', '-1'],
  ['serve', '--mapped-vector-bytes', '-1'],
  ['serve', '--mapped-vector-bytes', '1.5GiB'],
  ['serve', '--max-concurrent-requests', '1.5'],
  ['serve', '--log-level', 'loud'],
  ['serve', '--read-only=yes'],
  ['serve', '--in-memory', '--data', '/tmp/x'],
  ['serve', '--ef-search'],
  ['serve', '--in-memory', '--dimension', '4', '--ann', 'hnsw', '--ef-search', '0'],
];

test('a bad command line exits 2 with one line on stderr and never listens', async (t) => {
  for (const args of BAD) {
    const r = await runCli(args);
    t.is(r.code, 2, args.join(' '));
    t.is(r.stderr.trimEnd().split('\n').length, 1, `${args.join(' ')}: ${r.stderr}`);
    t.false(r.stdout.includes('listening'), args.join(' '));
  }
});

test('--namespaced refuses the flags it cannot honour, and --warm-bytes needs it', async (t) => {
  const cases: [string[], RegExp][] = [
    [['--namespaced', '--in-memory'], /--namespaced and --in-memory exclude each other/],
    [['--namespaced', '--at-version', '1', '--data', tempDir()], /--namespaced and --at-version exclude each other/],
    [['--warm-bytes', '1MiB', '--in-memory'], /--warm-bytes bounds the tenant stores of --namespaced/],
    [['--namespaced', '--warm-bytes', 'lots', '--data', tempDir()], /--warm-bytes must be a size/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(['serve', '--port', '0', ...args]);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, message);
    t.false(r.stdout.includes('listening'), args.join(' '));
  }
});

test('cluster flags: a bad location, a missing endpoint or credentials, and flags that need --cluster or exclude it exit 2 naming the fix', async (t) => {
  const creds = { AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' };
  const at = ['--cluster', 's3://bucket-1/store', '--cluster-endpoint', 'http://127.0.0.1:1'];
  const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
    [['--cluster', 'bucket/x', '--cluster-endpoint', 'http://h'], creds, /--cluster must be s3:\/\/BUCKET\/PREFIX/],
    [['--cluster', 's3://bucket-1/', '--cluster-endpoint', 'http://h'], creds, /--cluster must be s3:\/\/BUCKET\/PREFIX/],
    [['--cluster', 's3://bucket-1/store'], creds, /--cluster needs --cluster-endpoint URL/],
    [['--standby'], creds, /--standby needs --cluster s3:\/\/BUCKET\/PREFIX/],
    [['--cluster-reader'], creds, /--cluster-reader needs --cluster/],
    [['--lease-ttl', '5s'], creds, /--lease-ttl needs --cluster/],
    [[...at, '--standby', '--cluster-reader'], creds, /a --cluster-reader never takes it/],
    [['--cache-bytes', '1GiB'], creds, /--cache-bytes needs --cluster/],
    [[...at, '--cache-bytes', '1GiB', '--history-versions', '3'], creds, /--cache-bytes bounds a writer that keeps no history/],
    [[...at, '--cluster-reader', '--cache-bytes', 'lots'], creds, /--cache-bytes must be a size/],
    [[...at, '--read-only'], creds, /--cluster and --read-only exclude each other \(a read-only cluster member is --cluster-reader\)/],
    [[...at, '--namespaced'], creds, /--cluster and --namespaced exclude each other/],
    [[...at, '--in-memory'], creds, /--cluster and --in-memory exclude each other/],
    [[...at, '--lease-ttl', 'soon'], creds, /--lease-ttl/],
    [['--gc-grace', '0s'], creds, /--gc-grace needs --cluster/],
    [[...at, '--gc-grace', '-1s'], creds, /--gc-grace must be a duration like 0s, 250ms, 5s or 2m, got "-1s"/],
    [
      [...at, '--data', tempDir()],
      { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' },
      /--cluster: object store credentials missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/,
    ],
  ];
  for (const [args, env, message] of cases) {
    const r = await runCli(['serve', '--port', '0', ...args], env);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, message, args.join(' '));
    t.false(r.stdout.includes('listening'), args.join(' '));
  }
});

test('flags take `--flag value` and `--flag=value`; the listening line names host and port', async (t) => {
  const server = await startServer(['--in-memory', '--max-body-bytes=2048', '--read-timeout=5s', '--no-mmap']);
  t.teardown(() => server.stop());
  t.regex(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.is((await fetch(`${server.url}/health`)).status, 200);
  t.is((await fetch(`${server.url}/collections/c/upsert`, { method: 'POST', body: 'x'.repeat(3000) })).status, 413);
  t.is(((await (await fetch(`${server.url}/stats`)).json()) as { mmap: boolean }).mmap, false);
});

/** `tessera serve` refusing to start: exit 2, one line on stderr matching `pattern`, never `listening`. */
async function refusedToStart(t: ExecutionContext, args: string[], pattern: RegExp, as: { uid?: number; gid?: number } = {}): Promise<void> {
  const r = await runCli(['serve', '--port', '0', '--log-level', 'warn', ...args], {}, as);
  const label = args.join(' ');
  t.is(r.code, 2, `${label}: ${r.stderr}`);
  t.is(r.stderr.trimEnd().split('\n').length, 1, `${label}: ${r.stderr}`);
  t.regex(r.stderr, pattern, label);
  t.false(r.stdout.includes('listening'), `${label} printed: ${r.stdout}`);
}

test('a store or --data the server cannot serve is refused before listening: exit 2, one line naming the problem', async (t) => {
  const data = tempDir();
  const server = await startServer(['--data', data, '--ann', 'hnsw']);
  t.is((await call(server, 'POST', '/collections/c/upsert', { records: unitRecords(3, 4) })).status, 200);
  t.is(await server.stop('SIGTERM'), 0);
  t.true(fs.existsSync(path.join(data, 'MANIFEST')), 'the shutdown flush wrote a manifest');
  const scratch = tempDir();
  const copyWith = (file: string, text: string) => {
    const dir = path.join(scratch, `bad-${file}`);
    fs.cpSync(data, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
    return dir;
  };
  const file = path.join(scratch, 'a-file');
  fs.writeFileSync(file, 'not a store');
  const nothing = path.join(scratch, 'nothing');
  const cases: [string[], RegExp][] = [
    [['--data', data, '--dimension', '8'], /dimension 4.*dimension 8/],
    [['--data', data, '--distance', 'Euclidean'], /Cosine.*Euclidean/],
    [['--data', data, '--n-probe', '4'], /^tessera: --n-probe /], // the store recorded hnsw; n_probe is IVF's
    [['--data', copyWith('HEADER', 'tessera-store\nformat x\n')], /corrupt .*HEADER/],
    [['--data', copyWith('MANIFEST', '{"commit_version": 3,')], /corrupt .*MANIFEST/],
    [['--data', file], /a-file is not a directory/],
    [['--data', path.join(file, 'store')], /a-file\/store: Not a directory/],
    [['--data', nothing, '--read-only'], /no store exists at .*nothing/],
  ];
  for (const [args, pattern] of cases) await refusedToStart(t, args, pattern);
  t.false(fs.existsSync(nothing), 'a refused start creates nothing');
});

test('a --data this user may not change, or create, is refused before listening', async (t) => {
  const root = tempDir();
  const data = path.join(root, 'store');
  const server = await startServer(['--data', data]);
  t.is(await server.stop('SIGTERM'), 0);
  // Root passes every permission check, so as root the CLI runs as nobody (who may read, not write).
  const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  // A checkout inside a directory only root may enter (mktemp -d's 0700) cannot run as nobody.
  const runnable = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(CLI)})`], as).status === 0;
  if (!runnable) {
    t.log(`skipped: ${CLI} is not readable by uid ${as.uid}; put the checkout where other users may read it to run this test`);
    t.pass();
    return;
  }
  fs.chmodSync(root, 0o755);
  fs.chmodSync(data, 0o555);
  t.teardown(() => fs.chmodSync(data, 0o755));
  await refusedToStart(t, ['--data', data], /cannot write the store directory .*store: Permission denied/, as);
  await refusedToStart(t, ['--data', path.join(data, 'inner', 'store')], /cannot create the store directory .*store is not writable/, as);
});

test('a port another server holds is refused before listening, never shared', async (t) => {
  const server = await startServer(['--in-memory']);
  t.teardown(() => server.stop());
  await refusedToStart(t, ['--in-memory', '--dimension', '4', '--port', String(server.port)], /cannot listen on 127\.0\.0\.1:\d+/);
  t.is((await call(server, 'GET', '/health')).status, 200);
});
