// Store.codeSearch (spec, "POST /code-search"): BM25 over body, path, symbol and doc, grouped by
// file, files and symbols by descending score, null fields for non-AST chunks, limit counting
// files; vector search only with an embedder; bad bodies 400 naming the field.
import test from 'ava';
import { type CodeSearchResponse, Store } from '../../lib/index';
import { codeTree } from './tree';

async function ingested(options: Parameters<typeof Store.open>[0]): Promise<Store> {
  const store = await Store.open(options);
  await store.ingestCode('code', codeTree());
  return store;
}

/** Every score descending: files by their first (best) symbol, symbols within a file. */
function ordered(r: CodeSearchResponse): boolean {
  const best = r.files.map((f) => f.symbols[0].score);
  return best.every((s, i) => i === 0 || best[i - 1] >= s) && r.files.every((f) => f.symbols.every((s, i) => i === 0 || f.symbols[i - 1].score >= s.score));
}

test('BM25: files grouped and ordered by best symbol, symbols by score; null language, symbol and kind off the AST', async (t) => {
  const store = await ingested({ inMemory: true, dimension: 0 });
  t.teardown(() => store.close());
  const r = await store.codeSearch({ collection: 'code', query: 'parse json', limit: 4 });
  t.true(ordered(r));
  t.is(r.files.length, 4);
  t.deepEqual(Object.keys(r.files[0]).sort(), ['language', 'path', 'symbols']);
  const json = r.files.find((f) => f.path === 'src/json.ts')!;
  t.is(json.language, 'typescript');
  t.like(json.symbols[0], { symbol: 'parseJson', kind: 'function', start_line: 1, end_line: 4 });
  t.deepEqual(Object.keys(json.symbols[0]).sort(), ['end_line', 'kind', 'score', 'start_line', 'symbol']);
  const md = r.files.find((f) => f.path === 'docs/guide.md')!;
  t.is(md.language, null);
  t.like(md.symbols[0], { symbol: null, kind: null, start_line: 1 });
  t.false(JSON.stringify(r).includes('JSON.parse'), 'never a body');
});

test('the split symbol words match: `parse yaml` finds parse_yaml and `write json` finds writeJson', async (t) => {
  const store = await ingested({ inMemory: true, dimension: 0 });
  t.teardown(() => store.close());
  const yaml = await store.codeSearch({ collection: 'code', query: 'parse yaml', limit: 1 });
  t.is(yaml.files[0].path, 'src/yaml.py');
  t.is(yaml.files[0].symbols[0].symbol, 'parse_yaml');
  const json = await store.codeSearch({ collection: 'code', query: 'write json', limit: 1 });
  t.is(json.files[0].symbols[0].symbol, 'writeJson');
});

test('limit counts files: enough chunks are fetched to fill it, and the filter applies', async (t) => {
  const store = await ingested({ inMemory: true, dimension: 0 });
  t.teardown(() => store.close());
  t.is((await store.codeSearch({ collection: 'code', query: 'parses number' })).files.length, 10);
  t.is((await store.codeSearch({ collection: 'code', query: 'parses number', limit: 25 })).files.length, 25);
  t.deepEqual(await store.codeSearch({ collection: 'code', query: 'parses', limit: 0 }), { files: [] });
  const go = await store.codeSearch({ collection: 'code', query: 'parses', limit: 100, filter: [{ Eq: ['language', { Str: 'go' }] }] });
  t.is(go.files.length, 30);
  t.true(go.files.every((f) => f.language === 'go'));
  t.deepEqual(await store.codeSearch({ collection: 'missing', query: 'parses' }), { files: [] });
});

test('vector: true without an embedder is 400 naming --embed-provider; vector: false is BM25', async (t) => {
  const store = await ingested({ inMemory: true, dimension: 0 });
  t.teardown(() => store.close());
  const e = await t.throwsAsync(store.codeSearch({ collection: 'code', query: 'json', vector: true }));
  t.is((e as { status?: number }).status, 400);
  t.regex(e!.message, /--embed-provider/);
  t.deepEqual(await store.codeSearch({ collection: 'code', query: 'json', vector: false }), await store.codeSearch({ collection: 'code', query: 'json' }));
});

test('with an embedder: vector: true searches vectors, omitted fuses vectors and BM25', async (t) => {
  const store = await ingested({ inMemory: true, dimension: 64, embedProvider: 'hash:64' });
  t.teardown(() => store.close());
  const vector = await store.codeSearch({ collection: 'code', query: 'parse json text', vector: true, limit: 3 });
  t.true(ordered(vector));
  t.is(vector.files[0].path, 'src/json.ts');
  t.true(vector.files[0].symbols[0].score <= 1, 'a cosine score');
  const fused = await store.codeSearch({ collection: 'code', query: 'parse json text', limit: 3 });
  t.true(ordered(fused));
  t.is(fused.files[0].path, 'src/json.ts');
  t.true(fused.files[0].symbols[0].score < 0.1, 'an RRF score');
  const bm25 = await store.codeSearch({ collection: 'code', query: 'parse json text', vector: false, limit: 3 });
  t.true(bm25.files[0].symbols[0].score > 1, 'a BM25 score');
});

test('bad bodies are 400 naming the field', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 0 });
  t.teardown(() => store.close());
  const cases: [unknown, RegExp][] = [
    [[], /must be an object with "collection", "query"/],
    [{ query: 'x' }, /collection is required/],
    [{ collection: 'c' }, /query is required/],
    [{ collection: 'c', query: 'x', limit: -1 }, /limit must be/],
    [{ collection: 'c', query: 'x', limit: 1.5 }, /limit must be/],
    [{ collection: 'c', query: 'x', vector: 'yes' }, /vector must be/],
    [{ collection: 'c', query: 'x', filter: {} }, /filter must be/],
    [{ collection: 'c', query: 'x', top_k: 3 }, /unknown field 'top_k'/],
  ];
  for (const [body, message] of cases) {
    const e = await t.throwsAsync(store.codeSearch(body as never));
    t.is((e as { status?: number }).status, 400, JSON.stringify(body));
    t.regex(e!.message, message);
  }
  t.is(((await t.throwsAsync(store.codeSearch(Buffer.from('{"collection": ')))) as { status?: number }).status, 400);
});
