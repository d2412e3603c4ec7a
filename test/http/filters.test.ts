// Filters over real HTTP: validation (400 before any row is read), filters applying before
// scoring, delete with a filter, filter-index declarations, and Int64 exactness on the wire.
import test, { type ExecutionContext } from 'ava';
import { type Answer, type Server, call, prng, startServer, tempDir, unitRecords } from './helpers';

let server: Server;

const MAX = '9223372036854775807';
const MAX_1 = '9223372036854775806';

const WORDS = ['alpha', 'beta', 'gamma', 'run', 'running', 'fox', 'quick', 'brown', 'lazy', 'dog', 'trail', 'shoe', 'Fox', 'QUICK', 'x1', 'b2b'];

/** Records with a text attr, a List attr and a low-cardinality Str, for the filter-index comparison. */
function textRecords(n: number, seed: number, prefix: string) {
  const rand = prng(seed);
  const word = () => WORDS[Math.floor(rand() * WORDS.length)];
  return unitRecords(n, 4, rand, prefix).map((r, i) => {
    const attrs: Record<string, unknown> = {
      title: { Str: Array.from({ length: 1 + Math.floor(rand() * 5) }, word).join(rand() < 0.5 ? ' ' : '-') },
      tags: { List: Array.from({ length: Math.floor(rand() * 3) }, word) },
      g: { Str: ['x', 'y', 'z'][i % 3] },
    };
    if (i % 7 === 0) delete attrs.title; // records lacking the key match no leaf
    if (i % 11 === 0) attrs.title = 'Null';
    return { ...r, attrs };
  });
}

test.before(async () => {
  server = await startServer();
  // kept: the collection whose bytes must not move when a request is refused.
  const kept = unitRecords(6, 4, prng(3), 'k').map((r, i) => ({ ...r, attrs: { t: { Str: `quick brown fox ${i}` }, n: { Int: i } } }));
  kept.push({ id: 'textonly', attrs: { t: { Str: 'no vector here' }, n: { Int: 99 } } } as never);
  await call(server, 'POST', '/collections/kept/upsert', { records: kept });
  await call(server, 'PUT', '/aliases/kept_alias', { target: 'kept' });
});
test.after.always(() => server?.stop());

/** Everything a refused request must leave alone. */
async function snapshot() {
  const [collections, records, versions, aliases] = await Promise.all([
    call(server, 'GET', '/collections'),
    call(server, 'GET', '/collections/kept/records'),
    call(server, 'GET', '/versions'),
    call(server, 'GET', '/aliases'),
  ]);
  return { collections: collections.text, records: records.text, version: versions.json.commit_version, aliases: aliases.text };
}

function isError(t: ExecutionContext, r: Answer, status: number, message: RegExp, label: string) {
  t.is(r.status, status, `${label}: ${r.text}`);
  t.is(typeof r.json?.error, 'string', `${label}: error body`);
  t.deepEqual(Object.keys(r.json ?? {}), ['error'], `${label}: only {error}`);
  if (typeof r.json?.error === 'string') t.regex(r.json.error, message, label);
}

/** The same filter on every route that takes one: search, similar, batch leg, list, aggregate, delete. */
function everyFilterRoute(filter: unknown): [string, string, unknown][] {
  return [
    ['POST', '/search', { query: [1, 0, 0, 0], filter }],
    ['POST', '/search/similar', { collection: 'kept', id: 'k0', filter }],
    ['POST', '/search/batch', { queries: [{ query: [1, 0, 0, 0] }, { query: [0, 1, 0, 0], filter }] }],
    ['POST', '/list', { filter }],
    ['POST', '/aggregate', { filter, sum: ['n'] }],
    ['POST', '/collections/kept/delete', { ids: ['k0'], filter }],
  ];
}

async function refusedEverywhere(t: ExecutionContext, filter: unknown, message: RegExp) {
  const before = await snapshot();
  for (const [method, path, body] of everyFilterRoute(filter))
    isError(t, await call(server, method, path, body), 400, message, `${path} ${JSON.stringify(filter)}`);
  t.deepEqual(await snapshot(), before, 'store unchanged');
}

// ---- Rule 4: an invalid predicate is 400 before any row is scanned, on every route ----

test.serial('invalid predicate: an unparseable Regex is 400 on every filter route and changes nothing', async (t) => {
  await refusedEverywhere(t, [{ Regex: ['t', '(unclosed'] }], /Regex/);
});

