// POST /query's errors (docs/sql.md §16, spec "POST /query" and Errors): a statement that does not
// parse or compile is 400 `SQL error at byte N: <problem> (docs/sql.md §S <title>)`, N counting
// UTF-8 bytes into `sql`; a compiled statement its route refuses answers that route's own message;
// a bad request body is 400 naming the field. Every case is sent over HTTP with an X-Request-Id,
// which must come back. Each statement below marks the byte the error must point at with ‸, and
// puts multibyte text (ü is 2 bytes, ✓ 3, 𝄞 4) before it, so a character offset cannot pass.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { type Answer, call, type Server, startServer } from '../http/helpers';

/** Where a statement's error must point; removed from the statement before it is sent. */
const HERE = '‸';

/** docs/sql.md's section titles, by number, as its `## §N Title` headings spell them. */
const TITLES = new Map(
  [...readFileSync(path.resolve(__dirname, '../../../docs/sql.md'), 'utf8').matchAll(/^## §(\d+) (.+)$/gm)].map((m) => [
    Number(m[1]),
    m[2].replace(/ \(`[^`]*`\)$/, ''),
  ]),
);

const SQL_ERROR = /^SQL error at byte (\d+): ([\s\S]+) \(docs\/sql\.md §(\d+) ([^()]+)\)$/;

let server: Server;
test.before(async () => {
  server = await startServer();
  const papers = [
    {
      id: 'p1',
      vector: [1, 0, 0, 0],
      attrs: { title: { Str: 'Vector search at scale' }, year: { Int: 2021 }, venue: { Str: 'arXiv' }, tags: { List: ['ann', 'hnsw'] } },
    },
    { id: 'p2', vector: [0, 1, 0, 0], attrs: { title: { Str: 'BM25 revisited' }, year: { Int: 2019 }, venue: { Str: 'SIGIR' }, tags: { List: ['bm25'] } } },
    {
      id: 'p3',
      vector: [0, 0, 1, 0],
      attrs: { title: { Str: 'Hybrid retrieval, naïvely' }, year: { Int: 2023 }, venue: { Str: 'arXiv' }, tags: { List: ['ann', 'bm25'] } },
    },
  ];
  for (const r of [
    await call(server, 'POST', '/collections/papers/upsert', { records: papers }),
    await call(server, 'POST', '/collections/papers/fts-schema', { fields: ['title'] }),
    await call(server, 'PUT', '/aliases/cur', { target: 'papers' }),
  ]) {
    if (r.status !== 200) throw new Error(`seeding failed: ${r.status} ${r.text}`);
  }
});
test.after.always(() => server?.stop());

let requests = 0;

/** POST /query with a fresh X-Request-Id; the answer must echo it. */
async function query(t: ExecutionContext, body: unknown): Promise<Answer> {
  const id = `sql-errors-${++requests}`;
  const r = await call(server, 'POST', '/query', body, { 'content-type': 'application/json', 'x-request-id': id });
  t.is(r.headers.get('x-request-id'), id, `X-Request-Id echoed for ${JSON.stringify(body)?.slice(0, 200)}`);
  return r;
}

/** The statement without its ‸, and the marker's UTF-8 byte offset. */
function marked(template: string): { sql: string; at: number; chars: number } {
  const i = template.indexOf(HERE);
  if (i < 0 || template.includes(HERE, i + 1)) throw new Error(`one ${HERE} expected in ${template}`);
  return { sql: template.slice(0, i) + template.slice(i + 1), at: Buffer.byteLength(template.slice(0, i)), chars: i };
}

/**
 * Sends the statement and expects 400 `SQL error at byte N: <problem> (docs/sql.md §S <title>)`
 * with N at its ‸, S the section, the title docs/sql.md gives it, and the problem matching `problem`.
 */
async function sqlError(t: ExecutionContext, template: string, section: number, problem?: RegExp): Promise<string> {
  const { sql, at, chars } = marked(template);
  t.true(at > chars, `multibyte text before the error in ${template}`);
  const r = await query(t, { sql });
  const shown = JSON.stringify(sql);
  t.is(r.status, 400, `${shown}: ${r.text}`);
  const m = SQL_ERROR.exec(typeof r.json?.error === 'string' ? r.json.error : '');
  if (m === null) {
    t.fail(`${shown}: not an SQL error: ${r.text}`);
    return '';
  }
  t.is(Number(m[1]), at, `byte offset for ${shown}: ${m[0]}`);
  t.is(Number(m[3]), section, `section for ${shown}: ${m[0]}`);
  t.is(m[4], TITLES.get(Number(m[3])) ?? '(no such heading)', `title of §${m[3]} as docs/sql.md heads it: ${m[0]}`);
  if (problem) t.regex(m[2], problem, shown);
  return m[2];
}

/** What must not move when a statement is refused. */
async function snapshot() {
  const [records, versions, collections, aliases] = await Promise.all([
    call(server, 'GET', '/collections/papers/records'),
    call(server, 'GET', '/versions'),
    call(server, 'GET', '/collections'),
    call(server, 'GET', '/aliases'),
  ]);
  return { records: records.text, version: versions.json.commit_version, collections: collections.text, aliases: aliases.text };
}

test('the section titles an error cites are docs/sql.md headings', (t) => {
  for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16]) t.truthy(TITLES.get(n), `§${n}`);
});

// ---- §1 Statements and scripts ----

test('§1 a DELETE statement is 400 at its first byte and deletes nothing', async (t) => {
  const before = await snapshot();
  await sqlError(t, `/* ✓ purge */ ‸DELETE FROM papers WHERE year = 2021`, 1, /only SELECT.*DELETE/);
  await sqlError(t, `/* ✓ */ ‸delete from "papers"`, 1, /only SELECT/);
  t.deepEqual(await snapshot(), before);
});

test('§1 UPDATE, DROP and INSERT are refused like DELETE, changing nothing', async (t) => {
  const before = await snapshot();
  await sqlError(t, `-- ünï\n‸UPDATE papers SET year = 2000`, 1, /only SELECT.*UPDATE/);
  await sqlError(t, `/* 𝄞 */‸DROP TABLE papers`, 1, /only SELECT.*DROP/);
  await sqlError(t, `/* ✓ */ ‸INSERT INTO papers VALUES (1)`, 1, /only SELECT.*INSERT/);
  t.deepEqual(await snapshot(), before);
});

test('§1 a non-SELECT statement anywhere in a script fails it before its first statement runs', async (t) => {
  const before = await snapshot();
  // Statement 1 would fail at run time (wrong dimension); the answer is statement 2's compile error.
  await sqlError(t, `SELECT * FROM "pä" ORDER BY NEAREST([1, 0]); ‸DROP papers`, 1, /only SELECT.*DROP/);
  t.deepEqual(await snapshot(), before);
});

test('§1 an empty script is 400 at its end', async (t) => {
  await sqlError(t, '/* ✓ nothing */‸', 1, /end of input/);
  await sqlError(t, '-- ü\n  ‸', 1, /end of input/);
  const r = await query(t, { sql: '' });
  t.is(r.status, 400);
  t.regex(r.json?.error ?? '', /^SQL error at byte 0: .* \(docs\/sql\.md §1 Statements and scripts\)$/);
});

test('§1 a lone ; or a doubled ; is not a statement', async (t) => {
  await sqlError(t, '/* ü */ ‸;', 1);
  await sqlError(t, 'SELECT * FROM "ü";‸;', 1);
});

// ---- §2 Names ----

test('§2 a name that is not a word must be quoted: the error points at the character that ends the word', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" WHERE page‸-count = 1`, 6);
  await sqlError(t, `SELECT * FROM "ü" WHERE p‸äge = 1`, 6);
  await sqlError(t, `SELECT "ü" FROM ‸1papers`, 5);
});

test('§2 an unterminated quoted name is an error where the name starts', async (t) => {
  await sqlError(t, `/* ✓ */ SELECT ‸"tïtle FROM papers`, 2, /never closed/);
  await sqlError(t, `SELECT "ü" FROM ‸"papers`, 2, /never closed/);
  await sqlError(t, `SELECT * FROM "ü" WHERE ‸"yëar = 1`, 2, /never closed/);
});

test('§2 the control character U+0001 is refused where it stands', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" WHERE year = ‸\u00010`, 2, /U\+0001/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST(‸\u00017)`, 2, /U\+0001/);
});

