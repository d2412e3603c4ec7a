// POST /query statements against the typed requests they compile to (docs/sql.md): "a single
// statement answers the route's response byte for byte, and the route's own checks (and their 400
// messages) apply unchanged". Three parts:
//
// 1. Hand-written pairs, one per rule: a statement and the typed body the docs say it compiles to,
//    both run on one store; the answers must be the same bytes, non-empty, and the compiled form's
//    options must hold every field of the typed body.
// 2. Random typed requests of every kind (seeded), rendered to SQL by ./render.ts (written from
//    docs/sql.md, not from the compiler) and compared the same way, errors included.
// 3. A few pairs over HTTP: POST /query against the typed route, status and body.
//
// plan: true answers carry `timings` (microseconds measured on each run): those two answers are
// compared with the timings object emptied on both sides, everything else byte for byte. A random
// request the route refuses must be refused alike; when it breaks two rules, the route names the
// field it reads first, so the statement's message is checked against the route's messages for
// the request with each of its fields written first (see `refusals`).
import test, { type ExecutionContext } from 'ava';
import { type Predicate, type StoreError, type Value, parseExact, Store, stringifyExact } from '../../lib/index';
import { prng, randomVector } from '../core/helpers';
import { call, type Server, startServer } from '../http/helpers';
import {
  ALIAS,
  ANCIENT,
  CHUNK_FIELDS,
  COLLECTIONS,
  DAY,
  DIM,
  FIXTURE,
  int,
  load,
  ORIGIN,
  pick,
  randomString,
  randomValue,
  sample,
  TAGS,
  VALUES_BY_KEY,
  VECTOR_NAMES,
  WORDS,
} from './fixture';
import { type Body, type Kind, Renderer } from './render';

let store: Store;

test.before(async () => {
  store = await Store.open({ inMemory: true, dimension: DIM });
  await load({
    createCollection: (n) => store.createCollection(n),
    setVectorNames: (n, names) => store.setVectorNames(n, names),
    setFtsSchema: (n, fields) => store.setFtsSchema(n, fields),
    upsert: (n, body) => store.upsert(n, body),
    putAlias: (n, target) => store.putAlias(n, target),
  });
});
test.after.always(() => store?.close());

// ---- running both sides ----

interface Outcome {
  status: number;
  /** The answer's bytes, or the error message. */
  bytes: Buffer;
}

async function outcome(p: Promise<Buffer>): Promise<Outcome> {
  try {
    return { status: 200, bytes: await p };
  } catch (e) {
    const status = (e as StoreError).status;
    if (typeof status !== 'number') throw e;
    return { status, bytes: Buffer.from((e as Error).message) };
  }
}

const bodyBytes = (body: Body | string): Buffer => (typeof body === 'string' ? Buffer.from(body) : stringifyExact(body));

function typed(s: Store, kind: Kind, bytes: Buffer): Promise<Buffer> {
  switch (kind) {
    case 'search':
      return s.searchJson(bytes);
    case 'text-search':
      return s.textSearchJson(bytes);
    case 'hybrid-search':
      return s.hybridSearchJson(bytes);
    case 'list':
      return s.listJson(bytes);
    case 'aggregate':
      return s.aggregateJson(bytes);
  }
}

/** A plan's timings differ run to run: emptied, the rest of the answer must still be the same bytes. */
const withoutTimings = (b: Buffer): Buffer =>
  b.subarray(0, 8).toString() === '{"hits":' ? Buffer.from(b.toString('utf8').replace(/"timings":\{[^{}]*\}/, '"timings":{}')) : b;

function sameBytes(t: ExecutionContext, viaSql: Buffer, viaRoute: Buffer, label: string): boolean {
  const a = withoutTimings(viaSql);
  const b = withoutTimings(viaRoute);
  if (a.equals(b)) {
    t.pass(label);
    return true;
  }
  t.is(a.toString('utf8'), b.toString('utf8'), label); // fails, with a diff
  return false;
}

/** How much an answer holds: hits on a page, or records counted by an aggregate. */
function size(answer: Buffer): number {
  const v = JSON.parse(answer.toString('utf8')) as unknown;
  if (Array.isArray(v)) return v.length;
  const o = v as { hits?: unknown[]; count?: number };
  return o.hits?.length ?? o.count ?? 0;
}

interface CompiledForm {
  kind: Kind;
  route: string;
  collections: string[];
  options: Record<string, unknown>;
}

/** Values compared exactly: Int and DateTime as bigint, -0 as -0, through the same JSON both sides take. */
const exact = (v: unknown): unknown => parseExact(stringifyExact(v));

/**
 * The compiled form (§15) names the route of `kind`, the scope with the alias resolved (every
 * collection when there is none) and, among its options, every field of `body` with its value.
 */
async function compilesTo(t: ExecutionContext, sql: string, kind: Kind, body: Body, label: string): Promise<void> {
  const form = parseExact<CompiledForm>(await store.queryJson(sql, { compileOnly: true }));
  t.is(form.kind, kind, label);
  t.is(form.route, `/${kind}`, label);
  const scope = body.scope as string[] | undefined;
  const every = await store.collections();
  t.deepEqual(
    form.collections,
    scope === undefined || scope.length === 0 ? every : scope.map((c) => (ALIAS as Record<string, string>)[c] ?? c),
    `${label}: collections`,
  );
  for (const [field, value] of Object.entries(body)) {
    if (field === 'scope') continue;
    // ORDER BY k without DESC states the ascending order the route defaults to.
    const expected = field === 'order_by' ? { descending: false, ...(value as object) } : value;
    t.deepEqual(form.options[field], exact(expected), `${label}: options.${field}`);
  }
}

/** A statement and its typed body answer the same bytes, and the answer holds at least `atLeast`. */
const same = test.macro({
  async exec(t, sql: string, kind: Kind, body: Body | string, atLeast: number = 1) {
    const viaRoute = await outcome(typed(store, kind, bodyBytes(body)));
    const viaSql = await outcome(store.queryJson(sql));
    t.is(viaRoute.status, 200, `typed route: ${viaRoute.bytes}`);
    t.is(viaSql.status, 200, `statement: ${viaSql.bytes}`);
    sameBytes(t, viaSql.bytes, viaRoute.bytes, sql);
    t.true(size(viaRoute.bytes) >= atLeast, `the answer holds at least ${atLeast}: ${viaRoute.bytes}`);
    await compilesTo(t, sql, kind, parseExact<Body>(bodyBytes(body)), sql);
  },
  title: (provided = '', sql: string) => provided || sql,
});

/** The route refuses the typed body; the statement is refused with the same status and message. */
const refusedAlike = test.macro({
  async exec(t, sql: string, kind: Kind, body: Body | string, message: RegExp) {
    const viaRoute = await outcome(typed(store, kind, bodyBytes(body)));
    const viaSql = await outcome(store.queryJson(sql));
    t.is(viaRoute.status, 400, `typed route: ${viaRoute.bytes}`);
    t.is(viaSql.status, viaRoute.status);
    t.is(viaSql.bytes.toString(), viaRoute.bytes.toString());
    t.regex(viaSql.bytes.toString(), message);
  },
  title: (provided = '', sql: string) => provided || sql,
});

const Q = [0.5, -0.25, 1, 0.125, 0, 0.75, -0.5, 0.3];
const V = `[${Q.join(', ')}]`;
const eq = (k: string, v: Value): Predicate => ({ Eq: [k, v] });

// ---- §5 FROM ----

test(
  '§5 FROM a, b is scope [a, b]',
  same,
  `SELECT * FROM papers, "docs-2024" WHERE g = 'x'`,
  'list',
  { scope: ['papers', 'docs-2024'], filter: [eq('g', { Str: 'x' })] },
  5,
);
test('§5 a collection name that starts with a digit is quoted', same, `SELECT * FROM "2024-notes"`, 'list', { scope: ['2024-notes'] }, 20);
test(
  '§5 an alias in FROM resolves as it does on the typed route',
  same,
  `SELECT title FROM pub ORDER BY NEAREST(${V})`,
  'search',
  { query: Q, scope: ['pub'], include_attributes: ['title'] },
  10,
);
test('§5 without FROM a statement reads every collection', same, `SELECT * ORDER BY NEAREST(${V}) LIMIT 30`, 'search', { query: Q, top_k: 30 }, 30);

test('§5 the alias answers what its target answers', async (t) => {
  const viaAlias = await store.queryJson(`SELECT * FROM pub ORDER BY NEAREST(${V})`);
  const viaTarget = await store.searchJson(stringifyExact({ query: Q, scope: ['papers'] }));
  sameBytes(t, viaAlias, viaTarget, 'pub is papers');
});

test('§5 without FROM the hits come from every collection', async (t) => {
  const hits = parseExact<{ collection: string }[]>(await store.queryJson(`SELECT * ORDER BY NEAREST(${V}) LIMIT 60`));
  t.deepEqual([...new Set(hits.map((h) => h.collection))].sort(), [...COLLECTIONS].sort());
});

// ---- §4 SELECT list ----