test.serial('invalid predicate: a Fuzzy budget of 9 is 400 (not clamped) on every filter route', async (t) => {
  await refusedEverywhere(t, [{ Fuzzy: ['t', 'fox', 9] }], /Fuzzy/);
});

test.serial('invalid predicate: an unknown variant is 400 naming it on every filter route', async (t) => {
  await refusedEverywhere(t, [{ Matches: ['t', 'fox'] }], /Matches/);
});

test.serial('invalid predicate: wrong arity (too few and too many arguments) is 400 on every filter route', async (t) => {
  await refusedEverywhere(t, [{ Eq: ['t'] }], /Eq/);
  await refusedEverywhere(t, [{ Eq: ['n', { Int: 1 }, { Int: 2 }] }], /Eq/);
  await refusedEverywhere(t, [{ Fuzzy: ['t', 'fox'] }], /Fuzzy/);
});

test.serial('invalid predicate nested inside All/Any/Not is 400 too', async (t) => {
  await refusedEverywhere(t, [{ Any: [{ Eq: ['n', { Int: 1 }] }, { Not: { Regex: ['t', '[z-a]'] } }] }], /Regex/);
});

test.serial('an invalid predicate is refused even when the scope holds no rows', async (t) => {
  const r = await call(server, 'POST', '/list', { scope: ['no_such_collection'], filter: [{ Regex: ['t', '('] }] });
  isError(t, r, 400, /Regex/, 'empty scope');
});

test.serial('the largest valid Fuzzy budget (8) and a parseable Regex are accepted', async (t) => {
  t.is((await call(server, 'POST', '/list', { filter: [{ Fuzzy: ['t', 'fox', 8] }] })).status, 200);
  t.is((await call(server, 'POST', '/list', { filter: [{ Regex: ['t', '(?i)QUICK.*'] }] })).status, 200);
});

// ---- Filters apply before scoring ----

async function needleCollection(name: string) {
  const near = unitRecords(300, 4, prng(7), 'near').map((r) => ({ ...r, vector: [1, r.vector[1] * 0.01, r.vector[2] * 0.01, r.vector[3] * 0.01] }));
  const needle = { id: 'needle', vector: [0, 0, 0, 1], attrs: { tag: { Str: 'rare' } } };
  const r = await call(server, 'POST', `/collections/${name}/upsert`, { records: [...near, needle] });
  if (r.status !== 200) throw new Error(r.text);
}

test('/search: a filter applies before scoring, so a far match still fills top_k', async (t) => {
  await needleCollection('needle_search');
  const r = await call(server, 'POST', '/search', { query: [1, 0, 0, 0], scope: ['needle_search'], top_k: 1, filter: [{ Eq: ['tag', { Str: 'rare' }] }] });
  t.is(r.status, 200);
  t.deepEqual(
    r.json.map((h: { id: string }) => h.id),
    ['needle'],
  );
  // The score is the metric's, unaffected by the filter.
  const all = await call(server, 'POST', '/search', { query: [1, 0, 0, 0], scope: ['needle_search'], top_k: 1000 });
  t.is(all.json.at(-1).id, 'needle');
  t.is(r.json[0].score, all.json.at(-1).score);
});

test('/search: offset pages through the filtered ranking, not the unfiltered one', async (t) => {
  await needleCollection('needle_offset');
  const filter = [{ Any: [{ Eq: ['tag', { Str: 'rare' }] }, { In: ['tag', [{ Str: 'nope' }]] }] }];
  const first = await call(server, 'POST', '/search', { query: [1, 0, 0, 0], scope: ['needle_offset'], top_k: 1, filter });
  const second = await call(server, 'POST', '/search', { query: [1, 0, 0, 0], scope: ['needle_offset'], top_k: 1, offset: 1, filter });
  t.deepEqual(
    first.json.map((h: { id: string }) => h.id),
    ['needle'],
  );
  t.deepEqual(second.json, []);
});

test('/search/similar: a filter applies before scoring', async (t) => {
  await needleCollection('needle_similar');
  const r = await call(server, 'POST', '/search/similar', { collection: 'needle_similar', id: 'near0', top_k: 1, filter: [{ Eq: ['tag', { Str: 'rare' }] }] });
  t.is(r.status, 200, r.text);
  t.deepEqual(
    r.json.map((h: { id: string }) => h.id),
    ['needle'],
  );
});

