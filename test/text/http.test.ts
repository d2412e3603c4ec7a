// The full-text routes over real HTTP (the CLI server): POST /collections/{name}/fts-schema,
// /text-search, /hybrid-search and /suggest end to end, every 400 the spec lists for them (each an
// {"error"} body naming the offending field, the store unchanged), and durability of acknowledged
// schemas and documents across SIGKILL.
import test, { type ExecutionContext } from 'ava';
import { type Answer, type Server, call, startServer, tempDir } from '../http/helpers';

// biome-ignore lint/suspicious/noExplicitAny: response JSON; each test reads the annotations it asserts
type Hit = { collection: string; id: string; score: number; attrs: Record<string, unknown>; annotations?: any };

let server: Server;

const DOCS = [
  {
    id: 'p1',
    vector: [1, 0, 0, 0],
    attrs: { body: { Str: 'Running shoes for trail runners' }, title: { Str: 'Shoes' }, n: { Int: 1 }, ts: { DateTime: 1000 } },
  },
  { id: 'p2', vector: [0.9, 0.1, 0, 0], attrs: { body: { Str: 'A quiet café by the river' }, title: { Str: 'Café' }, n: { Int: 2 }, ts: { DateTime: 2000 } } },
  {
    id: 'p3',
    vector: [0, 1, 0, 0],
    attrs: { body: { Str: 'The runner runs along the river' }, title: { Str: 'River run' }, n: { Int: 3 }, ts: { DateTime: 3000 } },
  },
  { id: 'p4', attrs: { body: { Str: 'Text only: rivers and running water' }, n: { Int: 4 } } },
];

test.before(async () => {
  server = await startServer();
  await call(server, 'POST', '/collections/docs/upsert', { records: DOCS });
  const r = await call(server, 'POST', '/collections/docs/fts-schema', {
    fields: ['title', { field: 'body', k1: 1.2, b: 0.75, language: 'english', ascii_folding: true, max_token_len: 40 }],
  });
  if (r.status !== 200) throw new Error(`fts-schema failed: ${r.status} ${r.text}`);
  await call(server, 'PUT', '/aliases/docs_alias', { target: 'docs' });
});
test.after.always(() => server?.stop());

/** What must not move when a request is refused. */
async function snapshot() {
  const [records, versions, search] = await Promise.all([
    call(server, 'GET', '/collections/docs/records'),
    call(server, 'GET', '/versions'),
    call(server, 'POST', '/text-search', {
      clauses: [
        { field: 'body', query: 'river running' },
        { field: 'title', query: 'river shoes' },
      ],
    }),
  ]);
  return { records: records.text, version: versions.json.commit_version, search: search.text };
}

/** A 400 whose body is exactly {"error": <string>} matching every pattern (the field it names). */
function isError(t: ExecutionContext, r: Answer, patterns: RegExp[], label: string) {
  t.is(r.status, 400, `${label}: ${r.text}`);
  t.deepEqual(Object.keys(r.json ?? {}), ['error'], `${label}: {error} body`);
  for (const p of patterns) if (typeof r.json?.error === 'string') t.regex(r.json.error, p, `${label}: names the field`);
}

async function refused(t: ExecutionContext, path: string, cases: [string, string, RegExp[]][]) {
  const before = await snapshot();
  for (const [label, body, patterns] of cases) isError(t, await call(server, 'POST', path, body), patterns, `${path} ${label}`);
  t.deepEqual(await snapshot(), before, `${path}: the store is unchanged`);
}

// ---- end to end -------------------------------------------------------------------------------------

test.serial('POST /collections/{name}/fts-schema answers {ok: true}', async (t) => {
  await call(server, 'POST', '/collections/fresh', {});
  const r = await call(server, 'POST', '/collections/fresh/fts-schema', { fields: ['body'] });
  t.is(r.status, 200);
  t.deepEqual(r.json, { ok: true });
  t.deepEqual((await call(server, 'POST', '/collections/fresh/fts-schema', { fields: [] })).json, { ok: true }, 'dropping');
});

test.serial('POST /collections/{name}/fts-schema on a missing collection is 404', async (t) => {
  const r = await call(server, 'POST', '/collections/ghost/fts-schema', { fields: ['body'] });
  t.is(r.status, 404);
  t.is(typeof r.json?.error, 'string');
});