test(
  '§4 SELECT * EXCEPT (a, b) is exclude_attributes',
  same,
  `SELECT * EXCEPT (body, "say ""hi""", text, mixed) FROM papers`,
  'list',
  { scope: ['papers'], exclude_attributes: ['body', 'say "hi"', 'text', 'mixed'] },
  40,
);
test(
  '§4 SELECT a, b is include_attributes (quoted, dotted and empty names too)',
  same,
  `SELECT title, year, "page-count", a.b, "", "naïve" FROM papers`,
  'list',
  { scope: ['papers'], include_attributes: ['title', 'year', 'page-count', 'a.b', '', 'naïve'] },
  40,
);
test('§2 keywords stand as names where only a name can', same, `SELECT count FROM papers WHERE not = 1`, 'list', {
  scope: ['papers'],
  include_attributes: ['count'],
  filter: [eq('not', { Int: 1 })],
});
test('§2 "" in a quoted name is one quote', same, `SELECT "say ""hi""" WHERE "say ""hi""" = 'hé "x"'`, 'list', {
  include_attributes: ['say "hi"'],
  filter: [eq('say "hi"', { Str: 'hé "x"' })],
});

// ---- §6 WHERE: every predicate form ----

test('§3 a quote in a string is written twice', same, `SELECT * WHERE venue = 'O''Reilly'`, 'list', { filter: [eq('venue', { Str: "O'Reilly" })] }, 5);
test(
  '§3 strings hold any Unicode',
  same,
  `SELECT * WHERE venue = '会议' OR "naïve" = 'straße'`,
  'list',
  { filter: [{ Any: [eq('venue', { Str: '会议' }), eq('naïve', { Str: 'straße' })] }] },
  5,
);
test('§6 = with a dotted name', same, `SELECT * WHERE a.b = TRUE`, 'list', { filter: [eq('a.b', { Bool: true })] });
test('§6 = with the empty name', same, `SELECT * WHERE "" = 1`, 'list', { filter: [eq('', { Int: 1 })] });
test('§6 != is Ne', same, `SELECT * WHERE g != 'x'`, 'list', { filter: [{ Ne: ['g', { Str: 'x' }] }] }, 20);
test('§6 <> is Ne', same, `SELECT * WHERE g <> 'x'`, 'list', { filter: [{ Ne: ['g', { Str: 'x' }] }] }, 20);
test('§6 < on Int', same, `SELECT * WHERE year < 2018`, 'list', { filter: [{ Lt: ['year', { Int: 2018 }] }] });
test('§6 <= on Int', same, `SELECT * WHERE year <= 2018`, 'list', { filter: [{ Le: ['year', { Int: 2018 }] }] });
test('§6 > on Float', same, `SELECT * WHERE f > 0.2`, 'list', { filter: [{ Gt: ['f', { Float: 0.2 }] }] });
test('§6 >= on Str', same, `SELECT * WHERE title >= 'run'`, 'list', { filter: [{ Ge: ['title', { Str: 'run' }] }] });
test(
  '§6 IN',
  same,
  `SELECT * WHERE venue IN ('SIGIR', 'arXiv', NULL)`,
  'list',
  { filter: [{ In: ['venue', [{ Str: 'SIGIR' }, { Str: 'arXiv' }, 'Null']] }] },
  10,
);
test('§6 NOT IN', same, `SELECT * WHERE g NOT IN ('x', 'y')`, 'list', { filter: [{ NotIn: ['g', [{ Str: 'x' }, { Str: 'y' }]] }] });
test('§6 IN with Values of every type', same, `SELECT * WHERE mixed IN ('river', 42, 0.25, TRUE, NULL, TIMESTAMP 0, ['ann'], 9223372036854775807)`, 'list', {
  filter: [
    { In: ['mixed', [{ Str: 'river' }, { Int: 42 }, { Float: 0.25 }, { Bool: true }, 'Null', { DateTime: 0 }, { List: ['ann'] }, { Int: 2n ** 63n - 1n }]] },
  ],
});
test(
  '§6 BETWEEN is Ge and Le at the top',
  same,
  `SELECT * WHERE year BETWEEN 2017 AND 2019`,
  'list',
  { filter: [{ Ge: ['year', { Int: 2017 }] }, { Le: ['year', { Int: 2019 }] }] },
  5,
);
test(
  '§6 BETWEEN below an OR is All [Ge, Le]',
  same,
  `SELECT * WHERE year BETWEEN 2017 AND 2019 OR ok = TRUE`,
  'list',
  {
    filter: [{ Any: [{ All: [{ Ge: ['year', { Int: 2017 }] }, { Le: ['year', { Int: 2019 }] }] }, eq('ok', { Bool: true })] }],
  },
  5,
);
test(
  '§6 NOT BETWEEN is Not',
  same,
  `SELECT * WHERE year NOT BETWEEN 2017 AND 2019`,
  'list',
  { filter: [{ Not: { All: [{ Ge: ['year', { Int: 2017 }] }, { Le: ['year', { Int: 2019 }] }] } }] },
  5,
);
test('§6 IS NULL is Eq Null', same, `SELECT * WHERE venue IS NULL`, 'list', { filter: [eq('venue', 'Null')] }, 5);
test('§6 = NULL is Eq Null too', same, `SELECT * WHERE venue = NULL`, 'list', { filter: [eq('venue', 'Null')] }, 5);
test('§6 IS NOT NULL is Ne Null', same, `SELECT * WHERE venue IS NOT NULL`, 'list', { filter: [{ Ne: ['venue', 'Null'] }] }, 5);
const present = (k: string): Predicate => ({ Any: [eq(k, 'Null'), { Ne: [k, 'Null'] }] });
test('§6 IS MISSING: not present with any value', same, `SELECT * WHERE venue IS MISSING`, 'list', { filter: [{ Not: present('venue') }] }, 5);
test('§6 IS NOT MISSING: present with any value', same, `SELECT * WHERE venue IS NOT MISSING`, 'list', { filter: [present('venue')] }, 5);
test('§6 LIKE is Glob with % as * and _ as ?', same, `SELECT * WHERE title LIKE 'r_n%'`, 'list', { filter: [{ Glob: ['title', 'r?n*'] }] });
test('§6 ILIKE is IGlob', same, `SELECT * WHERE venue ILIKE 'o''r%'`, 'list', { filter: [{ IGlob: ['venue', "o'r*"] }] }, 4);
test('§6 NOT LIKE is Not Glob', same, `SELECT * WHERE title NOT LIKE '%a%'`, 'list', { filter: [{ Not: { Glob: ['title', '*a*'] } }] });
test('§6 GLOB is Glob as written', same, `SELECT * WHERE title GLOB 'r[iu]*'`, 'list', { filter: [{ Glob: ['title', 'r[iu]*'] }] });
test('§6 IGLOB is IGlob as written', same, `SELECT * WHERE venue IGLOB 'CAF?*'`, 'list', { filter: [{ IGlob: ['venue', 'CAF?*'] }] });
test('§6 NOT GLOB and NOT IGLOB are Not', same, `SELECT * WHERE title NOT GLOB '*[0-9]*' AND venue NOT IGLOB 'a*'`, 'list', {
  filter: [{ Not: { Glob: ['title', '*[0-9]*'] } }, { Not: { IGlob: ['venue', 'a*'] } }],
});
test('§6 REGEXP is Regex', same, `SELECT * WHERE title REGEXP '.*(river|delta).*'`, 'list', { filter: [{ Regex: ['title', '.*(river|delta).*'] }] });
test('§6 ~ is Regex, (?i) for case', same, `SELECT * WHERE venue ~ '(?i)sigir|ARXIV'`, 'list', { filter: [{ Regex: ['venue', '(?i)sigir|ARXIV'] }] });
test('§6 NOT REGEXP is Not', same, `SELECT * WHERE title NOT REGEXP '.*a.*'`, 'list', { filter: [{ Not: { Regex: ['title', '.*a.*'] } }] });
test('§6 CONTAINS', same, `SELECT * WHERE tags CONTAINS 'o''reilly'`, 'list', { filter: [{ Contains: ['tags', { Str: "o'reilly" }] }] }, 3);
test('§6 NOT CONTAINS', same, `SELECT * WHERE tags NOT CONTAINS 'ann'`, 'list', { filter: [{ NotContains: ['tags', { Str: 'ann' }] }] }, 10);
test(
  '§6 CONTAINS ANY',
  same,
  `SELECT * WHERE tags CONTAINS ANY ('ünï', 'x y')`,
  'list',
  { filter: [{ ContainsAny: ['tags', [{ Str: 'ünï' }, { Str: 'x y' }]] }] },
  5,
);
test('§6 FUZZY', same, `SELECT * WHERE FUZZY(venue, 'SIGIRR', 1)`, 'list', { filter: [{ Fuzzy: ['venue', 'SIGIRR', 1] }] }, 5);
test('§6 CONTAINS_ALL_TOKENS', same, `SELECT * WHERE CONTAINS_ALL_TOKENS(title, 'river delta')`, 'list', {
  filter: [{ ContainsAllTokens: ['title', 'river delta'] }],
});
test(
  '§6 CONTAINS_ANY_TOKEN',
  same,
  `SELECT * WHERE contains_any_token(body, 'straße 中文')`,
  'list',
  { filter: [{ ContainsAnyToken: ['body', 'straße 中文'] }] },
  5,
);
test(
  '§6 CONTAINS_TOKEN_SEQUENCE',
  same,
  `SELECT * WHERE CONTAINS_TOKEN_SEQUENCE(text, 'part 3')`,
  'list',
  { filter: [{ ContainsTokenSequence: ['text', 'part 3'] }] },
  3,
);
test(
  '§6 AND at the top is the filter array; OR is Any, NOT is Not, AND below an OR is All',
  same,
  `SELECT * WHERE (g = 'x' OR venue = 'SIGIR') AND NOT ok = TRUE AND (year > 2020 OR (f = 0.25 AND tags CONTAINS 'ann') OR NOT (g = 'y'))`,
  'list',
  {
    filter: [
      { Any: [eq('g', { Str: 'x' }), eq('venue', { Str: 'SIGIR' })] },
      { Not: eq('ok', { Bool: true }) },
      { Any: [{ Gt: ['year', { Int: 2020 }] }, { All: [eq('f', { Float: 0.25 }), { Contains: ['tags', { Str: 'ann' }] }] }, { Not: eq('g', { Str: 'y' }) }] },
    ],
  },
  3,
);
test('§6 NOT NOT is Not of Not', same, `SELECT * WHERE NOT NOT g = 'x'`, 'list', { filter: [{ Not: { Not: eq('g', { Str: 'x' }) } }] }, 5);