// ---- §3 Literals ----

test('§3 an integer outside the Int64 range is 400 at the number, on either side', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" WHERE year = ‸9223372036854775808`, 3, /9223372036854775808.*64-bit/);
  await sqlError(t, `SELECT * FROM "ü" WHERE year = ‸-9223372036854775809`, 3, /-9223372036854775809.*64-bit/);
  await sqlError(t, `SELECT * FROM "ü" WHERE year IN (1, ‸99999999999999999999999)`, 3);
  await sqlError(t, `SELECT * FROM "ü" WHERE year = TIMESTAMP ‸9223372036854775808`, 3);
});

test('§3 the Int64 extremes themselves are accepted', async (t) => {
  for (const n of ['9223372036854775807', '-9223372036854775808']) {
    const r = await query(t, { sql: `SELECT * FROM papers WHERE year = ${n}` });
    t.is(r.status, 200, r.text);
    t.deepEqual(r.json, []);
  }
});

test('§3 a TIMESTAMP that is not an ISO 8601 date-time is 400 at TIMESTAMP', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" WHERE year > ‸TIMESTAMP 'yesterday'`, 3, /TIMESTAMP 'yesterday'/);
  await sqlError(t, `SELECT * FROM "ü" WHERE year > ‸TIMESTAMP '2024-02-30'`, 3, /2024-02-30/);
  await sqlError(t, `SELECT * FROM "ü" WHERE year > ‸TIMESTAMP '2024-05-01T24:00:00Z'`, 3);
  await sqlError(t, `SELECT * FROM "ü" WHERE year BETWEEN 1 AND ‸TIMESTAMP '01/05/2024'`, 3);
});

