// POST /query scripts and the compiled form (docs/sql.md §1, §15; spec "POST /query"): several
// `;`-separated statements answer a JSON array of what each answers alone; the whole script is
// compiled before its first statement runs; a statement that fails at run time fails the request
// with `statement N of M:` before the route's message; `compile_only` answers {kind, route,
// collections, options} with the route's defaults filled in, and searches nothing. Over HTTP and
// through the library's store.query.
import test, { type ExecutionContext } from 'ava';
import { parseExact, Store } from '../../lib/index';
import { rejectsWith } from '../core/helpers';
import { type Answer, call, type Server, startServer } from '../http/helpers';

let server: Server;
test.before(async () => {
  server = await startServer();
  const papers = [
    {
      id: 'p1',
      vector: [1, 0, 0, 0],
      attrs: { title: { Str: 'Vector search at scale' }, year: { Int: 2021 }, venue: { Str: 'arXiv' }, tags: { List: ['ann', 'hnsw'] } },
    },
    {
      id: 'p2',
      vector: [0, 1, 0, 0],
      attrs: { title: { Str: 'BM25 retrieval revisited' }, year: { Int: 2019 }, venue: { Str: 'SIGIR' }, tags: { List: ['bm25'] } },
    },
    {
      id: 'p3',
      vector: [0.6, 0.8, 0, 0],
      attrs: { title: { Str: 'Hybrid vector retrieval' }, year: { Int: 2023 }, venue: { Str: 'arXiv' }, tags: { List: ['ann', 'bm25'] } },
    },
  ];
  const notes = [
    { id: 'n1', vector: [0, 0, 1, 0], attrs: { text: { Str: 'a note on vectors' }, year: { Int: 2022 } } },
    { id: 'n2', vector: [0, 0, 0, 1], attrs: { text: { Str: 'another note' }, year: { Int: 2020 } } },
  ];
  for (const r of [
    await call(server, 'POST', '/collections/papers/upsert', { records: papers }),
    await call(server, 'POST', '/collections/notes/upsert', { records: notes }),
    await call(server, 'POST', '/collections/papers/fts-schema', { fields: ['title'] }),
    await call(server, 'PUT', '/aliases/cur', { target: 'papers' }),
  ]) {
    if (r.status !== 200) throw new Error(`seeding failed: ${r.status} ${r.text}`);
  }
});
test.after.always(() => server?.stop());

let requests = 0;

/** POST /query with a fresh X-Request-Id; the answer must echo it. */
async function query(t: ExecutionContext, body: { sql: string; compile_only?: boolean }): Promise<Answer> {
  const id = `sql-scripts-${++requests}`;
  const r = await call(server, 'POST', '/query', body, { 'x-request-id': id });
  t.is(r.headers.get('x-request-id'), id);
  return r;
}

/** One statement of each kind, each answering a non-empty 200. */
const STATEMENTS = [
  'SELECT title, year FROM papers WHERE year >= 2020 ORDER BY NEAREST([0.9, 0.1, 0, 0]) LIMIT 2',
  "SELECT * FROM papers ORDER BY BM25(title, 'retrieval') + BM25(title, 'vector')",
  "SELECT title FROM cur ORDER BY RRF(NEAREST([0, 1, 0, 0]), BM25(title, 'bm25'), k => 10) OPTIONS (explain = TRUE)",
  'SELECT * EXCEPT (tags) FROM papers, notes ORDER BY year DESC LIMIT 3 OFFSET 1',
  'SELECT venue, COUNT(*), SUM(year) FROM papers GROUP BY venue',
];
const KINDS = ['search', 'text-search', 'hybrid-search', 'list', 'aggregate'];

/** A statement that compiles but that /search refuses at run time (the store's dimension is 4). */
const WRONG_DIMENSION = 'SELECT * FROM papers ORDER BY NEAREST([1, 0, 0])';

async function runAlone(t: ExecutionContext, statements: string[]): Promise<string[]> {
  const answers = await Promise.all(statements.map((sql) => query(t, { sql })));
  answers.forEach((a, i) => {
    t.is(a.status, 200, `${statements[i]}: ${a.text}`);
    t.not(a.text, '[]', `${statements[i]} finds something`);
  });
  return answers.map((a) => a.text);
}