test('/search/batch: each leg applies its own filter before scoring', async (t) => {
  await needleCollection('needle_batch');
  const leg = { query: [1, 0, 0, 0], scope: ['needle_batch'], top_k: 1 };
  const r = await call(server, 'POST', '/search/batch', { queries: [leg, { ...leg, filter: [{ Eq: ['tag', { Str: 'rare' }] }] }] });
  t.is(r.status, 200, r.text);
  t.not(r.json.results[0][0].id, 'needle');
  t.deepEqual(
    r.json.results[1].map((h: { id: string }) => h.id),
    ['needle'],
  );
});

test('filter: an empty array matches everything', async (t) => {
  await needleCollection('needle_empty');
  const withEmpty = await call(server, 'POST', '/search', { query: [1, 0, 0, 0], scope: ['needle_empty'], top_k: 500, filter: [] });
  const without = await call(server, 'POST', '/search', { query: [1, 0, 0, 0], scope: ['needle_empty'], top_k: 500 });
  t.is(withEmpty.json.length, 301);
  t.is(withEmpty.text, without.text);
});

// ---- Delete with a filter ----

async function deleteFixture(name: string) {
  const records = ['a', 'b', 'c', 'd'].map((id, i) => ({ id, vector: [1, i, 0, 0], attrs: { color: { Str: i % 2 ? 'blue' : 'red' } } }));
  const r = await call(server, 'POST', `/collections/${name}/upsert`, { records });
  if (r.status !== 200) throw new Error(r.text);
  return async () => ((await call(server, 'GET', `/collections/${name}/records`)).json as { id: string }[]).map((r) => r.id).sort();
}

test('delete with filter: the filter wins over ids and the answer is {deleted}', async (t) => {
  const ids = await deleteFixture('del_wins');
  const r = await call(server, 'POST', '/collections/del_wins/delete', { ids: ['a', 'c'], filter: [{ Eq: ['color', { Str: 'blue' }] }] });
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json, { deleted: 2 });
  t.deepEqual(await ids(), ['a', 'c']);
});

test('delete with filter: an empty filter deletes every record of that collection only', async (t) => {
  const ids = await deleteFixture('del_all');
  const other = await deleteFixture('del_all_other');
  t.deepEqual((await call(server, 'POST', '/collections/del_all/delete', { filter: [] })).json, { deleted: 4 });
  t.deepEqual(await ids(), []);
  t.deepEqual(await other(), ['a', 'b', 'c', 'd']);
});

test('delete with filter: a filter matching nothing deletes nothing, even with ids', async (t) => {
  const ids = await deleteFixture('del_none');
  t.deepEqual((await call(server, 'POST', '/collections/del_none/delete', { ids: ['a'], filter: [{ Eq: ['color', { Str: 'green' }] }] })).json, { deleted: 0 });
  t.deepEqual(await ids(), ['a', 'b', 'c', 'd']);
});

test('delete with filter: an alias resolves to its collection', async (t) => {
  const ids = await deleteFixture('del_aliased');
  t.is((await call(server, 'PUT', '/aliases/del_alias', { target: 'del_aliased' })).status, 200);
  t.deepEqual((await call(server, 'POST', '/collections/del_alias/delete', { filter: [{ Eq: ['color', { Str: 'red' }] }] })).json, { deleted: 2 });
  t.deepEqual(await ids(), ['b', 'd']);
});

test('delete with filter: deleted records leave search, list and aggregate', async (t) => {
  await deleteFixture('del_reads');
  await call(server, 'POST', '/collections/del_reads/delete', { filter: [{ Eq: ['color', { Str: 'red' }] }] });
  const hits = await call(server, 'POST', '/search', { query: [1, 0, 0, 0], scope: ['del_reads'] });
  t.deepEqual(hits.json.map((h: { id: string }) => h.id).sort(), ['b', 'd']);
  t.deepEqual(
    (await call(server, 'POST', '/list', { scope: ['del_reads'] })).json.map((h: { id: string }) => h.id),
    ['b', 'd'],
  );
  t.is((await call(server, 'POST', '/aggregate', { scope: ['del_reads'] })).json.count, 2);
});

test('delete with filter: a null filter is not a match-all filter (ids still decide, or the body is refused)', async (t) => {
  // Spec: the body is {ids?, filter?}; filter wins only when present. JSON null is no filter at all
  // (or an invalid one): it must never widen a delete by ids into a delete of the whole collection.
  const ids = await deleteFixture('del_null');
  const withIds = await call(server, 'POST', '/collections/del_null/delete', { ids: ['a'], filter: null });
  if (withIds.status === 200) {
    t.deepEqual(withIds.json, { deleted: 1 }, '{ids: ["a"], filter: null} deletes a only');
    t.deepEqual(await ids(), ['b', 'c', 'd']);
  } else {
    isError(t, withIds, 400, /filter/, '{ids, filter: null}');
    t.deepEqual(await ids(), ['a', 'b', 'c', 'd']);
  }
  const before = await ids();
  const alone = await call(server, 'POST', '/collections/del_null/delete', { filter: null });
  if (alone.status === 200) t.deepEqual(alone.json, { deleted: 0 }, '{filter: null} deletes nothing');
  else isError(t, alone, 400, /filter|ids/, '{filter: null}');
  t.deepEqual(await ids(), before);
});

