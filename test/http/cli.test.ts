import { readFileSync } from 'node:fs';
import test from 'ava';
import { CLI, runCli, startServer } from './helpers';

const FLAGS = [
  '--data', '--in-memory', '--host', '--port', '--dimension', '--distance', '--token', '--read-only', '--max-body-bytes',
  '--max-concurrent-requests', '--read-timeout', '--write-timeout', '--query-threads', '--mmap', '--no-mmap', '--ann', '--m',
  '--ef-construction', '--ef-search', '--n-lists', '--n-probe', '--overscan', '--seed', '--quantization', '--rescore', '--log-level',
];

test('the compiled CLI starts with a node shebang', (t) => {
  t.true(readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node\n'));
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

test('flags of features not built yet are refused, not ignored', async (t) => {
  for (const args of [['--namespaced'], ['--history-versions', '3'], ['--embed-provider', 'x']]) {
    const r = await runCli(['serve', '--port', '0', '--in-memory', ...args]);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, /not supported yet/);
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