test('§3 a number too large for a double is 400 at the number', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" WHERE score = ‸1e999`, 3, /1e999/);
  await sqlError(t, `SELECT * FROM "ü" WHERE score = ‸-1e999`, 3, /-1e999/);
  await sqlError(t, `SELECT * FROM "ü" WHERE score IN (1.5, ‸2.5e400)`, 3);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (min_score = ‸1e999)`, 3);
});

test('§3 a vector element too large for a double is an SQL error at the array', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST(‸[1, 0, 0, 1e999])`, 3, /too large/);
});

test('§3 a numeric array in WHERE is 400: a List holds strings, a numeric array is a vector', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" WHERE tags = ‸[1, 2]`, 3, /List value holds strings/);
  await sqlError(t, `SELECT * FROM "ü" WHERE tags IN ('ann', ‸[0.5])`, 3, /List value holds strings/);
  await sqlError(t, `SELECT * FROM "ü" WHERE tags CONTAINS ‸[ 1e3 , -2 ]`, 3, /List value holds strings/);
});

test('§3 offsets after a numeric array count the array as it was written', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([ 0.5 , -1e-3,2,  3 ], ‸foo => 1)`, 8);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([.5, 1., 0, 0]) OPTIONS (expand = [1, 2, 3], ‸bogus = [ 4 ])`, 14);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1,0,0,0]) OPTIONS (expand = [ 5 ], limit_per = [1, 2] ‸limit = 1)`, 14, /","/);
});

// ---- §4 SELECT list ----

test('§4 a SELECT list that does not start with *, COUNT, SUM or a name is 400 in the SELECT list', async (t) => {
  await sqlError(t, `/* ✓ */ SELECT‸`, 4, /end of input/);
  await sqlError(t, `/* ✓ */ SELECT ‸1title`, 4);
  await sqlError(t, `/* ✓ */ SELECT ‸'title' FROM papers`, 4);
});

test('§4 a failure after the first item of the SELECT list cites §4', async (t) => {
  await sqlError(t, `SELECT "ü", ‸`, 4);
  await sqlError(t, `SELECT * EXCEPT ("ü", ‸)`, 4);
  await sqlError(t, `SELECT "ü", COUNT(‸x)`, 4);
});

// ---- §5 FROM ----

test('§5 FROM needs a collection name', async (t) => {
  await sqlError(t, `SELECT "ü" FROM‸`, 5, /collection name/);
  await sqlError(t, `SELECT "ü" FROM ‸'papers'`, 5, /collection name/);
});

test('§5 a failure after the first collection name cites §5', async (t) => {
  await sqlError(t, `SELECT * FROM "ü", ‸`, 5);
});

// ---- §6 WHERE ----

test('§6 an incomplete predicate is 400 where the predicate stops', async (t) => {
  const where = `SELECT * FROM "ü" WHERE`;
  await sqlError(t, `${where}‸`, 6);
  await sqlError(t, `${where} year‸`, 6, /comparison operator/);
  await sqlError(t, `${where} year >=‸`, 6, /^expected value but end of input found$/);
  await sqlError(t, `${where} year IN ‸2021`, 6, /"\("/);
  await sqlError(t, `${where} year IN (2021,‸`, 6, /value/);
  await sqlError(t, `${where} year BETWEEN 2019‸`, 6, /AND/);
  await sqlError(t, `${where} year BETWEEN 2019 AND‸`, 6, /value/);
  await sqlError(t, `${where} year IS NOT‸`, 6, /MISSING or NULL/);
  await sqlError(t, `${where} title LIKE ‸3`, 6, /string/);
  await sqlError(t, `${where} tags CONTAINS‸`, 6);
  await sqlError(t, `${where} (year = 1‸`, 6, /"\)"/);
  await sqlError(t, `${where} NOT‸`, 6);
  await sqlError(t, `${where} title = ‸'unterminated`, 3, /never closed/);
});