test('delete with filter on a missing collection is 404 with an error body', async (t) => {
  isError(t, await call(server, 'POST', '/collections/del_missing/delete', { filter: [] }), 404, /del_missing/, 'missing');
});

// ---- Filter-index declarations ----

test.serial('filter-index: an entry with both structures off is 400 and changes nothing', async (t) => {
  const before = await snapshot();
  isError(
    t,
    await call(server, 'POST', '/collections/kept/filter-index', { fields: ['t', { field: 'n', tokens: false, trigrams: false }] }),
    400,
    /fields\[1\]/,
    'both off',
  );
  t.deepEqual(await snapshot(), before);
});

test.serial('filter-index: an alias is 400 (structural route)', async (t) => {
  const before = await snapshot();
  isError(t, await call(server, 'POST', '/collections/kept_alias/filter-index', { fields: ['t'] }), 400, /alias/, 'alias');
  t.deepEqual(await snapshot(), before);
});

test.serial('filter-index: a missing collection is 404', async (t) => {
  const before = await snapshot();
  isError(t, await call(server, 'POST', '/collections/fi_missing/filter-index', { fields: ['t'] }), 404, /fi_missing/, 'missing');
  t.deepEqual(await snapshot(), before);
});

test.serial('filter-index: malformed bodies are 400 naming the problem', async (t) => {
  const before = await snapshot();
  const cases: [unknown, RegExp][] = [
    [{}, /fields/],
    [{ fields: 't' }, /fields/],
    [{ fields: [7] }, /fields\[0\]/],
    [{ fields: [{ tokens: true }] }, /fields\[0\]/],
    [{ fields: [{ field: 't', extra: 1 }] }, /extra/],
    [{ fields: [{ field: 't', tokens: 'yes' }] }, /tokens/],
    ['{"fields": [', /JSON|malformed|parse/i],
    ['null', /object/],
  ];
  for (const [body, message] of cases) isError(t, await call(server, 'POST', '/collections/kept/filter-index', body), 400, message, JSON.stringify(body));
  t.deepEqual(await snapshot(), before);
});

test('filter-index: a declaration answers {ok: true} and an empty fields list drops it', async (t) => {
  await call(server, 'POST', '/collections/fi_ok');
  t.deepEqual(
    (await call(server, 'POST', '/collections/fi_ok/filter-index', { fields: ['title', { field: 'tags', trigrams: false }, { field: 'g', tokens: false }] }))
      .json,
    { ok: true },
  );
  t.deepEqual((await call(server, 'POST', '/collections/fi_ok/filter-index', { fields: ['title'] })).json, { ok: true }, 'redeclaring replaces');
  t.deepEqual((await call(server, 'POST', '/collections/fi_ok/filter-index', { fields: [] })).json, { ok: true });
});

/** Text filters the index serves (tokens: the token family; trigrams: Fuzzy and Regex), and some it does not. */
function indexFilters(): unknown[][] {
  const rand = prng(11);
  const word = () => WORDS[Math.floor(rand() * WORDS.length)];
  const out: unknown[][] = [
    [{ ContainsAllTokens: ['title', 'quick fox'] }],
    [{ ContainsAnyToken: ['tags', 'run trail'] }],
    [{ ContainsTokenSequence: ['title', 'brown fox'] }],
    [{ ContainsAllTokens: ['title', 'run'] }],
    [{ Fuzzy: ['title', 'runing', 1] }],
    [{ Fuzzy: ['tags', 'quik', 2] }],
    [{ Regex: ['title', '.*qu[a-z]+k.*'] }],
    [{ Regex: ['title', '(?i).*fox.*'] }],
    [{ Regex: ['title', 'a.*'] }],
    [{ Not: { ContainsAnyToken: ['title', 'dog'] } }],
    [{ Any: [{ ContainsAllTokens: ['title', 'x1'] }, { Fuzzy: ['title', 'b2b', 0] }] }],
    [{ ContainsAllTokens: ['title', 'b2b'] }, { Eq: ['g', { Str: 'x' }] }],
    [{ ContainsAnyToken: ['title', ''] }],
    [{ Glob: ['title', '*fox*'] }],
  ];
  for (let i = 0; i < 30; i++) {
    const pick = Math.floor(rand() * 6);
    const key = rand() < 0.6 ? 'title' : 'tags';
    if (pick === 0) out.push([{ ContainsAllTokens: [key, `${word()} ${word()}`] }]);
    else if (pick === 1) out.push([{ ContainsAnyToken: [key, `${word()} ${word()}`] }]);
    else if (pick === 2) out.push([{ ContainsTokenSequence: [key, `${word()} ${word()}`] }]);
    else if (pick === 3) out.push([{ Fuzzy: [key, word(), Math.floor(rand() * 3)] }]);
    else if (pick === 4) out.push([{ Regex: [key, `.*${word().slice(0, 3)}.*`] }]);
    else out.push([{ Not: { ContainsAllTokens: [key, word()] } }]);
  }
  return out;
}