// ---- running a script ----

test("a script answers a JSON array of its statements' answers in order, each byte-identical to the statement run alone", async (t) => {
  const alone = await runAlone(t, STATEMENTS);
  const r = await query(t, { sql: STATEMENTS.join(';\n') });
  t.is(r.status, 200, r.text);
  t.is(r.text, `[${alone.join(',')}]`);
  t.is(r.json.length, STATEMENTS.length);
});

test("a script's answers follow the order of its statements", async (t) => {
  const order = [4, 0, 3, 1, 2, 0];
  const alone = await runAlone(t, STATEMENTS);
  const r = await query(t, { sql: order.map((i) => STATEMENTS[i]).join('; ') });
  t.is(r.status, 200, r.text);
  t.is(r.text, `[${order.map((i) => alone[i]).join(',')}]`);
});

test('a body sent again answers what it answered the first time; the same statement in another body answers what that body asks', async (t) => {
  for (const [i, sql] of [...STATEMENTS, WRONG_DIMENSION].entries()) {
    // The second sight remembers the body, the third runs by its bytes.
    const first = await query(t, { sql });
    for (let n = 0; n < 2; n++) {
      const again = await query(t, { sql });
      t.is(again.status, first.status, sql);
      t.is(again.text, first.text, sql);
    }
    const spaced = await call(server, 'POST', '/query', `{ "sql": ${JSON.stringify(sql)}, "compile_only": false }`);
    t.is(spaced.text, first.text, sql);
    for (let n = 0; n < 2; n++) {
      const compiled = await query(t, { sql, compile_only: true });
      t.is(compiled.status, 200, compiled.text);
      t.is(compiled.json.kind, KINDS[i] ?? 'search', sql);
    }
  }
  t.is((await query(t, { sql: WRONG_DIMENSION })).status, 400);
});

test("a trailing ; is allowed: one statement and ; answers that statement's response, not an array", async (t) => {
  const [alone] = await runAlone(t, [STATEMENTS[0]]);
  for (const sql of [`${STATEMENTS[0]};`, `${STATEMENTS[0]} ;\n`, `${STATEMENTS[0]}; -- that is all\n`, `${STATEMENTS[0]} /* ✓ */ ; /* done */`]) {
    const r = await query(t, { sql });
    t.is(r.status, 200, `${sql}: ${r.text}`);
    t.is(r.text, alone, sql);
  }
});

test('a trailing ; after several statements answers the same array as without it', async (t) => {
  const alone = await runAlone(t, [STATEMENTS[3], STATEMENTS[4]]);
  const r = await query(t, { sql: `${STATEMENTS[3]}; ${STATEMENTS[4]};` });
  t.is(r.status, 200, r.text);
  t.is(r.text, `[${alone.join(',')}]`);
});

test('a compile error in statement 3 fails the whole script before anything runs, its offset inside statement 3', async (t) => {
  // Statement 1 would fail at run time; the answer being statement 3's compile error shows it never ran.
  const head = `${WRONG_DIMENSION}; SELECT * FROM "pä" ORDER BY BM25(title, 'ü'); `;
  const third = 'SELECT * FROM "pä" WHERE year >= ';
  const sql = `${head}${third}; ${STATEMENTS[4]}`;
  const r = await query(t, { sql });
  t.is(r.status, 400, r.text);
  const at = Buffer.byteLength(head + third);
  t.is(r.json?.error, `SQL error at byte ${at}: expected value but ";" found (docs/sql.md §6 WHERE)`);
  t.true(at > Buffer.byteLength(head), 'the offset points into statement 3');
});

test('a run-time error in statement 2 of 3 is the route\'s 400 prefixed "statement 2 of 3:"', async (t) => {
  const direct = await call(server, 'POST', '/search', { query: [1, 0, 0], scope: ['papers'] });
  t.is(direct.status, 400);
  const r = await query(t, { sql: [STATEMENTS[0], WRONG_DIMENSION, STATEMENTS[4]].join('; ') });
  t.is(r.status, 400, r.text);
  t.is(r.json?.error, `statement 2 of 3: ${direct.json.error}`);
});