test.serial('POST /text-search returns hits shaped like /search, ranked by BM25 (score desc, collection, id)', async (t) => {
  const r = await call(server, 'POST', '/text-search', { field: 'body', query: 'running' });
  t.is(r.status, 200);
  const hits = r.json as Hit[];
  t.deepEqual(hits.map((h) => h.id).sort(), ['p1', 'p3', 'p4']);
  for (let i = 1; i < hits.length; i++) t.true(hits[i - 1].score >= hits[i].score);
  const p1 = hits.find((h) => h.id === 'p1')!;
  t.deepEqual(Object.keys(p1).sort(), ['attrs', 'collection', 'id', 'score']);
  t.is(p1.collection, 'docs');
  t.deepEqual(p1.attrs.n, { Int: 1 });
  t.true(p1.score > 0);
  t.false('vector' in p1);
});

test.serial('POST /text-search: clauses, combine, folding, prefix, explain and highlight over the wire', async (t) => {
  const folded = await call(server, 'POST', '/text-search', { field: 'body', query: 'CAFE' });
  t.deepEqual(
    (folded.json as Hit[]).map((h) => h.id),
    ['p2'],
    'body folds',
  );
  t.deepEqual((await call(server, 'POST', '/text-search', { field: 'title', query: 'CAFE' })).json, [], 'title does not');
  const r = await call(server, 'POST', '/text-search', {
    clauses: [
      { field: 'title', query: 'riv', prefix: true },
      { field: 'body', query: 'river' },
    ],
    combine: 'Max',
    explain: true,
    highlight: { max_fragments: 2, fragment_chars: 50 },
    exclude_attributes: ['body'],
  });
  t.is(r.status, 200);
  const hits = r.json as Hit[];
  const p3 = hits.find((h) => h.id === 'p3')!;
  t.deepEqual(
    p3.annotations.clauses.map((c: { field: string }) => c.field),
    ['title', 'body'],
  );
  t.deepEqual(p3.annotations.clauses[0].expansion, { matched: 1, scored: 1 });
  const best = Math.max(...p3.annotations.clauses.map((c: { score: number }) => c.score));
  t.true(Math.abs(p3.score - best) <= 1e-4 * best, 'combine Max');
  t.false('body' in p3.attrs);
  const bodyHl = p3.annotations.highlights.find((h: { field: string }) => h.field === 'body');
  const f = bodyHl.fragments[0];
  t.deepEqual(
    f.spans.map(([s, e]: [number, number]) => Buffer.from(f.text).subarray(s, e).toString()),
    ['river'],
  );
  const p2 = hits.find((h) => h.id === 'p2')!;
  t.deepEqual(
    p2.annotations.clauses.map((c: { field: string }) => c.field),
    ['body'],
  );
});

test.serial('POST /hybrid-search fuses the vector and text legs with RRF', async (t) => {
  const r = await call(server, 'POST', '/hybrid-search', { vector: [1, 0, 0, 0], field: 'body', text: 'river', explain: true });
  t.is(r.status, 200);
  const hits = r.json as Hit[];
  t.deepEqual(hits.map((h) => h.id).sort(), ['p1', 'p2', 'p3', 'p4']);
  for (const h of hits) {
    const a = h.annotations;
    const expected = (a.vector ? 1 / (60 + a.vector.rank + 1) : 0) + (a.text ? 1 / (60 + a.text.rank + 1) : 0);
    t.true(Math.abs(h.score - expected) <= 1e-4 * expected, `${h.id}: ${h.score} vs ${expected}`);
  }
  t.is(hits.find((h) => h.id === 'p4')!.annotations.vector, undefined, 'a text-only record comes from the text leg only');
  t.is(hits.find((h) => h.id === 'p1')!.annotations.text, undefined, 'p1 does not mention a river');
});

test.serial('POST /suggest completes surface words with their df', async (t) => {
  const r = await call(server, 'POST', '/suggest', { field: 'body', prefix: 'the RUN' });
  t.is(r.status, 200);
  t.deepEqual(r.json, {
    suggestions: [
      { term: 'running', df: 3 },
      { term: 'runs', df: 3 },
      { term: 'runner', df: 2 },
      { term: 'runners', df: 2 },
    ],
    matched: 4,
  });
  t.deepEqual((await call(server, 'POST', '/suggest', { field: 'body', prefix: 'ru', scope: ['nowhere'] })).json, { suggestions: [], matched: 0 });
  t.deepEqual((await call(server, 'POST', '/suggest', { field: 'nofield', prefix: 'ru' })).json, { suggestions: [], matched: 0 });
});

// ---- every listed 400 ---------------------------------------------------------------------------------

const DECAY = (extra: Record<string, unknown>) => JSON.stringify({ Decay: { field: 'ts', origin: 5000, ...extra } });