/** Every filter's /list page and /search ranking, as the raw response text. */
async function readAll(name: string, filters: unknown[][]): Promise<string[]> {
  const out: string[] = [];
  for (const filter of filters) {
    const list = await call(server, 'POST', '/list', { scope: [name], filter, limit: 10_000 });
    const search = await call(server, 'POST', '/search', { query: [1, 0, 0, 0], scope: [name], filter, top_k: 100 });
    if (list.status !== 200 || search.status !== 200) throw new Error(`${JSON.stringify(filter)}: ${list.text} ${search.text}`);
    out.push(list.text, search.text);
  }
  return out;
}

test('filter-index: declaring never changes results (byte-for-byte /list and /search, before and after, sealed and in-memory rows)', async (t) => {
  const name = 'fi_same';
  const filters = indexFilters();
  t.is((await call(server, 'POST', `/collections/${name}/upsert`, { records: textRecords(400, 5, 's') })).status, 200);
  t.is((await call(server, 'POST', '/flush')).status, 200);
  const without = await readAll(name, filters);
  for (const kind of ['ContainsAllTokens', 'ContainsAnyToken', 'ContainsTokenSequence', 'Fuzzy', 'Regex']) {
    const selecting = filters.filter((f, i) => JSON.stringify(f).includes(kind) && without[2 * i] !== '[]');
    t.true(selecting.length > 0, `some ${kind} filter selects rows, so the index has work to do`);
  }

  t.deepEqual((await call(server, 'POST', `/collections/${name}/filter-index`, { fields: ['title', { field: 'tags', trigrams: false }] })).json, { ok: true });
  t.is((await call(server, 'POST', '/flush')).status, 200);
  const declared = await readAll(name, filters);
  for (let i = 0; i < filters.length * 2; i++) t.is(declared[i], without[i], `${JSON.stringify(filters[i >> 1])} (${i % 2 ? 'search' : 'list'})`);

  // Rows written after the declaration (still in memory) and a filter-delete over indexed rows.
  t.is((await call(server, 'POST', `/collections/${name}/upsert`, { records: textRecords(150, 6, 'm') })).status, 200);
  t.is((await call(server, 'POST', `/collections/${name}/delete`, { filter: [{ ContainsAnyToken: ['title', 'lazy'] }] })).status, 200);
  const mixed = await readAll(name, filters);
  t.is((await call(server, 'POST', '/flush')).status, 200);
  const mixedFlushed = await readAll(name, filters);
  t.deepEqual((await call(server, 'POST', `/collections/${name}/filter-index`, { fields: [] })).json, { ok: true });
  const dropped = await readAll(name, filters);
  for (let i = 0; i < filters.length * 2; i++) {
    t.is(mixedFlushed[i], mixed[i], `after flush: ${JSON.stringify(filters[i >> 1])} (${i % 2 ? 'search' : 'list'})`);
    t.is(dropped[i], mixed[i], `declaration dropped: ${JSON.stringify(filters[i >> 1])} (${i % 2 ? 'search' : 'list'})`);
  }
});