test('a run-time error in the last statement is numbered too', async (t) => {
  const body = { field: 'title', query: 'vector', scope: ['papers'], top_k: 10000, offset: 1 };
  const direct = await call(server, 'POST', '/text-search', body);
  t.is(direct.status, 400);
  const r = await query(t, { sql: `${STATEMENTS[3]}; SELECT * FROM papers ORDER BY BM25(title, 'vector') LIMIT 10000 OFFSET 1;` });
  t.is(r.status, 400, r.text);
  t.is(r.json?.error, `statement 2 of 2: ${direct.json.error}`);
});

// ---- compile_only (§15) ----

/** Each kind's statement and its compiled form, defaults from the spec's tables for that route. */
const COMPILED: [string, unknown][] = [
  [
    'SELECT * FROM cur ORDER BY NEAREST([0.5, -0.5, 0, 1])',
    {
      kind: 'search',
      route: '/search',
      collections: ['papers'],
      options: {
        query: [0.5, -0.5, 0, 1],
        top_k: 10,
        offset: 0,
        filter: [],
        min_score: null,
        exact: false,
        rank_by: null,
        // name_weights: the spec's "none" (every name weighs 1.0), spelled as the empty map.
        limit_per: null,
        diversity: null,
        expand: null,
        rerank: null,
        plan: false,
        names: [],
        name_weights: {},
        pool: 'Max',
      },
    },
  ],
  [
    "SELECT * FROM papers ORDER BY BM25(title, 'vector')",
    {
      kind: 'text-search',
      route: '/text-search',
      collections: ['papers'],
      options: {
        field: 'title',
        query: 'vector',
        prefix: false,
        combine: 'Sum',
        top_k: 10,
        offset: 0,
        filter: [],
        min_score: null,
        rank_by: null,
        limit_per: null,
        diversity: null,
        expand: null,
        rerank: null,
        explain: false,
        highlight: null,
      },
    },
  ],
  [
    "SELECT * FROM papers ORDER BY RRF(NEAREST([0, 1, 0, 0]), BM25(title, 'bm25'))",
    {
      kind: 'hybrid-search',
      route: '/hybrid-search',
      collections: ['papers'],
      options: {
        vector: [0, 1, 0, 0],
        field: 'title',
        text: 'bm25',
        prefix: false,
        combine: 'Sum',
        top_k: 10,
        offset: 0,
        filter: [],
        rrf_k: 60,
        candidates: 100,
        vector_weight: 1,
        text_weight: 1,
        limit_per: null,
        diversity: null,
        expand: null,
        rerank: null,
        explain: false,
        highlight: null,
        plan: false,
      },
    },
  ],
  ['SELECT * FROM papers', { kind: 'list', route: '/list', collections: ['papers'], options: { filter: [], offset: 0, limit: 100, order_by: null } }],
  ['SELECT COUNT(*) FROM papers', { kind: 'aggregate', route: '/aggregate', collections: ['papers'], options: { filter: [], sum: [], group_by: null } }],
];

for (const [sql, form] of COMPILED) {
  const { kind } = form as { kind: string };
  test(`compile_only on ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} statement answers {kind, route, collections, options} with the route's defaults filled in`, async (t) => {
    const r = await query(t, { sql, compile_only: true });
    t.is(r.status, 200, r.text);
    t.deepEqual(r.json, form);
  });
}

test("compile_only: the statement's own clauses replace the defaults", async (t) => {
  const cases: [string, Record<string, unknown>][] = [
    [
      'SELECT title, year FROM papers WHERE year >= 2020 ORDER BY year DESC LIMIT 5 OFFSET 2',
      { include_attributes: ['title', 'year'], filter: [{ Ge: ['year', { Int: 2020 }] }], order_by: { field: 'year', descending: true }, limit: 5, offset: 2 },
    ],
    ["SELECT * EXCEPT (tags) FROM papers ORDER BY NEAREST([1, 0, 0, 0], pool => 'Sum') LIMIT 3", { exclude_attributes: ['tags'], pool: 'Sum', top_k: 3 }],
    [
      "SELECT * FROM papers ORDER BY GREATEST(BM25(title, 'vec', prefix => TRUE), BM25(title, 'bm'))",
      {
        clauses: [
          { field: 'title', query: 'vec', prefix: true },
          { field: 'title', query: 'bm' },
        ],
        combine: 'Max',
      },
    ],
    ["SELECT * FROM papers ORDER BY RRF(NEAREST([1, 0, 0, 0]), BM25(title, 'x'), k => 5, candidates => 20)", { rrf_k: 5, candidates: 20 }],
    ['SELECT venue, COUNT(*), SUM(year) FROM papers GROUP BY venue', { sum: ['year'], group_by: 'venue' }],
  ];
  for (const [sql, fields] of cases) {
    const r = await query(t, { sql, compile_only: true });
    t.is(r.status, 200, `${sql}: ${r.text}`);
    for (const [k, v] of Object.entries(fields)) t.deepEqual(r.json?.options?.[k], v, `${sql}: ${k}`);
  }
});