test('§6 FUZZY takes three arguments and the token predicates two', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" WHERE ‸FUZZY(title, 'vectr')`, 6, /FUZZY takes three arguments/);
  await sqlError(t, `SELECT * FROM "ü" WHERE ‸CONTAINS_ALL_TOKENS(title, 'vector', 2)`, 6, /two arguments/);
});

test('§6 a failure after AND or OR cites §6', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" WHERE year = 1 AND‸`, 6, /end of input/);
  await sqlError(t, `SELECT * FROM "ü" WHERE year = 1 OR ‸)`, 6);
});

// ---- §7 ORDER BY ----

test('§7 ORDER BY needs a head', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY‸`, 7, /NEAREST/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY ‸'year'`, 7);
});

test('§7 ASC on a ranked head is 400 at the head', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY ‸NEAREST([1, 0, 0, 0]) ASC`, 7, /ASC/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY ‸BM25(title, 'x') asc`, 7, /ASC/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY ‸GREATEST(BM25(title, 'x'), BM25(body, 'y')) ASC`, 7, /ASC/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY ‸RRF(NEAREST([1, 0, 0, 0]), BM25(title, 'x')) ASC`, 7, /ASC/);
});

test('§7 DESC on a ranked head is accepted', async (t) => {
  const r = await query(t, { sql: `SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) DESC LIMIT 1` });
  t.is(r.status, 200, r.text);
  t.is(r.json?.[0]?.id, 'p1');
});

// ORDER BY COUNT(*) is the aggregate's only ORDER BY (§12); without an aggregate SELECT list the
// statement is refused citing §12, where that rule is written.
test('§7 ORDER BY COUNT(*) without an aggregate SELECT list is 400 at COUNT', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY ‸COUNT(*)`, 12, /needs an aggregate/);
  await sqlError(t, `SELECT title FROM "ü" ORDER BY ‸count(*) DESC`, 12, /needs an aggregate/);
});

test('§7 §12 ORDER or GROUP without BY cites its clause', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER ‸year`, 7);
  await sqlError(t, `SELECT COUNT(*) FROM "ü" GROUP ‸venue`, 12);
});

// ---- §8 NEAREST ----

test('§8 NEAREST takes a bracketed list of numbers', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST(‸'0.1, 0.2')`, 8);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, ‸'x', 0])`, 8, /number/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0]‸`, 8);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST(‸)`, 8);
});

test('§8 NEAREST refuses an unknown named argument, naming the ones it takes', async (t) => {
  const problem = await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0], ‸top_k => 3)`, 8, /top_k/);
  for (const arg of ['names', 'name_weights', 'pool']) t.true(problem.includes(arg), `${problem} names ${arg}`);
});

test('§8 NEAREST refuses an argument given twice, at the second', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0], pool => 'Sum', ‸pool => 'Max')`, 8, /pool twice/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0], names => ['a'], pool => 'Sum', ‸names => ['b'])`, 8, /names twice/);
});

// ---- §9 BM25 ----

test('§9 BM25 takes a field and a query string', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY BM25(title‸)`, 9, /","/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY BM25(title, ‸vector)`, 9, /string/);
});

test('§9 BM25 refuses an unknown named argument, naming prefix', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY BM25(title, 'x', ‸fuzzy => TRUE)`, 9, /fuzzy.*prefix/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY BM25(title, 'x') + BM25(body, 'y', ‸k1 => 1.2)`, 9, /k1.*prefix/);
});

test('§9 BM25 refuses prefix given twice', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY BM25(title, 'x', prefix => TRUE, ‸prefix => FALSE)`, 9, /prefix twice/);
});

test('§9 a failure after the first BM25 of a sum or GREATEST cites §9', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY BM25(title, 'x') +‸`, 9);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY GREATEST(BM25(title, 'x'), ‸)`, 9);
});

test('§1 a script longer than 262,144 characters besides its numeric arrays is 400 where the bound falls', async (t) => {
  const head = `/* ✓ */ SELECT * FROM "ü" WHERE title = '`;
  await sqlError(t, `${head}${'x'.repeat(262_144 - head.length)}‸${'x'.repeat(1000)}'`, 1, /at most 262144 are read/);
});

test('§1 numeric arrays do not count against the bound: a 1 MB vector reaches its route', async (t) => {
  const vector = Array(200_000).fill('0.25').join(', ');
  const r = await query(t, { sql: `SELECT * FROM "ü" ORDER BY NEAREST([${vector}])` });
  t.is(r.status, 400);
  t.regex(r.json.error, /^query has length 200000 but the store dimension is \d+$/);
});