// ---- §3 literals ----

test('§3 TRUE and FALSE are Bool', same, `SELECT * WHERE ok = FALSE`, 'list', { filter: [eq('ok', { Bool: false })] }, 5);
test('§3 -0.0 is a Float and equals 0.0', same, `SELECT * WHERE f = -0.0`, 'list', '{"filter":[{"Eq":["f",{"Float":-0.0}]}]}', 5);
test('§3 5.0 is a Float (2.0 matches Float 2)', same, `SELECT * WHERE f = 2.0`, 'list', { filter: [eq('f', { Float: 2 })] }, 2);
test(
  '§3 an exponent makes a Float',
  same,
  `SELECT * WHERE f = 1e300 OR f = -2.5e-7 OR f = .25`,
  'list',
  {
    filter: [{ Any: [eq('f', { Float: 1e300 }), eq('f', { Float: -2.5e-7 }), eq('f', { Float: 0.25 })] }],
  },
  5,
);
test(
  '§3 TIMESTAMP with an ISO date is midnight UTC',
  same,
  `SELECT * WHERE ts >= TIMESTAMP '2024-04-01' AND ts < TIMESTAMP '2024-05-01T00:00:00Z'`,
  'list',
  {
    filter: [{ Ge: ['ts', { DateTime: ORIGIN - 30 * DAY }] }, { Lt: ['ts', { DateTime: ORIGIN }] }],
  },
  5,
);
test(
  '§3 TIMESTAMP with an offset and milliseconds',
  same,
  `SELECT * WHERE ts > TIMESTAMP '2024-04-10T05:30:00.250+05:30'`,
  'list',
  {
    filter: [{ Gt: ['ts', { DateTime: ORIGIN - 21 * DAY + 250 }] }],
  },
  5,
);
test(
  '§3 TIMESTAMP with epoch milliseconds',
  same,
  `SELECT * WHERE ts < TIMESTAMP ${ORIGIN - 40 * DAY}`,
  'list',
  { filter: [{ Lt: ['ts', { DateTime: ORIGIN - 40 * DAY }] }] },
  3,
);
const twoTags = (VALUES_BY_KEY.get('tags') as { List: string[] }[]).find((v) => v.List.length === 2)!.List;
test(`§3 ['a', 'b'] is a List`, same, `SELECT * WHERE tags = [${twoTags.map((s) => `'${s.replaceAll("'", "''")}'`).join(', ')}]`, 'list', {
  filter: [eq('tags', { List: twoTags })],
});
test(`§3 [] is the empty List`, same, `SELECT * WHERE tags = []`, 'list', { filter: [eq('tags', { List: [] })] }, 5);

// ---- §3 Int64 edges: exact past 2^53, refused outside Int64 ----

test(
  '§3 -9223372036854775808 is Int64 min, exactly',
  same,
  'SELECT * WHERE n = -9223372036854775808',
  'list',
  '{"filter":[{"Eq":["n",{"Int":-9223372036854775808}]}]}',
  2,
);
test(
  '§3 9223372036854775807 is Int64 max, exactly',
  same,
  'SELECT * WHERE n = 9223372036854775807',
  'list',
  '{"filter":[{"Eq":["n",{"Int":9223372036854775807}]}]}',
  2,
);
test(
  '§3 9007199254740993 is not rounded to 2^53',
  same,
  'SELECT * WHERE n = 9007199254740993',
  'list',
  '{"filter":[{"Eq":["n",{"Int":9007199254740993}]}]}',
  2,
);
test(
  '§3 ranges past 2^53 compare exactly',
  same,
  'SELECT n WHERE n > 9007199254740992 AND n < 9223372036854775807',
  'list',
  '{"include_attributes":["n"],"filter":[{"Gt":["n",{"Int":9007199254740992}]},{"Lt":["n",{"Int":9223372036854775807}]}]}',
  2,
);
test(
  '§3 Int64 edges in IN and in a DateTime',
  same,
  'SELECT * WHERE n IN (-9223372036854775808, 9007199254740993) OR mixed = TIMESTAMP 9223372036854775807',
  'list',
  '{"filter":[{"Any":[{"In":["n",[{"Int":-9223372036854775808},{"Int":9007199254740993}]]},{"Eq":["mixed",{"DateTime":9223372036854775807}]}]}]}',
  4,
);

test('§3 9007199254740993 matches exactly the records holding it', async (t) => {
  const hits = parseExact<{ attrs: { n: Value } }[]>(await store.queryJson('SELECT n WHERE n = 9007199254740993'));
  const holding = FIXTURE.filter((r) => (r.record.attrs?.n as { Int: bigint } | undefined)?.Int === 2n ** 53n + 1n);
  t.is(hits.length, holding.length);
  t.true(hits.every((h) => (h.attrs.n as { Int: bigint }).Int === 9007199254740993n));
});

for (const literal of ['9223372036854775808', '-9223372036854775809', '99999999999999999999']) {
  test(`§3 ${literal} is outside Int64: 400`, async (t) => {
    const refused = await outcome(store.queryJson(`SELECT * WHERE n = ${literal}`));
    t.is(refused.status, 400);
    t.regex(refused.bytes.toString(), new RegExp(`^SQL error at byte 19: integer ${literal} does not fit a signed 64-bit Int.*§3 Literals`));
  });
}

// ---- §11 list ----

test(
  '§11 LIMIT and OFFSET page a list',
  same,
  `SELECT title FROM papers LIMIT 7 OFFSET 4`,
  'list',
  { scope: ['papers'], include_attributes: ['title'], limit: 7, offset: 4 },
  7,
);
test(
  '§11 ORDER BY k ASC is order_by ascending',
  same,
  `SELECT title FROM papers ORDER BY title ASC`,
  'list',
  { scope: ['papers'], include_attributes: ['title'], order_by: { field: 'title', descending: false } },
  40,
);
test('§11 ORDER BY k is ascending', same, `SELECT ts ORDER BY ts LIMIT 50`, 'list', { include_attributes: ['ts'], order_by: { field: 'ts' }, limit: 50 }, 50);
test(
  '§11 ORDER BY k DESC over Int64 edges',
  same,
  `SELECT n ORDER BY n DESC LIMIT 1000`,
  'list',
  { include_attributes: ['n'], order_by: { field: 'n', descending: true }, limit: 1000 },
  100,
);
test(
  '§11 ORDER BY a quoted name, DESC, paged',
  same,
  `SELECT * FROM "docs-2024", pub ORDER BY "page-count" DESC LIMIT 10 OFFSET 2`,
  'list',
  {
    scope: ['docs-2024', 'pub'],
    order_by: { field: 'page-count', descending: true },
    limit: 10,
    offset: 2,
  },
  10,
);

// ---- §8 NEAREST ----