test('compile_only resolves aliases in collections and keeps other names as written', async (t) => {
  const r = await query(t, { sql: 'SELECT * FROM cur, notes, "nö such"', compile_only: true });
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json.collections, ['papers', 'notes', 'nö such']);
});

test('compile_only without FROM lists every collection, aliases excluded', async (t) => {
  const every = (await call(server, 'GET', '/collections')).json;
  t.deepEqual([...every].sort(), ['notes', 'papers']);
  for (const sql of ['SELECT COUNT(*)', 'SELECT * ORDER BY NEAREST([1, 0, 0, 0])', "SELECT * ORDER BY BM25(title, 'x')", 'SELECT *']) {
    const r = await query(t, { sql, compile_only: true });
    t.is(r.status, 200, r.text);
    t.deepEqual(r.json.collections, every, sql);
  }
});

test('compile_only on a script answers an array of compiled forms in order, each as the statement compiles alone', async (t) => {
  const alone = await Promise.all(STATEMENTS.map((sql) => query(t, { sql, compile_only: true })));
  const r = await query(t, { sql: `${STATEMENTS.join(';\n')};`, compile_only: true });
  t.is(r.status, 200, r.text);
  t.deepEqual(
    r.json.map((f: { kind: string }) => f.kind),
    KINDS,
  );
  t.is(r.text, `[${alone.map((a) => a.text).join(',')}]`);
});

test('compile_only never runs a search: statements their route would refuse still compile', async (t) => {
  const cases: [string, string, unknown][] = [
    ['SELECT * FROM nowhere ORDER BY NEAREST([1, 0, 0])', 'query', [1, 0, 0]],
    ['SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (diversity = 7)', 'diversity', 7],
    ["SELECT * FROM papers ORDER BY BM25(title, 'x') OPTIONS (rerank = {query: 'x'})", 'rerank', { query: 'x' }],
    ['SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) LIMIT 10000 OFFSET 5', 'offset', 5],
    ["SELECT * FROM papers WHERE FUZZY(title, 'x', 9)", 'filter', [{ Fuzzy: ['title', 'x', 9] }]],
  ];
  for (const [sql, field, value] of cases) {
    const r = await query(t, { sql, compile_only: true });
    t.is(r.status, 200, `${sql}: ${r.text}`);
    t.deepEqual(r.json?.options?.[field], value, sql);
  }
  const script = await query(t, { sql: `${STATEMENTS[0]}; ${WRONG_DIMENSION}`, compile_only: true });
  t.is(script.status, 200, script.text);
  t.deepEqual(script.json[1].collections, ['papers']);
});

test('compile_only still refuses a statement that does not compile', async (t) => {
  const r = await query(t, { sql: `${STATEMENTS[0]}; DELETE FROM papers`, compile_only: true });
  t.is(r.status, 400);
  t.is(
    r.json?.error,
    `SQL error at byte ${Buffer.byteLength(STATEMENTS[0]) + 2}: only SELECT statements are accepted; got DELETE (nothing was changed) (docs/sql.md §1 Statements and scripts)`,
  );
});

test('compile_only: options plus scope sent to route answer what the statement answers', async (t) => {
  for (const sql of STATEMENTS) {
    const [compiled, run] = await Promise.all([query(t, { sql, compile_only: true }), query(t, { sql })]);
    const direct = await call(server, 'POST', compiled.json.route, { ...compiled.json.options, scope: compiled.json.collections });
    t.is(direct.status, 200, `${sql} -> ${compiled.json.route}: ${direct.text}`);
    t.is(direct.text, run.text, sql);
  }
});