// ---- §10 RRF ----

test('§10 NEAREST inside RRF takes no arguments', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY RRF(NEAREST([1, 0, 0, 0], ‸names => ['a']), BM25(title, 'x'))`, 10, /no named arguments/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY RRF(NEAREST([1, 0, 0, 0], ‸pool => 'Sum'), BM25(title, 'x'))`, 10, /no named arguments/);
});

test('§10 RRF refuses an unknown named argument, naming the ones it takes', async (t) => {
  const problem = await sqlError(t, `SELECT * FROM "ü" ORDER BY RRF(NEAREST([1, 0, 0, 0]), BM25(title, 'x'), ‸top_k => 5)`, 10, /top_k/);
  for (const arg of ['k', 'rrf_k', 'candidates', 'vector_weight', 'text_weight']) t.true(problem.includes(arg), `${problem} names ${arg}`);
});

test('§10 RRF refuses k and rrf_k together: one field set twice', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY RRF(NEAREST([1, 0, 0, 0]), BM25(title, 'x'), k => 10, ‸rrf_k => 20)`, 10, /twice/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY RRF(NEAREST([1, 0, 0, 0]), BM25(title, 'x'), candidates => 10, ‸candidates => 20)`, 10, /twice/);
});

test('§10 RRF starts with NEAREST', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY RRF(‸BM25(title, 'x'), NEAREST([1, 0, 0, 0]))`, 10, /NEAREST/);
});

test('§10 RRF without a text head cites §10', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY RRF(NEAREST([1, 0, 0, 0])‸)`, 10);
});

// ---- §11 Listing ----