test(
  '§8 NEAREST is /search; LIMIT is top_k, OFFSET offset',
  same,
  `SELECT * FROM papers WHERE g = 'x' ORDER BY NEAREST(${V}) DESC LIMIT 5 OFFSET 3`,
  'search',
  {
    query: Q,
    scope: ['papers'],
    filter: [eq('g', { Str: 'x' })],
    top_k: 5,
    offset: 3,
  },
  5,
);
test(
  '§8 OPTIONS min_score',
  same,
  `SELECT * ORDER BY NEAREST(${V}) LIMIT 100 OPTIONS (min_score = 0.2)`,
  'search',
  { query: Q, top_k: 100, min_score: 0.2 },
  5,
);
test('§8 OPTIONS exact', same, `SELECT * ORDER BY NEAREST(${V}) OPTIONS (exact = TRUE)`, 'search', { query: Q, exact: true }, 10);
test(
  '§8 OPTIONS limit_per',
  same,
  `SELECT g ORDER BY NEAREST(${V}) LIMIT 20 OPTIONS (limit_per = {field: 'g', max: 2})`,
  'search',
  { query: Q, top_k: 20, include_attributes: ['g'], limit_per: { field: 'g', max: 2 } },
  6,
);
test(
  '§8 OPTIONS limit_per with a quoted key and missing: own',
  same,
  `SELECT * ORDER BY NEAREST(${V}) LIMIT 20 OPTIONS (limit_per = {'field': 'say "hi"', max: 1, missing: 'own'})`,
  'search',
  {
    query: Q,
    top_k: 20,
    limit_per: { field: 'say "hi"', max: 1, missing: 'own' },
  },
  10,
);
test('§8 OPTIONS diversity', same, `SELECT * ORDER BY NEAREST(${V}) LIMIT 15 OPTIONS (diversity = 0.3)`, 'search', { query: Q, top_k: 15, diversity: 0.3 }, 15);
test(
  '§3 rank_by = Decay(...) is the tagged object, TIMESTAMP its epoch milliseconds',
  same,
  `SELECT * ORDER BY NEAREST(${V}) LIMIT 20 OPTIONS (rank_by = Decay(field => 'ts', origin => TIMESTAMP '2024-05-01', scale => 604800000, decay => 0.5, lambda => 0.3))`,
  'search',
  {
    query: Q,
    top_k: 20,
    rank_by: { Decay: { field: 'ts', origin: ORIGIN, scale: 604800000, decay: 0.5, lambda: 0.3 } },
  },
  20,
);
test(
  '§8 rank_by as an object, with the count term',
  same,
  `SELECT * ORDER BY NEAREST(${V}) OPTIONS (rank_by = {Decay: {field: '', origin: ${ORIGIN}, count_field: 'page-count', count_scale: 20, count_lambda: 0.5, missing: 0.8}})`,
  'search',
  {
    query: Q,
    rank_by: { Decay: { field: '', origin: ORIGIN, count_field: 'page-count', count_scale: 20, count_lambda: 0.5, missing: 0.8 } },
  },
  10,
);
test(
  '§8 OPTIONS expand',
  same,
  `SELECT title ORDER BY NEAREST(${V}) OPTIONS (expand = {radius: 1, parent_field: 'doc', index_field: 'part', text_field: 'text'})`,
  'search',
  {
    query: Q,
    include_attributes: ['title'],
    expand: { radius: 1, ...CHUNK_FIELDS },
  },
  10,
);
test(
  '§8 NEAREST names, name_weights and pool',
  same,
  `SELECT * ORDER BY NEAREST(${V}, names => ['title_vec', 'body_vec'], name_weights => {title_vec: 2.0, 'body_vec': 0.5}, pool => 'Sum') LIMIT 25`,
  'search',
  {
    query: Q,
    top_k: 25,
    names: VECTOR_NAMES,
    name_weights: { title_vec: 2, body_vec: 0.5 },
    pool: 'Sum',
  },
  25,
);
test(
  '§8 NEAREST names alone (pool Max)',
  same,
  `SELECT * FROM pub ORDER BY NEAREST(${V}, names => ['body_vec'])`,
  'search',
  { query: Q, scope: ['pub'], names: ['body_vec'] },
  10,
);
test(
  '§8 OPTIONS plan (timings emptied on both sides)',
  same,
  `SELECT * ORDER BY NEAREST(${V}) LIMIT 5 OPTIONS (plan = TRUE, min_score = -1)`,
  'search',
  { query: Q, top_k: 5, plan: true, min_score: -1 },
  5,
);
test('§8 OPTIONS plan = FALSE keeps the bare array', same, `SELECT * ORDER BY NEAREST(${V}) OPTIONS (plan = FALSE)`, 'search', { query: Q, plan: false }, 10);
test('§8 OPTIONS expand = NULL is no expand', same, `SELECT * ORDER BY NEAREST(${V}) OPTIONS (expand = NULL)`, 'search', { query: Q, expand: null }, 10);
test(
  '§8 every option at once',
  same,
  `SELECT * EXCEPT (body) FROM papers, "docs-2024" WHERE year >= 2016 ORDER BY NEAREST(${V}, names => ['title_vec'], pool => 'Max') LIMIT 8 OFFSET 1 ` +
    `OPTIONS (min_score = -1, exact = TRUE, rank_by = Decay(field => 'ts', origin => ${ORIGIN}), limit_per = {field: 'g', max: 3}, diversity = 0.8, expand = {radius: 0, parent_field: 'doc', index_field: 'part', text_field: 'text'}, plan = FALSE)`,
  'search',
  {
    query: Q,
    scope: ['papers', 'docs-2024'],
    exclude_attributes: ['body'],
    filter: [{ Ge: ['year', { Int: 2016 }] }],
    names: ['title_vec'],
    pool: 'Max',
    top_k: 8,
    offset: 1,
    min_score: -1,
    exact: true,
    rank_by: { Decay: { field: 'ts', origin: ORIGIN } },
    limit_per: { field: 'g', max: 3 },
    diversity: 0.8,
    expand: { radius: 0, ...CHUNK_FIELDS },
    plan: false,
  },
  8,
);

// ---- §9 BM25 ----

test(
  '§9 one BM25 is field + query',
  same,
  `SELECT title ORDER BY BM25(title, 'river')`,
  'text-search',
  { field: 'title', query: 'river', include_attributes: ['title'] },
  10,
);
test(
  '§9 BM25 prefix => TRUE',
  same,
  `SELECT title ORDER BY BM25(title, 'dense ri', prefix => TRUE) LIMIT 30`,
  'text-search',
  { field: 'title', query: 'dense ri', prefix: true, include_attributes: ['title'], top_k: 30 },
  10,
);
test(
  '§9 BM25 + BM25 is clauses, combine Sum',
  same,
  `SELECT * FROM papers ORDER BY BM25(title, 'river') + BM25(body, 'del', prefix => TRUE) LIMIT 20`,
  'text-search',
  {
    scope: ['papers'],
    clauses: [
      { field: 'title', query: 'river' },
      { field: 'body', query: 'del', prefix: true },
    ],
    top_k: 20,
  },
  10,
);
test(
  '§9 GREATEST(BM25, BM25) is clauses, combine Max',
  same,
  `SELECT * ORDER BY GREATEST(BM25(title, 'graph'), BM25(text, 'part 2')) LIMIT 20`,
  'text-search',
  {
    clauses: [
      { field: 'title', query: 'graph' },
      { field: 'text', query: 'part 2' },
    ],
    combine: 'Max',
    top_k: 20,
  },
  10,
);
test(
  '§9 GREATEST of one BM25 is field + query, combine Max',
  same,
  `SELECT * ORDER BY GREATEST(BM25(body, 'sparse'))`,
  'text-search',
  { field: 'body', query: 'sparse', combine: 'Max' },
  10,
);
test(
  '§9 LIMIT, OFFSET and WHERE',
  same,
  `SELECT * FROM "2024-notes" WHERE part >= 1 ORDER BY BM25(text, 'part') DESC LIMIT 4 OFFSET 2`,
  'text-search',
  {
    scope: ['2024-notes'],
    filter: [{ Ge: ['part', { Int: 1 }] }],
    field: 'text',
    query: 'part',
    top_k: 4,
    offset: 2,
  },
  4,
);
test(
  '§9 OPTIONS min_score is a raw BM25 floor',
  same,
  `SELECT * ORDER BY BM25(body, 'river search') LIMIT 100 OPTIONS (min_score = 1.5)`,
  'text-search',
  { field: 'body', query: 'river search', top_k: 100, min_score: 1.5 },
  5,
);
test(
  '§9 OPTIONS rank_by',
  same,
  `SELECT * ORDER BY BM25(body, 'graph') OPTIONS (rank_by = Decay(field => 'ts', origin => TIMESTAMP '2024-05-01T00:00:00Z', scale => 86400000, decay => 0.25))`,
  'text-search',
  {
    field: 'body',
    query: 'graph',
    rank_by: { Decay: { field: 'ts', origin: ORIGIN, scale: DAY, decay: 0.25 } },
  },
  10,
);
test(
  '§9 OPTIONS limit_per and diversity',
  same,
  `SELECT * ORDER BY BM25(body, 'index') LIMIT 12 OPTIONS (limit_per = {field: 'venue', max: 2}, diversity = 0.5)`,
  'text-search',
  {
    field: 'body',
    query: 'index',
    top_k: 12,
    limit_per: { field: 'venue', max: 2 },
    diversity: 0.5,
  },
  5,
);
test(
  '§9 OPTIONS expand',
  same,
  `SELECT doc, part FROM papers ORDER BY BM25(text, 'river') OPTIONS (expand = {radius: 2, parent_field: 'doc', index_field: 'part', text_field: 'text'})`,
  'text-search',
  {
    scope: ['papers'],
    include_attributes: ['doc', 'part'],
    field: 'text',
    query: 'river',
    expand: { radius: 2, ...CHUNK_FIELDS },
  },
  5,
);
test(
  '§9 OPTIONS explain',
  same,
  `SELECT * ORDER BY BM25(title, 'river') + BM25(body, 'gra', prefix => TRUE) OPTIONS (explain = TRUE)`,
  'text-search',
  {
    clauses: [
      { field: 'title', query: 'river' },
      { field: 'body', query: 'gra', prefix: true },
    ],
    explain: true,
  },
  10,
);
test(
  '§9 OPTIONS highlight {}',
  same,
  `SELECT * ORDER BY BM25(body, 'café straße') OPTIONS (highlight = {})`,
  'text-search',
  { field: 'body', query: 'café straße', highlight: {} },
  10,
);
test(
  '§9 OPTIONS highlight with sizes, and explain',
  same,
  `SELECT title ORDER BY BM25(body, '中文 naïve') OPTIONS (highlight = {max_fragments: 2, fragment_chars: 24}, explain = TRUE)`,
  'text-search',
  {
    field: 'body',
    query: '中文 naïve',
    include_attributes: ['title'],
    highlight: { max_fragments: 2, fragment_chars: 24 },
    explain: true,
  },
  10,
);

