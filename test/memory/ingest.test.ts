// `tessera ingest`: files and JSONL lines chunked into a collection through remember, with
// progress on stderr and a JSON summary on stdout.
import test from 'ava';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../lib/index';
import { runCli, startServer, tempDir } from '../http/helpers';

const EMBED = ['--embed-provider', 'hash:32', '--dimension', '32'];

test('ingest chunks files and JSONL lines into {id}#{index} records and reports a summary', async (t) => {
  const dir = tempDir();
  const data = path.join(dir, 'store');
  const md = path.join(dir, 'guide.md');
  writeFileSync(md, `# Install\n\n${'Run the installer and wait. '.repeat(8)}\n\n# Use\n\n${'Open the app and search. '.repeat(8)}\n`);
  const jsonl = path.join(dir, 'notes.jsonl');
  writeFileSync(
    jsonl,
    `${JSON.stringify({ id: 'n1', text: 'first note', attrs: { tag: { Str: 't' } } })}\n\n${JSON.stringify({ id: 'n2', text: 'second note' })}\n`,
  );
  const r = await runCli(['ingest', '--data', data, '--collection', 'kb', ...EMBED, '--max-chars', '120', '--overlap-chars', '10', md, jsonl]);
  t.is(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  t.is(summary.documents, 3);
  t.regex(r.stderr, /ingest \[#+\] 3\/3 documents/);
  const store = await Store.open({ path: data, readOnly: true });
  t.teardown(() => store.close());
  const ids = (await store.list({ scope: ['kb'], limit: 1000 })).map((h) => h.id).sort();
  t.is(ids.length, summary.chunks);
  t.true(ids.includes('n1#0') && ids.includes('n2#0'));
  t.true(ids.filter((id) => id.startsWith(`${md}#`)).length >= 2, 'the guide is split into several chunks');
  t.deepEqual((await store.list({ scope: ['kb'], filter: [{ Eq: ['svc.parent_id', { Str: 'n1' }] }] }))[0].attrs.tag, { Str: 't' });
});

test('ingest refuses a bad command line with exit 2 and a bad document with exit 1 naming it', async (t) => {
  const dir = tempDir();
  t.is((await runCli(['ingest', '--collection', 'kb', 'x.txt'])).code, 2, 'no --embed-provider');
  t.is((await runCli(['ingest', '--embed-provider', 'hash:8', 'x.txt'])).code, 2, 'no --collection');
  t.is((await runCli(['ingest', '--collection', 'kb', '--embed-provider', 'hash:8'])).code, 2, 'no file');
  const valued = await runCli(['ingest', '--collection', 'kb', '--embed-provider', 'hash:8', '--jsonl=yes', 'x.jsonl']);
  t.is(valued.code, 2);
  t.regex(valued.stderr, /--jsonl takes no value/);
  t.regex(
    (await runCli(['ingest', '--collection', 'kb', '--embed-provider', 'hash:8', '--colour', 'x.txt'])).stderr,
    /unknown flag --colour \(see tessera ingest --help\)/,
  );
  const bad = path.join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"id": "a"}\n');
  const r = await runCli(['ingest', '--data', path.join(dir, 's'), '--collection', 'kb', ...EMBED, bad]);
  t.is(r.code, 1);
  t.regex(r.stderr, /bad\.jsonl:1: a line needs a string "id" and a string "text"/);
});

test('ingest into a store a server is writing fails naming the holder', async (t) => {
  const dir = tempDir();
  const data = path.join(dir, 'store');
  const server = await startServer(['--data', data, '--dimension', '32']);
  t.teardown(() => server.stop());
  const file = path.join(dir, 'a.txt');
  writeFileSync(file, 'some text');
  const r = await runCli(['ingest', '--data', data, '--collection', 'kb', ...EMBED, file]);
  t.is(r.code, 1);
  t.regex(r.stderr, /being written by/);
});