test('§11 a list statement takes no OPTIONS', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY year DESC OPTIONS (‸limit = 5)`, 14, /takes no OPTIONS/);
  await sqlError(t, `SELECT * FROM "ü" OPTIONS (‸min_score = 0.5)`, 14, /takes no OPTIONS/);
});

// ---- §12 Aggregates ----

test('§12 an aggregate SELECT list may not hold *', async (t) => {
  await sqlError(t, `/* ✓ */ SELECT ‸* FROM "ü" GROUP BY venue`, 12, /not \*/);
});

test('§12 an aggregate SELECT list may name only the GROUP BY key besides COUNT and SUM', async (t) => {
  await sqlError(t, `SELECT COUNT(*), SUM("ü"), ‸title FROM papers`, 12, /title is neither aggregated nor grouped/);
  await sqlError(t, `SELECT "vënue", COUNT(*), ‸title FROM "ü" GROUP BY "vënue"`, 12, /title is neither aggregated nor the GROUP BY key/);
  await sqlError(t, `/* ✓ */ SELECT ‸title FROM "ü" GROUP BY venue`, 12, /title/);
});

test('§12 LIMIT and OFFSET do not apply to an aggregate', async (t) => {
  await sqlError(t, `SELECT COUNT(*) FROM "ü" LIMIT ‸5`, 12, /LIMIT/);
  await sqlError(t, `SELECT COUNT(*) FROM "ü" GROUP BY venue OFFSET ‸1`, 12, /OFFSET/);
});

// OPTIONS on an aggregate cites §14, the section that says which kind takes which OPTIONS (a list
// statement's OPTIONS cite it too).
test('§12 OPTIONS do not apply to an aggregate', async (t) => {
  await sqlError(t, `SELECT COUNT(*) FROM "ü" OPTIONS (‸min_score = 1)`, 14, /aggregate takes no OPTIONS/);
});

test('§12 the only ORDER BY of an aggregate is COUNT(*) DESC', async (t) => {
  await sqlError(t, `SELECT venue, COUNT(*) FROM "ü" GROUP BY venue ORDER BY ‸venue`, 12, /COUNT\(\*\) DESC/);
  await sqlError(t, `SELECT venue, COUNT(*) FROM "ü" GROUP BY venue ORDER BY ‸COUNT(*) ASC`, 12, /COUNT\(\*\) DESC/);
  await sqlError(t, `SELECT COUNT(*) FROM "ü" ORDER BY ‸NEAREST([1, 0, 0, 0])`, 12);
  const r = await query(t, { sql: 'SELECT venue, COUNT(*) FROM papers GROUP BY venue ORDER BY COUNT(*) DESC' });
  t.is(r.status, 200, r.text);
});

test('§12 GROUP BY needs a key', async (t) => {
  await sqlError(t, `SELECT COUNT(*) FROM "ü" GROUP BY‸`, 12, /attribute name/);
});

// ---- §13 LIMIT and OFFSET ----

test('§13 LIMIT and OFFSET take non-negative integers', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" LIMIT ‸-1`, 13, /non-negative integer/);
  await sqlError(t, `SELECT * FROM "ü" LIMIT 1 OFFSET ‸-1`, 13, /non-negative integer/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0]) LIMIT ‸ten`, 13, /non-negative integer/);
  await sqlError(t, `SELECT * FROM "ü" LIMIT‸`, 13, /non-negative integer/);
});

// ---- §14 OPTIONS ----

/** Each ranked kind's statement head and the OPTIONS docs/sql.md §8, §9 and §10 list for it. */
const KINDS = [
  {
    kind: 'search',
    head: 'NEAREST([1, 0, 0, 0])',
    takes: ['min_score', 'exact', 'rank_by', 'limit_per', 'diversity', 'expand', 'rerank', 'plan'],
    not: ['explain', 'highlight', 'top_k', 'scope', 'names', 'bogus'],
  },
  {
    kind: 'text-search',
    head: "BM25(title, 'vector')",
    takes: ['min_score', 'rank_by', 'limit_per', 'diversity', 'expand', 'rerank', 'explain', 'highlight'],
    not: ['plan', 'exact', 'prefix', 'combine', 'offset'],
  },
  {
    kind: 'hybrid-search',
    head: "RRF(NEAREST([1, 0, 0, 0]), BM25(title, 'vector'))",
    takes: ['limit_per', 'diversity', 'expand', 'rerank', 'explain', 'highlight', 'plan'],
    not: ['min_score', 'rank_by', 'exact', 'rrf_k', 'candidates', 'filter'],
  },
];

/** A value of the right shape for each option, and what it compiles to. */
const OPTION_VALUES: Record<string, [string, unknown]> = {
  min_score: ['0.25', 0.25],
  exact: ['TRUE', true],
  rank_by: ["Decay(field => 'year', origin => TIMESTAMP '2024-05-01')", { Decay: { field: 'year', origin: 1714521600000 } }],
  limit_per: ["{field: 'venue', max: 2}", { field: 'venue', max: 2 }],
  diversity: ['0.5', 0.5],
  expand: ['{radius: 1}', { radius: 1 }],
  rerank: ["{query: 'ünï', overscan: 3}", { query: 'ünï', overscan: 3 }],
  plan: ['TRUE', true],
  explain: ['TRUE', true],
  highlight: ["{'max_fragments': 2}", { max_fragments: 2 }],
};

for (const { kind, head, takes, not } of KINDS) {
  test(`§14 a ${kind} statement takes OPTIONS ${takes.join(', ')}`, async (t) => {
    const sql = `SELECT * FROM papers ORDER BY ${head} OPTIONS (${takes.map((o) => `${o} = ${OPTION_VALUES[o][0]}`).join(', ')})`;
    const r = await query(t, { sql, compile_only: true });
    t.is(r.status, 200, `${sql}: ${r.text}`);
    t.is(r.json?.kind, kind);
    for (const o of takes) t.deepEqual(r.json?.options?.[o], OPTION_VALUES[o][1], o);
  });

  test(`§14 any other OPTIONS name on ${kind} is 400 naming the ones it takes`, async (t) => {
    for (const name of not) {
      const first = `${takes[0]} = ${OPTION_VALUES[takes[0]][0]}`;
      const problem = await sqlError(t, `SELECT * FROM "ü" ORDER BY ${head} OPTIONS (${first}, ‸${name} = 1)`, 14, new RegExp(`\\b${name}\\b`));
      const named = /it takes (.+)$/.exec(problem)?.[1].split(', ');
      t.deepEqual(named?.sort(), [...takes].sort(), problem);
    }
  });
}

test('§14 include_attributes and exclude_attributes are not OPTIONS: a projection comes from the SELECT list alone', async (t) => {
  // So SQL cannot send both at once (the routes' 400 for that has no SQL spelling).
  await sqlError(t, `SELECT * EXCEPT (year) FROM "ü" ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (‸include_attributes = ['title'])`, 14);
  await sqlError(t, `SELECT title FROM "ü" ORDER BY BM25(title, 'x') OPTIONS (‸exclude_attributes = ['year'])`, 14);
});

test('§14 an OPTIONS name set twice is 400 at its second setting', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (min_score = 0.1, exact = TRUE, ‸min_score = 0.2)`, 14, /min_score twice/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY BM25(title, 'x') OPTIONS (explain = TRUE, ‸explain = FALSE)`, 14, /explain twice/);
});

test('§14 an OPTIONS name set twice is 400 naming the ones the kind takes', async (t) => {
  const problem = await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (min_score = 0.1, ‸min_score = 0.2)`, 14, /min_score/);
  for (const name of KINDS[0].takes) t.true(problem.includes(name), `${problem} names ${name}`);
});