// ---- §10 RRF ----

test(
  '§10 RRF(NEAREST, BM25) is /hybrid-search; the BM25 query is text',
  same,
  `SELECT * ORDER BY RRF(NEAREST(${V}), BM25(body, 'river'))`,
  'hybrid-search',
  { vector: Q, field: 'body', text: 'river' },
  10,
);
test(
  '§10 k, candidates and the weights',
  same,
  `SELECT * FROM papers, "2024-notes" ORDER BY RRF(NEAREST(${V}), BM25(title, 'graph', prefix => TRUE), k => 10, candidates => 30, vector_weight => 0.5, text_weight => 2.0) LIMIT 15 OFFSET 2`,
  'hybrid-search',
  {
    vector: Q,
    scope: ['papers', '2024-notes'],
    field: 'title',
    text: 'graph',
    prefix: true,
    rrf_k: 10,
    candidates: 30,
    vector_weight: 0.5,
    text_weight: 2,
    top_k: 15,
    offset: 2,
  },
  15,
);
test(
  '§10 rrf_k is k',
  same,
  `SELECT * ORDER BY RRF(NEAREST(${V}), BM25(body, 'index'), rrf_k => 1)`,
  'hybrid-search',
  { vector: Q, field: 'body', text: 'index', rrf_k: 1 },
  10,
);
test(
  '§10 a text head of clauses (+ and GREATEST)',
  same,
  `SELECT * ORDER BY RRF(NEAREST(${V}), GREATEST(BM25(title, 'river'), BM25(text, 'part'))) LIMIT 20`,
  'hybrid-search',
  {
    vector: Q,
    clauses: [
      { field: 'title', query: 'river' },
      { field: 'text', query: 'part' },
    ],
    combine: 'Max',
    top_k: 20,
  },
  20,
);
test(
  '§10 clauses added up',
  same,
  `SELECT * ORDER BY RRF(NEAREST(${V}), BM25(title, 'river') + BM25(body, 'den', prefix => TRUE))`,
  'hybrid-search',
  {
    vector: Q,
    clauses: [
      { field: 'title', query: 'river' },
      { field: 'body', query: 'den', prefix: true },
    ],
  },
  10,
);
test(
  '§10 OPTIONS limit_per, diversity and expand',
  same,
  `SELECT * WHERE ok = TRUE ORDER BY RRF(NEAREST(${V}), BM25(body, 'search')) LIMIT 10 OPTIONS (limit_per = {field: 'doc', max: 1}, diversity = 0.7, expand = {radius: 1, parent_field: 'doc', index_field: 'part', text_field: 'text'})`,
  'hybrid-search',
  {
    vector: Q,
    filter: [eq('ok', { Bool: true })],
    field: 'body',
    text: 'search',
    top_k: 10,
    limit_per: { field: 'doc', max: 1 },
    diversity: 0.7,
    expand: { radius: 1, ...CHUNK_FIELDS },
  },
  5,
);
test(
  '§10 OPTIONS explain and highlight',
  same,
  `SELECT title ORDER BY RRF(NEAREST(${V}), BM25(body, 'river delta')) OPTIONS (explain = TRUE, highlight = {max_fragments: 1})`,
  'hybrid-search',
  {
    vector: Q,
    field: 'body',
    text: 'river delta',
    include_attributes: ['title'],
    explain: true,
    highlight: { max_fragments: 1 },
  },
  10,
);
test(
  '§10 OPTIONS plan (timings emptied on both sides)',
  same,
  `SELECT * ORDER BY RRF(NEAREST(${V}), BM25(title, 'dense')) OPTIONS (plan = TRUE)`,
  'hybrid-search',
  { vector: Q, field: 'title', text: 'dense', plan: true },
  10,
);

// ---- §12 aggregates ----

test('§12 COUNT(*) alone', same, `SELECT COUNT(*)`, 'aggregate', {}, 100);
test(
  '§12 COUNT(*) and SUMs with FROM and WHERE',
  same,
  `SELECT COUNT(*), SUM(year), SUM(f), SUM("page-count") FROM papers, pub WHERE ok = TRUE`,
  'aggregate',
  {
    scope: ['papers', 'pub'],
    filter: [eq('ok', { Bool: true })],
    sum: ['year', 'f', 'page-count'],
  },
  5,
);
test(
  '§12 GROUP BY, with the key in the SELECT list and ORDER BY COUNT(*) DESC',
  same,
  `SELECT g, COUNT(*), SUM(part) GROUP BY g ORDER BY COUNT(*) DESC`,
  'aggregate',
  { sum: ['part'], group_by: 'g' },
  100,
);
test(
  '§12 GROUP BY a key of every Value type',
  same,
  `SELECT COUNT(*) FROM "docs-2024" GROUP BY mixed`,
  'aggregate',
  { scope: ['docs-2024'], group_by: 'mixed' },
  30,
);
test(
  '§12 SUM over Int64 edges',
  same,
  `SELECT SUM(n), COUNT(*) WHERE n IN (9007199254740993, 1, -1)`,
  'aggregate',
  '{"filter":[{"In":["n",[{"Int":9007199254740993},{"Int":1},{"Int":-1}]]}],"sum":["n"]}',
  5,
);

test("§12 the groups of a GROUP BY statement are the typed route's", async (t) => {
  const answer = parseExact<{ groups: unknown[] }>(await store.queryJson(`SELECT COUNT(*) GROUP BY venue`));
  t.true(answer.groups.length >= 7);
});

// ---- the routes' own refusals come through unchanged ----

test(
  'a route refusal: diversity outside [0, 1]',
  refusedAlike,
  `SELECT * ORDER BY NEAREST(${V}) OPTIONS (diversity = 1.5)`,
  'search',
  { query: Q, diversity: 1.5 },
  /diversity/,
);
test(
  'a route refusal: an unparseable REGEXP',
  refusedAlike,
  `SELECT * WHERE title REGEXP '(' ORDER BY BM25(body, 'x')`,
  'text-search',
  { filter: [{ Regex: ['title', '('] }], field: 'body', query: 'x' },
  /Regex/,
);
test('a route refusal: a FUZZY budget above 8', refusedAlike, `SELECT * WHERE FUZZY(title, 'x', 9)`, 'list', { filter: [{ Fuzzy: ['title', 'x', 9] }] }, /8/);
test(
  'a route refusal: offset + top_k above 10000',
  refusedAlike,
  `SELECT * ORDER BY RRF(NEAREST(${V}), BM25(body, 'x')) LIMIT 9995 OFFSET 6`,
  'hybrid-search',
  { vector: Q, field: 'body', text: 'x', top_k: 9995, offset: 6 },
  /10000/,
);
test(
  'a route refusal: a vector of the wrong dimension',
  refusedAlike,
  `SELECT * ORDER BY NEAREST([1, 0, 0])`,
  'search',
  { query: [1, 0, 0] },
  /dimension|length/,
);
test(
  'a route refusal: a malformed Decay',
  refusedAlike,
  `SELECT * ORDER BY BM25(body, 'x') OPTIONS (rank_by = Decay(field => 'ts', origin => 0, decay => 1.5))`,
  'text-search',
  {
    field: 'body',
    query: 'x',
    rank_by: { Decay: { field: 'ts', origin: 0, decay: 1.5 } },
  },
  /decay/,
);
test(
  'a route refusal: rerank without a provider',
  refusedAlike,
  `SELECT * ORDER BY NEAREST(${V}) OPTIONS (rerank = {query: 'x'})`,
  'search',
  { query: Q, rerank: { query: 'x' } },
  /rerank-provider/,
);
test(
  'a route refusal: an undeclared named vector',
  refusedAlike,
  `SELECT * ORDER BY NEAREST(${V}, names => ['nope'])`,
  'search',
  { query: Q, names: ['nope'] },
  /nope/,
);
test('a route refusal: a list limit above 10000', refusedAlike, `SELECT * LIMIT 10001`, 'list', { limit: 10001 }, /10000/);

test("§1 a script answers a JSON array of each statement's typed answer", async (t) => {
  const script = await store.queryJson(
    `SELECT COUNT(*) GROUP BY g; SELECT title ORDER BY BM25(title, 'river') LIMIT 3;\nSELECT * FROM pub ORDER BY NEAREST(${V}) LIMIT 2;`,
  );
  const parts = await Promise.all([
    store.aggregateJson(stringifyExact({ group_by: 'g' })),
    store.textSearchJson(stringifyExact({ field: 'title', query: 'river', include_attributes: ['title'], top_k: 3 })),
    store.searchJson(stringifyExact({ query: Q, scope: ['pub'], top_k: 2 })),
  ]);
  sameBytes(t, script, Buffer.concat([Buffer.from('['), parts[0], Buffer.from(','), parts[1], Buffer.from(','), parts[2], Buffer.from(']')]), 'script');
});