test.serial('/text-search: each invalid body is 400 naming the field', async (t) => {
  const q = '"field":"body","query":"river"';
  await refused(t, '/text-search', [
    ['empty clauses', '{"clauses":[]}', [/clauses/]],
    ['field+query with clauses', `{${q},"clauses":[{"field":"body","query":"river"}]}`, [/clauses/]],
    ['include and exclude', `{${q},"include_attributes":["n"],"exclude_attributes":["ts"]}`, [/include_attributes/, /exclude_attributes/]],
    ['offset + top_k > 10000', `{${q},"offset":9991,"top_k":10}`, [/10000/]],
    ['top_k > 10000', `{${q},"top_k":10001}`, [/10000/]],
    ['diversity 1.5', `{${q},"diversity":1.5}`, [/diversity/]],
    ['diversity -0.1', `{${q},"diversity":-0.1}`, [/diversity/]],
    ['diversity a string', `{${q},"diversity":"x"}`, [/diversity/]],
    ['rank_by scale 0', `{${q},"rank_by":${DECAY({ scale: 0 })}}`, [/scale/]],
    ['rank_by decay 1', `{${q},"rank_by":${DECAY({ decay: 1 })}}`, [/decay/]],
    ['rank_by lambda -1', `{${q},"rank_by":${DECAY({ lambda: -1 })}}`, [/lambda/]],
    ['rank_by not Decay', `{${q},"rank_by":{"Boost":{}}}`, [/Decay/]],
    ['limit_per max 0', `{${q},"limit_per":{"field":"n","max":0}}`, [/limit_per/]],
    ['unknown field', `{${q},"bogus":1}`, [/bogus/]],
    ['plan is not accepted', `{${q},"plan":true}`, [/plan/]],
    ['rerank without a provider', `{${q},"rerank":{"query":"river"}}`, [/rerank/]],
    ['query not a string', '{"field":"body","query":7}', [/query/]],
    ['top_k a string', `{${q},"top_k":"ten"}`, [/top_k/]],
    ['clauses not an array', '{"clauses":"body"}', [/clauses/]],
    ['clause without field', '{"clauses":[{"query":"river"}]}', [/field/]],
    ['clause prefix a string', '{"clauses":[{"field":"body","query":"river","prefix":"yes"}]}', [/prefix/]],
    ['65 clauses (at most 64)', JSON.stringify({ clauses: Array.from({ length: 65 }, () => ({ field: 'body', query: 'river' })) }), [/clauses/, /64/]],
    ['combine Min', `{${q},"combine":"Min"}`, [/combine/]],
    ['explain a string', `{${q},"explain":"yes"}`, [/explain/]],
    ['highlight max_fragments 0', `{${q},"highlight":{"max_fragments":0}}`, [/max_fragments/]],
    ['highlight fragment_chars 10001', `{${q},"highlight":{"fragment_chars":10001}}`, [/fragment_chars/]],
    ['min_score a string', `{${q},"min_score":"1"}`, [/min_score/]],
    ['filter invalid', `{${q},"filter":[{"Regex":["n","("]}]}`, [/Regex|filter/]],
    ['malformed JSON', `{${q},`, [/./]],
    ['not an object', '[1]', [/./]],
  ]);
});