// ---- the library: store.query ----

/** A store whose records hold an Int past 2^53, and a record of what each route method was asked. */
async function libraryStore(): Promise<{ store: Store; ran: string[] }> {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', {
    records: [
      { id: 'a', vector: [1, 0, 0, 0], attrs: { n: { Int: 9007199254740993n }, t: { Str: 'alpha' } } },
      { id: 'b', vector: [0, 1, 0, 0], attrs: { n: { Int: 2 }, t: { Str: 'beta' } } },
    ],
  });
  await store.setFtsSchema('c', ['t']);
  const ran: string[] = [];
  for (const method of ['searchJson', 'textSearchJson', 'hybridSearchJson', 'listJson', 'aggregateJson'] as const) {
    const original = store[method].bind(store);
    Object.assign(store, {
      [method]: (body: Uint8Array, o?: object) => {
        ran.push(method);
        return original(body, o);
      },
    });
  }
  return { store, ran };
}

test('store.query answers the parsed response, Int values as bigint', async (t) => {
  const { store, ran } = await libraryStore();
  const hits = (await store.query('SELECT n FROM c ORDER BY NEAREST([1, 0, 0, 0])')) as { id: string; attrs: Record<string, unknown> }[];
  t.deepEqual(
    hits.map((h) => [h.id, h.attrs]),
    [
      ['a', { n: { Int: 9007199254740993n } }],
      ['b', { n: { Int: 2n } }],
    ],
  );
  t.deepEqual(await store.query('SELECT COUNT(*), SUM(n) FROM c'), { count: 2, sums: { n: { Int: 9007199254740995n } } });
  t.deepEqual(ran, ['searchJson', 'aggregateJson']);
});

test('store.query of a script answers an array, and queryJson the same bytes parsed', async (t) => {
  const { store } = await libraryStore();
  const sql = "SELECT t FROM c WHERE n = 9007199254740993; SELECT * FROM c ORDER BY BM25(t, 'beta');";
  const answer = (await store.query(sql)) as { id: string }[][];
  t.deepEqual(
    answer.map((hits) => hits.map((h) => h.id)),
    [['a'], ['b']],
  );
  t.deepEqual(parseExact(await store.queryJson(sql)), answer);
});

test('store.query with compileOnly answers the compiled form, exact integers as bigint, and runs nothing', async (t) => {
  const { store, ran } = await libraryStore();
  const form = (await store.query('SELECT * FROM c WHERE n = 9007199254740993 ORDER BY NEAREST([1, 0, 0])', { compileOnly: true })) as {
    kind: string;
    collections: string[];
    options: { filter: unknown; query: unknown };
  };
  t.is(form.kind, 'search');
  t.deepEqual(form.collections, ['c']);
  t.deepEqual(form.options.filter, [{ Eq: ['n', { Int: 9007199254740993n }] }]);
  t.deepEqual(form.options.query, [1, 0, 0]);
  t.deepEqual(ran, []);
});

test('store.query rejects a script that does not compile with StoreError 400, running nothing', async (t) => {
  const { store, ran } = await libraryStore();
  const sql = 'SELECT * FROM c ORDER BY NEAREST([1, 0, 0, 0]); SELECT COUNT(*) FROM c; SELECT * FROM c WHERE n =';
  const e = await rejectsWith(t, store.query(sql), 400);
  t.is(e.message, `SQL error at byte ${sql.length}: expected value but end of input found (docs/sql.md §6 WHERE)`);
  t.deepEqual(ran, []);
});

test("store.query rejects a run-time error with the route's StoreError, numbered when the script has several statements", async (t) => {
  const { store } = await libraryStore();
  const direct = await rejectsWith(t, store.search({ query: [1, 0] }), 400);
  const alone = await rejectsWith(t, store.query('SELECT * FROM c ORDER BY NEAREST([1, 0])'), 400);
  t.is(alone.message, direct.message);
  const second = await rejectsWith(t, store.query('SELECT COUNT(*) FROM c; SELECT * FROM c ORDER BY NEAREST([1, 0])'), 400);
  t.is(second.message, `statement 2 of 2: ${alone.message}`);
});