// ---- answers worked out from the fixture (the compiled filter means what the docs say) ----

const ids = (answer: Buffer) => parseExact<{ collection: string; id: string }[]>(answer).map((h) => `${h.collection}/${h.id}`);
const fixtureIds = (keep: (attrs: Record<string, Value>) => boolean) =>
  FIXTURE.filter((r) => keep(r.record.attrs ?? {})).map((r) => `${r.collection}/${r.record.id}`);

test('§6 IS MISSING lists exactly the records without the key, IS NOT MISSING the others, for every Value type', async (t) => {
  for (const key of ['venue', 'mixed', 'tags', 'f', 'ts', 'n', 'ok', 'say "hi"', '', 'nope']) {
    const name = `"${key.replaceAll('"', '""')}"`;
    t.deepEqual(ids(await store.queryJson(`SELECT * WHERE ${name} IS MISSING LIMIT 10000`)).sort(), fixtureIds((a) => !(key in a)).sort(), `${key} IS MISSING`);
    t.deepEqual(
      ids(await store.queryJson(`SELECT * WHERE ${name} IS NOT MISSING LIMIT 10000`)).sort(),
      fixtureIds((a) => key in a).sort(),
      `${key} IS NOT MISSING`,
    );
  }
});

test('§6 k != v is false where k is missing; NOT k = v is true there', async (t) => {
  const ne = ids(await store.queryJson(`SELECT * WHERE g != 'x' LIMIT 10000`)).sort();
  const not = ids(await store.queryJson(`SELECT * WHERE NOT g = 'x' LIMIT 10000`)).sort();
  const isX = (a: Record<string, Value>) => (a.g as { Str?: string } | undefined)?.Str === 'x';
  t.deepEqual(ne, fixtureIds((a) => 'g' in a && !isX(a)).sort());
  t.deepEqual(not, fixtureIds((a) => !isX(a)).sort());
  t.true(not.length > ne.length);
});

test('§6 LIKE reads a glob special (* ? [ ]) literally', async (t) => {
  const codes = async (pattern: string) =>
    parseExact<{ attrs: { code: { Str: string } } }[]>(await store.queryJson(`SELECT code FROM "2024-notes" WHERE code LIKE '${pattern}'`))
      .map((h) => h.attrs.code.Str)
      .sort();
  t.deepEqual(await codes('x*y'), ['x*y']);
  t.deepEqual(await codes('x?y'), ['x?y']);
  t.deepEqual(await codes('x[1]y'), ['x[1]y']);
  t.deepEqual(await codes('ab]c'), ['ab]c']);
  t.deepEqual(await codes('x_y'), ['x*y', 'x1y', 'x?y', 'xay']);
  t.deepEqual(await codes('50%'), ['50% off', '50%_off']);
});

// LIKE has no escape character: a backslash in it matches itself (the glob's escape is escaped).
test(
  '§6 LIKE reads a backslash literally',
  same,
  `SELECT code FROM "2024-notes" WHERE code LIKE 'C:\\dir\\%'`,
  'list',
  {
    scope: ['2024-notes'],
    include_attributes: ['code'],
    filter: [{ Glob: ['code', 'C:\\\\dir\\\\*'] }],
  },
  1,
);

// Years before 100 are those years, not 19xx (Date.UTC's reading).
test(
  '§3 TIMESTAMP in the years 0 to 99 is that year',
  same,
  `SELECT * WHERE ts = TIMESTAMP '0050-06-15T00:00:00Z'`,
  'list',
  {
    filter: [eq('ts', { DateTime: ANCIENT })],
  },
  1,
);

// ---- randomized: typed requests rendered to SQL ----

const KEYS = [
  'title',
  'body',
  'year',
  'n',
  'f',
  'ok',
  'ts',
  'tags',
  'venue',
  'mixed',
  'g',
  'doc',
  'part',
  'text',
  'page-count',
  'say "hi"',
  'naïve',
  'a.b',
  '',
  'not',
  'count',
  'nope',
  'code',
];
const TEXT_FIELDS = ['title', 'body', 'text', 'title', 'body', 'text', 'title', 'body', 'text', 'code', 'venue'];
const GROUP_FIELDS = ['g', 'venue', 'doc', 'ok', 'nope', 'say "hi"', 'mixed', 'tags'];
const SCOPES = ['papers', 'docs-2024', '2024-notes', 'pub', 'ghost'];

/** A Value for `key`: mostly one the fixture holds there (so filters match), else any Value. */
function valueFor(rand: () => number, key: string): Value {
  const held = VALUES_BY_KEY.get(key);
  return held !== undefined && rand() < 0.65 ? pick(rand, held) : randomValue(rand);
}

/** A string value for `key` (patterns and text predicates read Str). */
function textFor(rand: () => number, key: string): string {
  const v = valueFor(rand, key);
  if (typeof v === 'object' && 'Str' in v) return v.Str;
  if (typeof v === 'object' && 'List' in v && v.List.length > 0) return pick(rand, v.List);
  return rand() < 0.5 ? pick(rand, WORDS) : randomString(rand);
}

/** A glob pattern from a text: some characters become ? or a class, the tail becomes *, now and then an unclosed [. */
function globFrom(rand: () => number, text: string): string {
  const chars = [...text].map((c) => (/[*?[\]\\]/.test(c) ? `\\${c}` : c));
  const out = chars.map((c) => {
    const r = rand();
    if (r < 0.1) return '?';
    if (r < 0.15 && c.length === 1) return `[${c}${c.toUpperCase()}]`;
    return c;
  });
  const cut = int(rand, 0, out.length);
  const pattern = rand() < 0.6 ? `${out.slice(0, cut).join('')}*` : out.join('');
  return rand() < 0.03 ? `${pattern}[` : pattern;
}

const REGEXES = ['.*river.*', '(?i)RIVER.*', '[a-z ]+', '.*\\d.*', 'x\\*y', ".*'.*", 'é.*|.*😀', '(?i)sigir|arxiv', '.*', '(', 'a{2,}', '[[:alpha:]]+'];

function leaf(rand: () => number): Predicate {
  const key = pick(rand, KEYS);
  const values = (lo: number, hi: number) => Array.from({ length: int(rand, lo, hi) }, () => valueFor(rand, key));
  switch (int(rand, 0, 17)) {
    case 0:
      return { Eq: [key, valueFor(rand, key)] };
    case 1:
      return { Ne: [key, valueFor(rand, key)] };
    case 2:
      return { Lt: [key, valueFor(rand, key)] };
    case 3:
      return { Le: [key, valueFor(rand, key)] };
    case 4:
      return { Gt: [key, valueFor(rand, key)] };
    case 5:
      return { Ge: [key, valueFor(rand, key)] };
    case 6:
      return { In: [key, values(0, 4)] };
    case 7:
      return { NotIn: [key, values(0, 3)] };
    case 8:
      return { Glob: [key, globFrom(rand, textFor(rand, key))] };
    case 9:
      return { IGlob: [key, globFrom(rand, textFor(rand, key).toUpperCase())] };
    case 10:
      return { Regex: [key, pick(rand, REGEXES)] };
    case 11:
      return { Contains: ['tags', rand() < 0.8 ? { Str: pick(rand, TAGS) } : valueFor(rand, key)] };
    case 12:
      return { NotContains: [rand() < 0.7 ? 'tags' : key, { Str: pick(rand, TAGS) }] };
    case 13:
      return { ContainsAny: [rand() < 0.7 ? 'tags' : key, Array.from({ length: int(rand, 0, 3) }, () => ({ Str: pick(rand, TAGS) }))] };
    case 14:
      return { Fuzzy: [key, textFor(rand, key), rand() < 0.03 ? 9 : int(rand, 0, 3)] };
    case 15:
      return { ContainsAllTokens: [pick(rand, TEXT_FIELDS), sample(rand, WORDS, 1, 2).join(' ')] };
    case 16:
      return { ContainsAnyToken: [pick(rand, TEXT_FIELDS), rand() < 0.8 ? sample(rand, WORDS, 1, 3).join(' ') : randomString(rand)] };
    default:
      return { ContainsTokenSequence: [pick(rand, TEXT_FIELDS), pick(rand, [`part ${int(rand, 0, 6)}`, sample(rand, WORDS, 1, 2).join(' ')])] };
  }
}

/** A predicate: a leaf, or All / Any of two or three, or Not; the BETWEEN and IS [NOT] MISSING shapes now and then. */
function predicate(rand: () => number, depth: number): Predicate {
  const r = rand();
  if (depth < 3 && r < 0.2) {
    const children = Array.from({ length: int(rand, 2, 3) }, () => predicate(rand, depth + 1));
    return rand() < 0.5 ? { All: children } : { Any: children };
  }
  if (depth < 3 && r < 0.3) return { Not: predicate(rand, depth + 1) };
  const key = pick(rand, KEYS);
  if (r < 0.35) {
    const shape: Predicate = { Any: [eq(key, 'Null'), { Ne: [key, 'Null'] }] };
    return rand() < 0.5 ? shape : { Not: shape };
  }
  if (r < 0.4) {
    const range: Predicate = { All: [{ Ge: [key, valueFor(rand, key)] }, { Le: [key, valueFor(rand, key)] }] };
    return rand() < 0.6 ? range : { Not: range };
  }
  return leaf(rand);
}