test.serial('/hybrid-search: each invalid body is 400 naming the field', async (t) => {
  const v = '"vector":[1,0,0,0]';
  const q = `${v},"field":"body","text":"river"`;
  await refused(t, '/hybrid-search', [
    ['no vector', '{"field":"body","text":"river"}', [/vector/]],
    ['vector of the wrong length', '{"vector":[1,0],"field":"body","text":"river"}', [/vector/]],
    ['no text leg', `{${v}}`, [/text|clauses|field/]],
    ['empty clauses', `{${v},"clauses":[]}`, [/clauses/]],
    ['field+text with clauses', `{${q},"clauses":[{"field":"body","query":"river"}]}`, [/clauses/]],
    ['include and exclude', `{${q},"include_attributes":["n"],"exclude_attributes":["ts"]}`, [/include_attributes/, /exclude_attributes/]],
    ['offset + top_k > 10000', `{${q},"offset":9991,"top_k":10}`, [/10000/]],
    ['diversity 2', `{${q},"diversity":2}`, [/diversity/]],
    ['rank_by is not a hybrid field', `{${q},"rank_by":${DECAY({ decay: 0.5 })}}`, [/rank_by/]],
    ['rrf_k negative', `{${q},"rrf_k":-1}`, [/rrf_k/]],
    ['rrf_k a string', `{${q},"rrf_k":"60"}`, [/rrf_k/]],
    ['rrf_k non-finite', `{${q},"rrf_k":1e999}`, [/./]],
    ['vector_weight negative', `{${q},"vector_weight":-1}`, [/vector_weight/]],
    ['text_weight negative', `{${q},"text_weight":-0.001}`, [/text_weight/]],
    ['vector_weight null', `{${q},"vector_weight":null}`, [/vector_weight/]],
    ['text_weight a string', `{${q},"text_weight":"1"}`, [/text_weight/]],
    ['vector_weight non-finite', `{${q},"vector_weight":1e999}`, [/./]],
    ['text_weight non-finite', `{${q},"text_weight":-1e999}`, [/./]],
    ['candidates 0', `{${q},"candidates":0}`, [/candidates/]],
    ['candidates 10001', `{${q},"candidates":10001}`, [/candidates/]],
    ['min_score is not accepted', `{${q},"min_score":0}`, [/min_score/]],
    ['names are not accepted', `{${q},"names":["x"]}`, [/names/]],
    ['rerank without a provider', `{${q},"rerank":{"query":"river"}}`, [/rerank/]],
    ['unknown field', `{${q},"bogus":1}`, [/bogus/]],
    ['malformed JSON', `{${q}`, [/./]],
  ]);
});

test.serial('/hybrid-search on a dimension-0 store is 400 naming the vector', async (t) => {
  const kw = await startServer(['--dimension', '0']);
  t.teardown(() => kw.stop());
  await call(kw, 'POST', '/collections/k/upsert', { records: [{ id: 'a', attrs: { body: { Str: 'river' } } }] });
  t.deepEqual((await call(kw, 'POST', '/collections/k/fts-schema', { fields: ['body'] })).json, { ok: true });
  t.deepEqual(
    ((await call(kw, 'POST', '/text-search', { field: 'body', query: 'river' })).json as Hit[]).map((h) => h.id),
    ['a'],
    'text search works',
  );
  isError(t, await call(kw, 'POST', '/hybrid-search', { vector: [], field: 'body', text: 'river' }), [/vector/], 'empty vector');
  isError(t, await call(kw, 'POST', '/hybrid-search', { vector: [1, 0, 0, 0], field: 'body', text: 'river' }), [/vector/], 'a vector');
});

test.serial('/suggest: each invalid body is 400 naming the field', async (t) => {
  const q = '"field":"body","prefix":"ru"';
  await refused(t, '/suggest', [
    ['limit 10001', `{${q},"limit":10001}`, [/limit/]],
    ['limit negative', `{${q},"limit":-1}`, [/limit/]],
    ['limit a string', `{${q},"limit":"5"}`, [/limit/]],
    ['no field', '{"prefix":"ru"}', [/field/]],
    ['no prefix', '{"field":"body"}', [/prefix/]],
    ['prefix a number', '{"field":"body","prefix":5}', [/prefix/]],
    ['fuzzy a string', `{${q},"fuzzy":"no"}`, [/fuzzy/]],
    ['scope a string', `{${q},"scope":"docs"}`, [/scope/]],
    ['filter invalid', `{${q},"filter":[{"Regex":["n","("]}]}`, [/Regex|filter/]],
    ['unknown field', `{${q},"bogus":1}`, [/bogus/]],
    ['malformed JSON', `{${q}`, [/./]],
  ]);
  t.is((await call(server, 'POST', '/suggest', `{${q},"limit":10000}`)).status, 200);
});

