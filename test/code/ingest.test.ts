// Store.ingestCode (issue 13): the walk honours .gitignore files and skips .git, node_modules,
// binary and oversized files; a re-ingest rewrites changed files only, deletes deleted files'
// chunks and the stale tail of shortened files.
import test from 'ava';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../lib/index';
import { tempDir } from '../http/helpers';

/** Writes files under root, creating directories: {relative path: content}. */
function tree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
}

async function paths(store: Store, collection: string): Promise<string[]> {
  const hits = await store.list({ scope: [collection], limit: 10_000, include_attributes: ['path'] });
  return [...new Set(hits.map((h) => (h.attrs.path as { Str: string }).Str))].sort();
}

const open = () => Store.open({ inMemory: true, dimension: 0 });

test('gitignore: globs, directory patterns, anchoring, negation, nested files; .git, node_modules, binaries and large files skipped', async (t) => {
  const root = tempDir();
  tree(root, {
    '.gitignore': '# build output\n*.log\nbuild/\n/top.txt\n!keep.log\ndocs/**/*.tmp\nsrc/gen?.ts\n',
    'a.ts': 'export const a = 1;',
    'x.log': 'log',
    'keep.log': 'kept by negation',
    'top.txt': 'anchored: ignored at the root only',
    'sub/top.txt': 'not at the root: kept',
    'build/out.js': 'ignored directory',
    'sub/build/out.js': 'a directory pattern matches at any depth',
    'docs/a/b/c.tmp': 'ignored by **',
    'docs/readme.md': '# Docs',
    'src/gen1.ts': 'ignored by ?',
    'src/gen10.ts': 'kept: ? is one character',
    'src/.gitignore': '*.snap\n!important.snap\n',
    'src/a.snap': 'ignored by the nested file',
    'src/important.snap': 'negated in the nested file',
    'other/b.snap': 'the nested file does not apply here',
    '.git/config': 'never',
    'node_modules/m/index.js': 'never',
    'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]),
    'big.txt': 'x'.repeat(2000),
  });
  const store = await open();
  t.teardown(() => store.close());
  const r = await store.ingestCode('c', root, { max_file_bytes: 1000 });
  t.deepEqual(await paths(store, 'c'), [
    '.gitignore',
    'a.ts',
    'docs/readme.md',
    'keep.log',
    'other/b.snap',
    'src/.gitignore',
    'src/gen10.ts',
    'src/important.snap',
    'sub/top.txt',
  ]);
  t.deepEqual(r.skipped, { binary: 1, too_large: 1 });
  t.is(r.files, 9);
});

test('re-ingest: a changed file is rewritten, a deleted one removed, a shortened one pruned, an unchanged one not rewritten', async (t) => {
  const root = tempDir();
  const fns = (n: number) => Array.from({ length: n }, (_, i) => `/** Does step ${i}. */\nexport function step${i}() {\n  return ${i};\n}\n`).join('\n');
  tree(root, { 'keep.ts': fns(2), 'change.ts': fns(2), 'shrink.ts': fns(5), 'gone.ts': fns(1) });
  const store = await open();
  t.teardown(() => store.close());
  const first = await store.ingestCode('c', root);
  t.like(first, { files: 4, written: 4, unchanged: 0, removed: 0, chunks: 10 });
  const version = async (id: string) =>
    (await store.list({ scope: ['c'], filter: [{ Eq: ['svc.parent_id', { Str: id }] }], limit: 100 })).map((h) => h.id).sort();
  const before = store.commitVersion();

  t.like(await store.ingestCode('c', root), { written: 0, unchanged: 4, removed: 0, chunks: 0 });
  t.is(store.commitVersion(), before, 'nothing unchanged is written');

  writeFileSync(path.join(root, 'change.ts'), fns(2).replace('return 1', 'return 100'));
  writeFileSync(path.join(root, 'shrink.ts'), fns(2));
  rmSync(path.join(root, 'gone.ts'));
  const second = await store.ingestCode('c', root);
  t.like(second, { files: 3, written: 2, unchanged: 1, removed: 1, chunks: 4 });
  t.deepEqual(await paths(store, 'c'), ['change.ts', 'keep.ts', 'shrink.ts']);
  t.deepEqual(await version('shrink.ts'), ['shrink.ts#0', 'shrink.ts#1'], 'the stale tail is pruned');
  const changed = await store.list({ scope: ['c'], filter: [{ Eq: ['symbol', { Str: 'step1' }] }, { Eq: ['path', { Str: 'change.ts' }] }] });
  t.regex((changed[0].attrs['svc.text'] as { Str: string }).Str, /return 100/);
});

test('chunk records carry the chunk attributes, svc.* chunk stamps and the file hash; no vector without an embedder', async (t) => {
  const root = tempDir();
  tree(root, { 'lib/jsonParse.py': 'def parse_json(s):\n    """Parses JSON text."""\n    return s\n', 'notes.txt': 'plain words' });
  const store = await open();
  t.teardown(() => store.close());
  await store.ingestCode('c', root);
  const [rec] = (await store.records('c')).filter((r) => r.id === 'lib/jsonParse.py#0');
  t.is(rec.vector, null);
  t.like(rec.attrs, {
    path: { Str: 'lib/jsonParse.py' },
    path_words: { Str: 'lib/jsonParse.py lib json Parse py' },
    language: { Str: 'python' },
    symbol: { Str: 'parse_json' },
    symbol_words: { Str: 'parse_json parse json' },
    kind: { Str: 'function' },
    doc: { Str: 'Parses JSON text.' },
    'svc.parent_id': { Str: 'lib/jsonParse.py' },
  });
  t.deepEqual(
    [rec.attrs.start_line, rec.attrs.end_line, rec.attrs['svc.chunk_index'], rec.attrs['svc.char_start']],
    [{ Int: 1n }, { Int: 3n }, { Int: 0n }, { Int: 0n }],
  );
  t.regex((rec.attrs.file_hash as { Str: string }).Str, /^[0-9a-f]{64}$/);
  const [txt] = (await store.records('c')).filter((r) => r.id === 'notes.txt#0');
  t.false('language' in txt.attrs);
  t.false('symbol' in txt.attrs);
});

test('with an embedder each chunk gets a vector and the collection records the embedder', async (t) => {
  const root = tempDir();
  tree(root, { 'a.go': 'package a\n\n// Sum adds.\nfunc Sum(a, b int) int { return a + b }\n' });
  const store = await Store.open({ inMemory: true, dimension: 16, embedProvider: 'hash:16' });
  t.teardown(() => store.close());
  await store.ingestCode('c', root);
  t.true((await store.records('c')).every((r) => r.vector?.length === 16));
  t.is((await store.getMeta('c'))['svc.embedder'], 'hash:16');
});

test('bad chunk sizes and a missing directory are 400; a read-only store refuses with 403', async (t) => {
  const store = await open();
  t.teardown(() => store.close());
  const e = await t.throwsAsync(store.ingestCode('c', tempDir(), { max_chars: 50 }));
  t.is((e as { status?: number }).status, 400);
  t.regex(e!.message, /overlap_chars/);
  const missing = await t.throwsAsync(store.ingestCode('c', '/no/such/dir'));
  t.is((missing as { status?: number }).status, 400);
  t.regex(missing!.message, /not a directory/);
  const data = tempDir();
  await (await Store.open({ path: data, dimension: 0 })).close();
  const readOnly = await Store.open({ path: data, readOnly: true });
  t.teardown(() => readOnly.close());
  t.is(((await t.throwsAsync(readOnly.ingestCode('c', tempDir()))) as { status?: number }).status, 403);
});