/** A top-level filter: an All at the top is its members (what AND at the top compiles to). */
function filter(rand: () => number): Predicate[] {
  const top = (p: Predicate): Predicate[] => ('All' in p ? p.All.flatMap(top) : [p]);
  return Array.from({ length: int(rand, 1, 2) }, () => top(predicate(rand, 0))).flat();
}

const maybe = (rand: () => number, p: number, body: Body, field: string, value: () => unknown) => {
  if (rand() < p) body[field] = value();
};
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

function common(rand: () => number, b: Body): void {
  const r = rand();
  if (r < 0.15) b.scope = [];
  else if (r < 0.6) b.scope = sample(rand, SCOPES, 1, 3);
  maybe(rand, 0.6, b, 'filter', () => filter(rand));
  const p = rand();
  if (p < 0.25) b.include_attributes = sample(rand, KEYS, 1, 4);
  else if (p < 0.5) b.exclude_attributes = sample(rand, KEYS, 1, 4);
}

function decay(rand: () => number): Body {
  const d: Body = { field: pick(rand, ['ts', 'ts', 'year', 'n', '', 'nope']), origin: ORIGIN + int(rand, -20, 20) * DAY + pick(rand, [0, 0, 1234]) };
  maybe(rand, 0.5, d, 'scale', () => pick(rand, [DAY, 7 * DAY, 1000]));
  maybe(rand, 0.5, d, 'decay', () => (rand() < 0.05 ? 1.5 : round(0.05 + rand() * 0.9)));
  maybe(rand, 0.4, d, 'lambda', () => round(rand() * 2));
  maybe(rand, 0.3, d, 'missing', () => round(rand()));
  if (rand() < 0.3) {
    d.count_field = pick(rand, ['page-count', 'part', 'not']);
    maybe(rand, 0.5, d, 'count_scale', () => int(rand, 1, 20));
    maybe(rand, 0.5, d, 'count_lambda', () => round(rand()));
  }
  return { Decay: d };
}

function ranked(rand: () => number, b: Body): void {
  maybe(rand, 0.5, b, 'top_k', () => int(rand, 0, 25));
  maybe(rand, 0.3, b, 'offset', () => int(rand, 0, 8));
  maybe(rand, 0.2, b, 'limit_per', () => {
    const l: Body = { field: pick(rand, GROUP_FIELDS), max: rand() < 0.03 ? 0 : int(rand, 1, 3) };
    maybe(rand, 0.3, l, 'missing', () => pick(rand, ['shared', 'own']));
    return l;
  });
  maybe(rand, 0.15, b, 'diversity', () => (rand() < 0.05 ? 1.5 : round(rand(), 2)));
  maybe(rand, 0.15, b, 'expand', () => (rand() < 0.1 ? null : { radius: int(rand, 0, 2), ...CHUNK_FIELDS }));
}

function textLeg(rand: () => number, b: Body, queryKey: 'query' | 'text'): void {
  const query = () => (rand() < 0.9 ? sample(rand, WORDS, 1, 3).join(' ') : randomString(rand));
  if (rand() < 0.6) {
    b.field = pick(rand, TEXT_FIELDS);
    b[queryKey] = query();
    maybe(rand, 0.3, b, 'prefix', () => rand() < 0.8);
  } else {
    b.clauses = Array.from({ length: int(rand, 2, 3) }, () => {
      const c: Body = { field: pick(rand, TEXT_FIELDS), query: query() };
      maybe(rand, 0.3, c, 'prefix', () => rand() < 0.8);
      return c;
    });
  }
  maybe(rand, 0.5, b, 'combine', () => pick(rand, ['Sum', 'Max']));
  maybe(rand, 0.2, b, 'explain', () => rand() < 0.8);
  maybe(rand, 0.2, b, 'highlight', () => (rand() < 0.4 ? {} : { max_fragments: int(rand, 1, 3), fragment_chars: int(rand, 8, 200) }));
}

const vector = (rand: () => number) => randomVector(rand, DIM);

const GENERATORS: Record<Kind, (rand: () => number) => Body> = {
  search(rand) {
    const b: Body = { query: vector(rand) };
    common(rand, b);
    ranked(rand, b);
    maybe(rand, 0.2, b, 'min_score', () => round(rand() * 1.2 - 0.6));
    maybe(rand, 0.15, b, 'exact', () => rand() < 0.5);
    maybe(rand, 0.2, b, 'rank_by', () => decay(rand));
    maybe(rand, 0.15, b, 'plan', () => rand() < 0.7);
    if (rand() < 0.3) {
      b.names = sample(rand, VECTOR_NAMES, 0, 2);
      maybe(rand, 0.5, b, 'name_weights', () => Object.fromEntries(sample(rand, VECTOR_NAMES, 1, 2).map((n) => [n, round(rand() * 3)])));
      maybe(rand, 0.5, b, 'pool', () => pick(rand, ['Max', 'Sum']));
    }
    return b;
  },
  'text-search'(rand) {
    const b: Body = {};
    textLeg(rand, b, 'query');
    common(rand, b);
    ranked(rand, b);
    maybe(rand, 0.15, b, 'min_score', () => round(rand() * 3));
    maybe(rand, 0.2, b, 'rank_by', () => decay(rand));
    return b;
  },
  'hybrid-search'(rand) {
    const b: Body = { vector: vector(rand) };
    textLeg(rand, b, 'text');
    common(rand, b);
    ranked(rand, b);
    maybe(rand, 0.2, b, 'rrf_k', () => (rand() < 0.7 ? int(rand, 1, 100) : round(rand() * 50 + 0.5)));
    maybe(rand, 0.2, b, 'candidates', () => int(rand, 1, 150));
    maybe(rand, 0.2, b, 'vector_weight', () => round(rand() * 2));
    maybe(rand, 0.2, b, 'text_weight', () => (rand() < 0.05 ? -1 : round(rand() * 2)));
    maybe(rand, 0.15, b, 'plan', () => rand() < 0.7);
    return b;
  },
  list(rand) {
    const b: Body = {};
    common(rand, b);
    maybe(rand, 0.3, b, 'offset', () => int(rand, 0, 40));
    maybe(rand, 0.4, b, 'limit', () => int(rand, 0, 60));
    maybe(rand, 0.4, b, 'order_by', () => (rand() < 0.3 ? { field: pick(rand, KEYS) } : { field: pick(rand, KEYS), descending: rand() < 0.5 }));
    return b;
  },
  aggregate(rand) {
    const b: Body = {};
    common(rand, b);
    delete b.include_attributes;
    delete b.exclude_attributes;
    maybe(rand, 0.5, b, 'sum', () => sample(rand, ['year', 'n', 'f', 'page-count', 'part', 'mixed', 'title', 'not'], 1, 3));
    maybe(rand, 0.5, b, 'group_by', () => pick(rand, [...GROUP_FIELDS, 'year', 'f', 'ts']));
    return b;
  },
};

/**
 * The messages the route answers for a request it refuses. A request can break two rules, and the
 * route names the one it reads first, in the order the body's fields are written; a compiled body
 * writes its fields in an order of its own. So a statement's refusal must be one of the route's
 * refusals of the same request with one of its fields written first.
 */
async function refusals(kind: Kind, body: Body): Promise<Set<string>> {
  const messages = new Set<string>();
  for (const first of [undefined, ...Object.keys(body)]) {
    const reordered = first === undefined ? body : { [first]: body[first], ...body };
    const answer = await outcome(typed(store, kind, stringifyExact(reordered)));
    if (answer.status !== 200) messages.add(answer.bytes.toString());
  }
  return messages;
}

const CASES = 160;

/** The random statements of every kind, as the randomized tests render them. */
function randomStatements(kind: Kind): string[] {
  const seed = 1000 + Object.keys(GENERATORS).indexOf(kind);
  const rand = prng(seed);
  const render = new Renderer(prng(seed * 7919));
  return Array.from({ length: CASES }, () => render.statement(kind, GENERATORS[kind](rand)));
}