test.serial('/collections/{name}/fts-schema: each invalid declaration is 400 naming the field, and the schema is unchanged', async (t) => {
  const path = '/collections/docs/fts-schema';
  await refused(t, path, [
    ['missing fields', '{}', [/fields/]],
    ['fields not an array', '{"fields":{"field":"body"}}', [/fields/]],
    ['entry without a field name', '{"fields":[{"k1":1.2}]}', [/field/]],
    ['entry of the wrong type', '{"fields":[true]}', [/fields/]],
    ['field declared twice', '{"fields":["body","body"]}', [/body/]],
    ['unknown key', '{"fields":[{"field":"body","boost":2}]}', [/boost/]],
    ['unknown top-level key', '{"fields":["body"],"bogus":1}', [/bogus/]],
    ['k1 negative', '{"fields":[{"field":"body","k1":-1}]}', [/k1/]],
    ['k1 a string', '{"fields":[{"field":"body","k1":"1.2"}]}', [/k1/]],
    ['k1 non-finite', '{"fields":[{"field":"body","k1":1e999}]}', [/./]],
    ['k1 above 1000', '{"fields":[{"field":"body","k1":1e308}]}', [/k1/, /1000/]],
    ['fields sent twice', '{"fields":["body"],"fields":["title"]}', [/fields/, /twice/]],
    ['b above 1', '{"fields":[{"field":"body","b":1.5}]}', [/\bb\b/]],
    ['b below 0', '{"fields":[{"field":"body","b":-0.1}]}', [/\bb\b/]],
    ['language french', '{"fields":[{"field":"body","language":"french"}]}', [/language/]],
    ['ascii_folding a string', '{"fields":[{"field":"body","ascii_folding":"true"}]}', [/ascii_folding/]],
    ['max_token_len 0', '{"fields":[{"field":"body","max_token_len":0}]}', [/max_token_len/]],
    ['max_token_len fractional', '{"fields":[{"field":"body","max_token_len":1.5}]}', [/max_token_len/]],
    ['max_token_len negative', '{"fields":[{"field":"body","max_token_len":-3}]}', [/max_token_len/]],
    ['malformed JSON', '{"fields":[', [/./]],
  ]);
  const before = await snapshot();
  isError(t, await call(server, 'POST', '/collections/docs_alias/fts-schema', { fields: ['body'] }), [/alias/], 'alias');
  t.deepEqual(await snapshot(), before);
});

// ---- durability ----------------------------------------------------------------------------------------

test('acknowledged fts-schema declarations and documents survive SIGKILL; search works after restart', async (t) => {
  const data = tempDir();
  const first = await startServer(['--data', data]);
  const ok = (r: Answer) => t.is(r.status, 200, r.text);
  // a: data first, then the schema, then more data (indexed on commit).
  ok(await call(first, 'POST', '/collections/a/upsert', { records: DOCS.slice(0, 2) }));
  t.deepEqual((await call(first, 'POST', '/collections/a/fts-schema', { fields: [{ field: 'body', k1: 1.6, b: 0.5 }] })).json, { ok: true });
  ok(await call(first, 'POST', '/collections/a/upsert', { records: DOCS.slice(2) }));
  // b: declared, then redeclared; only the second declaration should survive.
  ok(await call(first, 'POST', '/collections/b/upsert', { records: DOCS }));
  ok(await call(first, 'POST', '/collections/b/fts-schema', { fields: ['title'] }));
  ok(await call(first, 'POST', '/collections/b/fts-schema', { fields: ['body', 'title'] }));
  // c: declared, then dropped.
  ok(await call(first, 'POST', '/collections/c/upsert', { records: DOCS }));
  ok(await call(first, 'POST', '/collections/c/fts-schema', { fields: ['body'] }));
  ok(await call(first, 'POST', '/collections/c/fts-schema', { fields: [] }));
  const queries = [
    ['/text-search', { field: 'body', query: 'river running', top_k: 20 }],
    [
      '/text-search',
      {
        clauses: [
          { field: 'title', query: 'river' },
          { field: 'body', query: 'run' },
        ],
        explain: true,
        top_k: 20,
      },
    ],
    ['/hybrid-search', { vector: [1, 0, 0, 0], field: 'body', text: 'runner', top_k: 20 }],
    ['/suggest', { field: 'body', prefix: 'ri' }],
  ] as const;
  const before = await Promise.all(queries.map(([path, body]) => call(first, 'POST', path, body)));
  t.true((before[0].json as Hit[]).some((h) => h.collection === 'a') && (before[0].json as Hit[]).some((h) => h.collection === 'b'));
  t.false(
    (before[0].json as Hit[]).some((h) => h.collection === 'c'),
    'c was dropped',
  );
  t.is(await first.stop('SIGKILL'), null);

  const second = await startServer(['--data', data]);
  t.teardown(() => second.stop());
  const after = await Promise.all(queries.map(([path, body]) => call(second, 'POST', path, body)));
  for (let i = 0; i < queries.length; i++) {
    t.is(after[i].status, 200, `${queries[i][0]} after restart`);
    t.deepEqual(after[i].json, before[i].json, `${queries[i][0]} ${JSON.stringify(queries[i][1])} answers as before`);
  }
  // Writes after the restart are indexed too.
  ok(await call(second, 'POST', '/collections/a/upsert', { records: [{ id: 'late', attrs: { body: { Str: 'late river' } } }] }));
  t.true(((await call(second, 'POST', '/text-search', { field: 'body', query: 'late', scope: ['a'] })).json as Hit[]).some((h) => h.id === 'late'));
});