test('§14 OPTIONS need a name = value list', async (t) => {
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS‸`, 14, /"\("/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (min_score =‸)`, 14, /value/);
  await sqlError(t, `SELECT * FROM "ü" ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (‸)`, 14);
});

// ---- the routes' own 400s (§16: the route's status and message) ----

/** Statements their route refuses, and the equivalent typed request. */
const ROUTE_400S: [string, string, string, Record<string, unknown>][] = [
  [
    'diversity outside [0, 1]',
    'SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (diversity = 7)',
    '/search',
    { query: [1, 0, 0, 0], scope: ['papers'], diversity: 7 },
  ],
  [
    'offset + top_k above 10000 (vector)',
    'SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) LIMIT 10000 OFFSET 1',
    '/search',
    { query: [1, 0, 0, 0], scope: ['papers'], top_k: 10000, offset: 1 },
  ],
  [
    'offset + top_k above 10000 (text)',
    "SELECT * FROM papers ORDER BY BM25(title, 'vector') LIMIT 9999 OFFSET 2",
    '/text-search',
    { field: 'title', query: 'vector', scope: ['papers'], top_k: 9999, offset: 2 },
  ],
  [
    'offset + top_k above 10000 (hybrid)',
    "SELECT * FROM papers ORDER BY RRF(NEAREST([1, 0, 0, 0]), BM25(title, 'vector')) LIMIT 10001",
    '/hybrid-search',
    { vector: [1, 0, 0, 0], field: 'title', text: 'vector', scope: ['papers'], top_k: 10001 },
  ],
  ['an unparseable REGEXP', "SELECT * FROM papers WHERE title REGEXP '(unclosed'", '/list', { scope: ['papers'], filter: [{ Regex: ['title', '(unclosed'] }] }],
  [
    'an unparseable ~ under NOT in a vector search',
    "SELECT * FROM papers WHERE NOT title ~ '[z-a]' ORDER BY NEAREST([1, 0, 0, 0])",
    '/search',
    { query: [1, 0, 0, 0], scope: ['papers'], filter: [{ Not: { Regex: ['title', '[z-a]'] } }] },
  ],
  ['a FUZZY budget of 9', "SELECT * FROM papers WHERE FUZZY(title, 'vectr', 9)", '/list', { scope: ['papers'], filter: [{ Fuzzy: ['title', 'vectr', 9] }] }],
  [
    'a FUZZY budget of 9 in an aggregate',
    "SELECT COUNT(*) FROM papers WHERE year > 1 AND FUZZY(title, 'vectr', 9)",
    '/aggregate',
    { scope: ['papers'], filter: [{ Gt: ['year', { Int: 1 }] }, { Fuzzy: ['title', 'vectr', 9] }] },
  ],
  ['a vector of the wrong dimension', 'SELECT * FROM papers ORDER BY NEAREST([1, 0, 0])', '/search', { query: [1, 0, 0], scope: ['papers'] }],
  ['an empty vector', 'SELECT * FROM papers ORDER BY NEAREST([])', '/search', { query: [], scope: ['papers'] }],
  [
    'a hybrid vector of the wrong dimension',
    "SELECT * FROM papers ORDER BY RRF(NEAREST([1, 0, 0, 0, 0]), BM25(title, 'vector'))",
    '/hybrid-search',
    { vector: [1, 0, 0, 0, 0], field: 'title', text: 'vector', scope: ['papers'] },
  ],
  [
    'a malformed rank_by',
    "SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (rank_by = Decay(field => 'year', origin => 0, scale => 0))",
    '/search',
    { query: [1, 0, 0, 0], scope: ['papers'], rank_by: { Decay: { field: 'year', origin: 0, scale: 0 } } },
  ],
  [
    'a negative vector_weight',
    "SELECT * FROM papers ORDER BY RRF(NEAREST([1, 0, 0, 0]), BM25(title, 'vector'), vector_weight => -1)",
    '/hybrid-search',
    { vector: [1, 0, 0, 0], field: 'title', text: 'vector', scope: ['papers'], vector_weight: -1 },
  ],
  [
    'limit_per.max of 0',
    "SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (limit_per = {field: 'venue', max: 0})",
    '/search',
    { query: [1, 0, 0, 0], scope: ['papers'], limit_per: { field: 'venue', max: 0 } },
  ],
  [
    'an undeclared named vector',
    "SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0], names => ['nope'])",
    '/search',
    { query: [1, 0, 0, 0], scope: ['papers'], names: ['nope'] },
  ],
  [
    'rerank without a rerank provider',
    "SELECT * FROM papers ORDER BY BM25(title, 'vector') OPTIONS (rerank = {query: 'vector'})",
    '/text-search',
    { field: 'title', query: 'vector', scope: ['papers'], rerank: { query: 'vector' } },
  ],
  [
    'a misspelt pool',
    "SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0], pool => 'Median')",
    '/search',
    { query: [1, 0, 0, 0], scope: ['papers'], pool: 'Median' },
  ],
];