test('the random statements use every spelling the grammar offers', (t) => {
  const all = (Object.keys(GENERATORS) as Kind[]).flatMap(randomStatements).join('\n;\n');
  const spellings: [string, RegExp][] = [
    ['lower-case keywords', /\bselect\b/],
    ['comments', /\/\*|--/],
    ['FROM', /\bFROM\b/i],
    ['a quoted name', /"[^"]*"/],
    ['"" in a name', /""/],
    ["'' in a string", /''/],
    ['!=', /!=/],
    ['<>', /<>/],
    ['IN', /\bIN \(/i],
    ['NOT IN', /\bNOT IN\b/i],
    ['BETWEEN', /\sBETWEEN\s/i],
    ['NOT BETWEEN', /\bNOT BETWEEN\b/i],
    ['IS NULL', /\bIS NULL\b/i],
    ['IS NOT NULL', /\bIS NOT NULL\b/i],
    ['IS MISSING', /\bIS MISSING\b/i],
    ['IS NOT MISSING', /\bIS NOT MISSING\b/i],
    ['LIKE', /\sLIKE\s/i],
    ['ILIKE', /\bILIKE\b/i],
    ['GLOB', /\sGLOB\s/i],
    ['IGLOB', /\bIGLOB\b/i],
    ['NOT before a pattern', /\bNOT (I?LIKE|I?GLOB|REGEXP|~)/i],
    ['REGEXP', /\bREGEXP\b/i],
    ['~', / ~ /],
    ['CONTAINS ANY', /\bCONTAINS ANY\b/i],
    ['NOT CONTAINS', /\bNOT CONTAINS\b/i],
    ['FUZZY', /\bFUZZY\(/i],
    ['token functions', /\bCONTAINS_TOKEN_SEQUENCE\(/i],
    ['OR', /\bOR\b/i],
    ['NOT (', /\bNOT \(/i],
    ['TIMESTAMP ISO', /\bTIMESTAMP '/i],
    ['TIMESTAMP with an offset', /\+05:30'/],
    ['TIMESTAMP digits', /\bTIMESTAMP -?\d/i],
    ['a Float with an exponent', /\d[eE][+-]?\d/],
    ['-0.0', /-0\.0|-0e0|-\.0/],
    ['Int64 max', /9223372036854775807/],
    ['a List', /\['/],
    ['NEAREST arguments', /names =>/],
    ['GREATEST', /\bGREATEST\(/i],
    ['BM25 +', /\) \+ BM25/i],
    ['prefix =>', /prefix =>/],
    ['RRF k =>', /, k =>/],
    ['RRF rrf_k =>', /rrf_k =>/],
    ['Decay(...)', /Decay\(field =>/],
    ['{Decay: ...}', /\{'?Decay'?:/],
    ['OPTIONS', /\bOPTIONS \(/i],
    ['DESC', /\bDESC\b/i],
    ['ASC', /\bASC\b/i],
    ['GROUP BY', /\bGROUP BY\b/i],
    ['ORDER BY COUNT(*)', /ORDER BY COUNT\(\*\)/i],
    ['EXCEPT', /\bEXCEPT\b/i],
    ['OFFSET', /\bOFFSET\b/i],
    ['a vector spelled .5', /[[, ]-?\.\d/],
  ];
  for (const [what, spelling] of spellings) t.regex(all, spelling, what);
});

for (const kind of Object.keys(GENERATORS) as Kind[]) {
  test(`random ${kind} requests rendered to SQL answer the typed route's bytes, and compile back to the request`, async (t) => {
    const seed = 1000 + Object.keys(GENERATORS).indexOf(kind);
    const rand = prng(seed);
    const render = new Renderer(prng(seed * 7919));
    let answered = 0;
    let refused = 0;
    for (let i = 0; i < CASES; i++) {
      const body = GENERATORS[kind](rand);
      const sql = render.statement(kind, body);
      const label = `seed ${seed} case ${i}\n${sql}\n${stringifyExact(body)}`;
      const viaRoute = await outcome(typed(store, kind, stringifyExact(body)));
      const viaSql = await outcome(store.queryJson(sql));
      t.is(viaSql.status, viaRoute.status, `${label}\nstatement: ${viaSql.bytes}\nroute: ${viaRoute.bytes}`);
      if (viaRoute.status === 200) {
        if (!sameBytes(t, viaSql.bytes, viaRoute.bytes, label)) return;
        if (size(viaRoute.bytes) > 0) answered++;
      } else {
        refused++;
        t.true((await refusals(kind, body)).has(viaSql.bytes.toString()), `${label}\nstatement: ${viaSql.bytes}\nroute: ${viaRoute.bytes}`);
      }
      await compilesTo(t, sql, kind, exact(body) as Body, label);
    }
    // Not vacuous: most requests find something, and a few are refused (alike) by the route.
    t.true(answered >= CASES / 3, `${answered} of ${CASES} answered with hits`);
    t.log(`${kind}: ${answered} non-empty answers, ${refused} refusals, of ${CASES}`);
  });
}

// ---- over HTTP ----

let server: Server | undefined;

async function httpServer(): Promise<Server> {
  if (server !== undefined) return server;
  // In memory: nothing seals or compacts between the two calls of a pair, so even a plan compares.
  const s = await startServer(['--in-memory', '--dimension', String(DIM)]);
  server = s;
  const ok = async (method: string, path: string, body: unknown) => {
    const r = await call(s, method, path, stringifyExact(body).toString('utf8'), { 'content-type': 'application/json' });
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  };
  await load({
    createCollection: (n) => ok('POST', `/collections/${n}`, {}),
    setVectorNames: (n, names) => ok('POST', `/collections/${n}/vector-names`, { names }),
    setFtsSchema: (n, fields) => ok('POST', `/collections/${n}/fts-schema`, { fields }),
    upsert: (n, body) => ok('POST', `/collections/${n}/upsert`, body),
    putAlias: (n, target) => ok('PUT', `/aliases/${n}`, { target }),
  });
  return s;
}
test.after.always(() => server?.stop());

/** POST /query with the statement and POST /<kind> with the typed body: same status, same body. */
async function sameOverHttp(t: ExecutionContext, sql: string, kind: Kind, body: Body | string): Promise<{ status: number; text: string }> {
  const s = await httpServer();
  const viaRoute = await call(s, 'POST', `/${kind}`, bodyBytes(body).toString('utf8'));
  const viaSql = await call(s, 'POST', '/query', JSON.stringify({ sql }));
  t.is(viaSql.status, viaRoute.status, `${sql}: ${viaSql.text} / ${viaRoute.text}`);
  sameBytes(t, Buffer.from(viaSql.text), Buffer.from(viaRoute.text), sql);
  return viaRoute;
}

test.serial("HTTP: POST /query answers the typed routes' bytes and statuses", async (t) => {
  const pairs: [string, Kind, Body | string][] = [
    [
      `SELECT title, n FROM pub WHERE n >= 9007199254740993 ORDER BY NEAREST(${V}) LIMIT 5`,
      'search',
      '{"query":[0.5,-0.25,1,0.125,0,0.75,-0.5,0.3],"scope":["pub"],"filter":[{"Ge":["n",{"Int":9007199254740993}]}],"include_attributes":["title","n"],"top_k":5}',
    ],
    [`SELECT * ORDER BY NEAREST(${V}) OPTIONS (plan = TRUE)`, 'search', { query: Q, plan: true }],
    [
      `SELECT * ORDER BY BM25(title, 'river') + BM25(body, 'gra', prefix => TRUE) OPTIONS (explain = TRUE, highlight = {})`,
      'text-search',
      {
        clauses: [
          { field: 'title', query: 'river' },
          { field: 'body', query: 'gra', prefix: true },
        ],
        explain: true,
        highlight: {},
      },
    ],
    [
      `SELECT * FROM "2024-notes", "docs-2024" ORDER BY RRF(NEAREST(${V}), BM25(text, 'part'), k => 5)`,
      'hybrid-search',
      { scope: ['2024-notes', 'docs-2024'], vector: Q, field: 'text', text: 'part', rrf_k: 5 },
    ],
    [
      `SELECT * EXCEPT (body) WHERE venue IS NOT NULL AND NOT tags CONTAINS 'ann' ORDER BY "page-count" DESC LIMIT 20`,
      'list',
      {
        exclude_attributes: ['body'],
        filter: [{ Ne: ['venue', 'Null'] }, { Not: { Contains: ['tags', { Str: 'ann' }] } }],
        order_by: { field: 'page-count', descending: true },
        limit: 20,
      },
    ],
    [`SELECT g, COUNT(*), SUM(n) GROUP BY g`, 'aggregate', { sum: ['n'], group_by: 'g' }],
  ];
  for (const [sql, kind, body] of pairs) {
    const answer = await sameOverHttp(t, sql, kind, body);
    t.is(answer.status, 200, answer.text);
    t.true(size(Buffer.from(answer.text)) > 0, `${sql}: non-empty`);
  }
});

test.serial("HTTP: a route's refusal comes through POST /query with its status and message", async (t) => {
  const answer = await sameOverHttp(t, `SELECT * ORDER BY NEAREST(${V}) OPTIONS (diversity = -0.5)`, 'search', { query: Q, diversity: -0.5 });
  t.is(answer.status, 400);
  t.regex(answer.text, /diversity/);
});

test.serial('HTTP: an Int64 literal out of range is 400 from POST /query', async (t) => {
  const r = await call(await httpServer(), 'POST', '/query', JSON.stringify({ sql: 'SELECT * WHERE n = 9223372036854775808' }));
  t.is(r.status, 400);
  t.regex(r.json.error, /^SQL error at byte 19: integer 9223372036854775808 does not fit a signed 64-bit Int/);
});

test.serial('HTTP: random requests of every kind, rendered to SQL, answer alike over HTTP', async (t) => {
  const rand = prng(77);
  const render = new Renderer(prng(78));
  for (let i = 0; i < 40; i++) {
    const kind = (Object.keys(GENERATORS) as Kind[])[i % 5];
    const body = GENERATORS[kind](rand);
    await sameOverHttp(t, render.statement(kind, body), kind, body);
  }
});