test('filter-index: a filter-delete by token predicate removes the same rows with and without the index', async (t) => {
  const records = textRecords(200, 9, 'd');
  for (const name of ['fi_del_plain', 'fi_del_indexed']) t.is((await call(server, 'POST', `/collections/${name}/upsert`, { records })).status, 200);
  t.is((await call(server, 'POST', '/flush')).status, 200);
  t.is((await call(server, 'POST', '/collections/fi_del_indexed/filter-index', { fields: ['title'] })).status, 200);
  t.is((await call(server, 'POST', '/flush')).status, 200);
  const filter = [{ Any: [{ ContainsAllTokens: ['title', 'fox'] }, { Fuzzy: ['title', 'trial', 2] }] }];
  const plain = await call(server, 'POST', '/collections/fi_del_plain/delete', { filter });
  const indexed = await call(server, 'POST', '/collections/fi_del_indexed/delete', { filter });
  t.true(plain.json.deleted > 0);
  t.deepEqual(indexed.json, plain.json);
  const ids = async (name: string) => (await call(server, 'GET', `/collections/${name}/records`)).json.map((r: { id: string }) => r.id).sort();
  t.deepEqual(await ids('fi_del_indexed'), await ids('fi_del_plain'));
});

test('filter-index: a declaration survives a restart and still never changes results', async (t) => {
  const data = tempDir();
  let s = await startServer(['--data', data]);
  t.teardown(() => s.stop());
  const filters = indexFilters().slice(0, 20);
  const read = async () => {
    const out: string[] = [];
    for (const filter of filters) out.push((await call(s, 'POST', '/list', { scope: ['kept_fi'], filter, limit: 10_000 })).text);
    return out;
  };
  t.is((await call(s, 'POST', '/collections/kept_fi/upsert', { records: textRecords(300, 12, 'p') })).status, 200);
  t.is((await call(s, 'POST', '/flush')).status, 200);
  const without = await read();
  t.deepEqual((await call(s, 'POST', '/collections/kept_fi/filter-index', { fields: ['title', 'tags'] })).json, { ok: true });
  t.is((await call(s, 'POST', '/flush')).status, 200);
  t.is(await s.stop('SIGTERM'), 0);
  s = await startServer(['--data', data]);
  const reopened = await read();
  for (let i = 0; i < filters.length; i++) t.is(reopened[i], without[i], JSON.stringify(filters[i]));
});

// ---- Int64 exactness over HTTP ----

async function int64Collection(name: string) {
  const body = `{"records":[
    {"id":"max","vector":[1,0,0,0],"attrs":{"n":{"Int":${MAX}},"d":{"DateTime":${MAX}}}},
    {"id":"max1","vector":[0.9,0.1,0,0],"attrs":{"n":{"Int":${MAX_1}},"d":{"DateTime":${MAX_1}}}},
    {"id":"min","vector":[0.8,0.2,0,0],"attrs":{"n":{"Int":-9223372036854775808}}},
    {"id":"p53","vector":[0.7,0.3,0,0],"attrs":{"n":{"Int":9007199254740993}}}]}`;
  const r = await call(server, 'POST', `/collections/${name}/upsert`, body);
  if (r.status !== 200) throw new Error(r.text);
}

const ids = (r: Answer) => (r.json as { id: string }[]).map((h) => h.id);

test('Int64: Eq on 9223372036854775807 and ...806 each selects exactly its record, on /search and /list', async (t) => {
  await int64Collection('i64_eq');
  for (const route of ['/search', '/list']) {
    const base = route === '/search' ? `"query":[1,0,0,0],` : '';
    const max = await call(server, 'POST', route, `{${base}"scope":["i64_eq"],"filter":[{"Eq":["n",{"Int":${MAX}}]}]}`);
    const max1 = await call(server, 'POST', route, `{${base}"scope":["i64_eq"],"filter":[{"Eq":["n",{"Int":${MAX_1}}]}]}`);
    t.deepEqual(ids(max), ['max'], route);
    t.deepEqual(ids(max1), ['max1'], route);
    t.true(max.text.includes(`{"Int":${MAX}}`), `${route}: the hit carries the exact digits`);
    t.true(max1.text.includes(`{"Int":${MAX_1}}`), `${route}: the hit carries the exact digits`);
    t.false(max1.text.includes(MAX), route);
  }
});

test('Int64: Lt 9223372036854775807 excludes it and keeps ...806; Gt ...806 selects only ...807', async (t) => {
  await int64Collection('i64_range');
  const lt = await call(server, 'POST', '/list', `{"scope":["i64_range"],"filter":[{"Lt":["n",{"Int":${MAX}}]}]}`);
  t.deepEqual(ids(lt).sort(), ['max1', 'min', 'p53']);
  t.true(lt.text.includes(MAX_1));
  const gt = await call(server, 'POST', '/search', `{"query":[1,0,0,0],"scope":["i64_range"],"filter":[{"Gt":["n",{"Int":${MAX_1}}]}]}`);
  t.deepEqual(ids(gt), ['max']);
  const le = await call(server, 'POST', '/list', `{"scope":["i64_range"],"filter":[{"Le":["n",{"Int":-9223372036854775808}]}]}`);
  t.deepEqual(ids(le), ['min']);
  t.true(le.text.includes('-9223372036854775808'));
  const dt = await call(server, 'POST', '/list', `{"scope":["i64_range"],"filter":[{"Lt":["d",{"DateTime":${MAX}}]}]}`);
  t.deepEqual(ids(dt), ['max1'], 'DateTime compares exactly too');
});