for (const [name, sql, route, body] of ROUTE_400S) {
  test(`§16 a statement its route refuses answers that route's 400: ${name}`, async (t) => {
    const direct = await call(server, 'POST', route, body);
    t.is(direct.status, 400, `${route} ${JSON.stringify(body)}: ${direct.text}`);
    const r = await query(t, { sql });
    t.is(r.status, direct.status, r.text);
    t.is(r.json?.error, direct.json?.error);
    t.notRegex(r.json?.error ?? '', /^(SQL error|statement \d)/, 'a single statement carries no prefix');
  });
}

test('§16 a refused statement changes nothing', async (t) => {
  const before = await snapshot();
  for (const [, sql] of ROUTE_400S) t.is((await query(t, { sql })).status, 400, sql);
  t.deepEqual(await snapshot(), before);
});

// ---- the request body ----

test('a body that is not JSON is 400 with an error body', async (t) => {
  for (const body of ['SELECT * FROM papers', '{"sql": "SELECT *"', '{sql: "SELECT *"}', '']) {
    const r = await query(t, body);
    t.is(r.status, 400, body);
    t.is(typeof r.json?.error, 'string', `${body}: ${r.text}`);
  }
});

test('a body that is not an object is 400 saying so', async (t) => {
  for (const body of ['null', '[]', '["SELECT * FROM papers"]', '"SELECT * FROM papers"', '42', 'true']) {
    const r = await query(t, body);
    t.is(r.status, 400, body);
    t.regex(r.json?.error ?? '', /must be an object/, body);
    t.regex(r.json?.error ?? '', /"sql"/, `${body}: the message shows the shape`);
  }
});

test('a body without sql is 400 naming sql', async (t) => {
  for (const body of [{}, { compile_only: true }]) {
    const r = await query(t, body);
    t.is(r.status, 400);
    t.regex(r.json?.error ?? '', /\bsql\b.*required/, JSON.stringify(body));
  }
});

test('sql that is not a string is 400 naming sql', async (t) => {
  for (const sql of [1, null, true, ['SELECT * FROM papers'], { select: '*' }]) {
    const r = await query(t, { sql });
    t.is(r.status, 400, JSON.stringify(sql));
    t.regex(r.json?.error ?? '', /\bsql\b.*string/, JSON.stringify(sql));
  }
});

test('compile_only that is not a boolean is 400 naming compile_only', async (t) => {
  for (const compile_only of ['true', 1, 0, null, 'yes', []]) {
    const r = await query(t, { sql: 'SELECT * FROM papers', compile_only });
    t.is(r.status, 400, JSON.stringify(compile_only));
    t.regex(r.json?.error ?? '', /compile_only/, JSON.stringify(compile_only));
  }
});

test('an unknown field is 400 naming it', async (t) => {
  for (const [body, field] of [
    [{ sql: 'SELECT * FROM papers', limit: 5 }, 'limit'],
    [{ sql: 'SELECT * FROM papers', compileOnly: true }, 'compileOnly'],
    [{ query: 'SELECT * FROM papers' }, 'query'],
  ] as const) {
    const r = await query(t, body);
    t.is(r.status, 400, JSON.stringify(body));
    t.regex(r.json?.error ?? '', new RegExp(`unknown field '${field}'`), JSON.stringify(body));
  }
});

test('a body that is not valid UTF-8 is 400', async (t) => {
  const bodies = [
    Buffer.concat([Buffer.from('{"sql":"SELECT * FROM papers WHERE title = \''), Buffer.from([0xff, 0xfe]), Buffer.from('\'"}')]),
    Buffer.concat([Buffer.from('{"sql":"SELECT * FROM \\"'), Buffer.from([0xc3]), Buffer.from('\\""}')]),
    Buffer.concat([Buffer.from('{"sql":"SELECT * FROM papers /* '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(' */"}')]),
  ];
  for (const body of bodies) {
    const r = await query(t, body);
    t.is(r.status, 400, body.toString('latin1'));
    t.regex(r.json?.error ?? '', /UTF-8/, r.text);
  }
});