test('Int64: 2^53 + 1 is not confused with 2^53 in a filter', async (t) => {
  await int64Collection('i64_53');
  t.deepEqual(ids(await call(server, 'POST', '/list', '{"scope":["i64_53"],"filter":[{"Eq":["n",{"Int":9007199254740992}]}]}')), []);
  const hit = await call(server, 'POST', '/list', '{"scope":["i64_53"],"filter":[{"Eq":["n",{"Int":9007199254740993}]}]}');
  t.deepEqual(ids(hit), ['p53']);
  t.true(hit.text.includes('9007199254740993'));
});

test('Int64: In, aggregate count and filter-delete select exactly', async (t) => {
  await int64Collection('i64_more');
  const inList = await call(server, 'POST', '/list', `{"scope":["i64_more"],"filter":[{"In":["n",[{"Int":${MAX_1}},{"Int":1}]]}]}`);
  t.deepEqual(ids(inList), ['max1']);
  const agg = await call(server, 'POST', '/aggregate', `{"scope":["i64_more"],"filter":[{"Ne":["n",{"Int":${MAX}}]}]}`);
  t.is(agg.json.count, 3);
  const del = await call(server, 'POST', '/collections/i64_more/delete', `{"filter":[{"Eq":["n",{"Int":${MAX}}]}]}`);
  t.deepEqual(del.json, { deleted: 1 });
  const left = await call(server, 'GET', '/collections/i64_more/records');
  t.deepEqual(ids(left).sort(), ['max1', 'min', 'p53']);
  t.true(left.text.includes(MAX_1));
});

test.serial('Int64: a filter Int outside the 64-bit range or with a fraction is 400', async (t) => {
  const before = await snapshot();
  isError(t, await call(server, 'POST', '/list', '{"filter":[{"Eq":["n",{"Int":9223372036854775808}]}]}'), 400, /64-bit|range/, 'too large');
  isError(t, await call(server, 'POST', '/list', '{"filter":[{"Eq":["n",{"Int":-9223372036854775809}]}]}'), 400, /64-bit|range/, 'too small');
  isError(t, await call(server, 'POST', '/list', '{"filter":[{"Lt":["n",{"Int":1.5}]}]}'), 400, /Int/, 'fraction');
  t.deepEqual(await snapshot(), before);
});

// ---- Robustness of the predicate engine behind every route ----

test('Regex runs on a linear-time engine: a catastrophic-backtracking pattern over a long attribute answers promptly', async (t) => {
  await call(server, 'POST', '/collections/redos/upsert', { records: [{ id: 'long', vector: [1, 0, 0, 0], attrs: { s: { Str: 'a'.repeat(100_000) } } }] });
  const started = Date.now();
  const r = await call(server, 'POST', '/list', { scope: ['redos'], filter: [{ Regex: ['s', '(a*)*b'] }, { Not: { Regex: ['s', '(a|aa)+$'] } }] });
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json, []);
  t.true(Date.now() - started < 5_000, `${Date.now() - started} ms`);
});

/** A random predicate tree mixing valid and invalid shapes, keys, values and patterns. */
function randomPredicate(rand: () => number, depth = 0): unknown {
  const pick = <T>(a: T[]): T => a[Math.floor(rand() * a.length)];
  const key = pick(['s', 'n', 'l', 'f', 'b', 'd', 'z', 'missing', '', 'svc.x']);
  const value = () =>
    pick<unknown>([
      { Str: pick(['', 'x', 'quick', 'é', '\u0000']) },
      { Int: pick([0, -1, 5]) },
      { Float: pick([0, 1.5, 1e308]) },
      { Bool: rand() < 0.5 },
      { List: pick([[], ['x'], ['x', 'y z']]) },
      { DateTime: pick([0, 7, -1]) },
      'Null',
      null,
      5,
      'x',
      [],
      {},
      { Int: 1.5 },
      { Str: 1 },
      { Foo: 1 },
    ]);
  const pattern = () => pick(['', '*', '?', '[', '[a-', '[]]', '\\', '(', '(?i)QUICK.*', '.*', 'a{1001}', '(a*)*b', '\\p{L}+', '(?P<n>x)', '*fox*', '[!a]*']);
  const v = pick([
    'Eq',
    'Ne',
    'In',
    'NotIn',
    'Lt',
    'Ge',
    'Glob',
    'IGlob',
    'Regex',
    'Contains',
    'NotContains',
    'ContainsAny',
    'Fuzzy',
    'ContainsAllTokens',
    'ContainsAnyToken',
    'ContainsTokenSequence',
    'All',
    'Any',
    'Not',
    'Bogus',
  ]);
  switch (v) {
    case 'Eq':
    case 'Ne':
    case 'Lt':
    case 'Ge':
    case 'Contains':
    case 'NotContains':
      return { [v]: [key, value()] };
    case 'In':
    case 'NotIn':
    case 'ContainsAny':
      return { [v]: [key, rand() < 0.8 ? Array.from({ length: Math.floor(rand() * 4) }, value) : value()] };
    case 'Glob':
    case 'IGlob':
    case 'Regex':
      return { [v]: [key, pattern()] };
    case 'Fuzzy':
      return { [v]: [key, pick(['', 'fox', 'quik', 'naive']), pick<unknown>([0, 1, 2, 8, 9, -1, 1.5, '2', null])] };
    case 'ContainsAllTokens':
    case 'ContainsAnyToken':
    case 'ContainsTokenSequence':
      return { [v]: [key, pick<unknown>(['', 'quick fox', 'brown-fox', '!!!', 'NAÏVE', 5])] };
    case 'All':
    case 'Any':
      return { [v]: depth > 2 ? [] : Array.from({ length: Math.floor(rand() * 3) }, () => randomPredicate(rand, depth + 1)) };
    case 'Not':
      return { Not: depth > 2 ? { Eq: [key, value()] } : randomPredicate(rand, depth + 1) };
    default:
      return { Bogus: [key] };
  }
}

test('random and malformed filters on every filter route answer 200 or 400 with an error body, never 500', async (t) => {
  const records = [
    {
      id: 'a',
      vector: [1, 0, 0, 0],
      attrs: { s: { Str: 'quick brown fox' }, n: { Int: 5 }, l: { List: ['x', 'y z'] }, f: { Float: 1.5 }, b: { Bool: true }, d: { DateTime: 7 }, z: 'Null' },
    },
    { id: 'b', vector: [0, 1, 0, 0], attrs: { s: { Str: 'naïve' }, n: { Int: -5 }, l: { List: [] } } },
    { id: 'c', attrs: { s: { Str: '' } } },
  ];
  for (const name of ['rf', 'rf_del']) t.is((await call(server, 'POST', `/collections/${name}/upsert`, { records })).status, 200);
  t.is((await call(server, 'POST', '/collections/rf/filter-index', { fields: ['s', 'l'] })).status, 200);
  t.is((await call(server, 'POST', '/flush')).status, 200);
  const rand = prng(20261122);
  const routes = [
    (filter: unknown) => ['/list', { scope: ['rf'], filter, order_by: { field: 'n' } }],
    (filter: unknown) => ['/aggregate', { scope: ['rf'], filter, group_by: 's', sum: ['n', 'f'] }],
    (filter: unknown) => ['/search', { query: [1, 0, 0, 0], scope: ['rf'], filter, limit_per: { field: 's', max: 1 } }],
    (filter: unknown) => ['/search/similar', { collection: 'rf', id: 'a', filter }],
    (filter: unknown) => ['/search/batch', { queries: [{ query: [1, 0, 0, 0], scope: ['rf'], filter }], fuse: {} }],
    (filter: unknown) => ['/collections/rf_del/delete', { filter }],
  ] as const;
  const failures: string[] = [];
  let accepted = 0;
  for (let i = 0; i < 600; i++) {
    const filter = Array.from({ length: Math.floor(rand() * 3) }, () => randomPredicate(rand));
    const [path, body] = routes[i % routes.length](filter);
    const r = await call(server, 'POST', path as string, body);
    if (r.status === 200) accepted++;
    else if (r.status !== 400 || typeof r.json?.error !== 'string') failures.push(`${path} ${JSON.stringify(body)} -> ${r.status} ${r.text.slice(0, 200)}`);
  }
  t.deepEqual(failures.slice(0, 10), []);
  t.true(accepted > 100, `${accepted} accepted`);
  t.is((await call(server, 'GET', '/health')).status, 200);
});
