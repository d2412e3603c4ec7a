// POST /query under hostile input (docs/sql.md §16: "No input answers 500"): random token streams
// from the grammar's vocabulary, mutations of valid statements, deep nesting and multi-megabyte
// statements, all against one server. Every answer must be 200 with a JSON body, or 400/404 with
// exactly {"error": string}; never a 500 or a dropped connection, and the server keeps serving.
// Seeded: SQL_FUZZ_SEED and SQL_FUZZ_REQUESTS replay or widen a run; failures print the seed, the
// case number and the statement.
import test, { type ExecutionContext } from 'ava';
import { type Answer, call, openRequest, prng, type Server, startServer } from '../http/helpers';

const SEED = Number(process.env.SQL_FUZZ_SEED ?? 20260517);
const REQUESTS = Number(process.env.SQL_FUZZ_REQUESTS ?? 3000);
const PARALLEL = 8;

let server: Server;
test.before(async () => {
  server = await startServer();
  const papers = [
    {
      id: 'p1',
      vector: [1, 0, 0, 0],
      attrs: {
        title: { Str: 'Vector search at scale' },
        year: { Int: 2021 },
        venue: { Str: 'arXiv' },
        tags: { List: ['ann', 'hnsw'] },
        ts: { DateTime: 1714566600000 },
      },
    },
    {
      id: 'p2',
      vector: [0, 1, 0, 0],
      attrs: { title: { Str: 'BM25 retrieval revisited' }, year: { Int: 2019 }, venue: { Str: 'SIGIR' }, tags: { List: ['bm25'] }, 'page-count': { Int: 12 } },
    },
    {
      id: 'p3',
      vector: [0.6, 0.8, 0, 0],
      attrs: { title: { Str: 'Hybrid retrieval, naïvely' }, year: { Int: 2023 }, score: { Float: 4.5 }, tags: { List: ['ann', 'bm25'] }, gone: 'Null' },
    },
    { id: 'p4', attrs: { title: { Str: 'text only' }, 'svc.parent_id': { Str: 'd' }, 'svc.chunk_index': { Int: 0 }, 'svc.text': { Str: 'text only' } } },
  ];
  for (const r of [
    await call(server, 'POST', '/collections/papers/upsert', { records: papers }),
    await call(server, 'POST', '/collections/notes/upsert', { records: [{ id: 'n1', vector: [0, 0, 1, 0], attrs: { text: { Str: 'a note' } } }] }),
    await call(server, 'POST', '/collections/papers/fts-schema', { fields: ['title', 'tags'] }),
    await call(server, 'POST', '/collections/papers/vector-names', { names: ['title_vec'] }),
    await call(server, 'PUT', '/aliases/cur', { target: 'papers' }),
  ]) {
    if (r.status !== 200) throw new Error(`seeding failed: ${r.status} ${r.text}`);
  }
});
test.after.always(() => server?.stop());

// ---- the vocabulary ----

const KEYWORDS = [
  'SELECT',
  'FROM',
  'WHERE',
  'GROUP',
  'BY',
  'ORDER',
  'LIMIT',
  'OFFSET',
  'OPTIONS',
  'EXCEPT',
  'COUNT',
  'SUM',
  'AND',
  'OR',
  'NOT',
  'IN',
  'IS',
  'NULL',
  'MISSING',
  'BETWEEN',
  'LIKE',
  'ILIKE',
  'GLOB',
  'IGLOB',
  'REGEXP',
  'CONTAINS',
  'ANY',
  'TRUE',
  'FALSE',
  'TIMESTAMP',
  'NEAREST',
  'BM25',
  'GREATEST',
  'RRF',
  'ASC',
  'DESC',
  'FUZZY',
  'CONTAINS_ALL_TOKENS',
  'CONTAINS_ANY_TOKEN',
  'CONTAINS_TOKEN_SEQUENCE',
  'DELETE',
  'DROP',
  'UPDATE',
  'Decay',
];
const NAMES = [
  'title',
  'year',
  'venue',
  'tags',
  'ts',
  'score',
  'gone',
  'svc.expires_at',
  'meta.v2',
  'papers',
  'notes',
  'cur',
  'nowhere',
  'docs-2024',
  '_x',
  'k',
  'rrf_k',
  'names',
  'name_weights',
  'pool',
  'prefix',
  'min_score',
  'exact',
  'rank_by',
  'limit_per',
  'diversity',
  'expand',
  'rerank',
  'plan',
  'explain',
  'highlight',
  'candidates',
  'vector_weight',
  'text_weight',
  'field',
  'origin',
  'scale',
  'radius',
  'query',
  'max',
  'title_vec',
];
const QUOTED = ['"page-count"', '"say ""hi"""', '"ü✓𝄞"', '"', '""', '"papers"', '"\u0000"', '"a\nb"', '"svc.text"'];
const STRINGS = [
  "'vector'",
  "'it''s'",
  "'ünï𝄞'",
  "'\u0000'",
  "'\n'",
  "'('",
  "'%_'",
  "'",
  "''",
  "'\u0001'",
  "'\ud800'",
  "'\udc00x'",
  "'2024-05-01T12:30:00Z'",
  "'2024-02-30'",
  "'Sum'",
  "'Max'",
  "'[z-a]'",
  "'(?i)v.*'",
  "'arXiv'",
  "'\\'",
  "'\u202e'",
];
const NUMBERS = [
  '0',
  '1',
  '-1',
  '2',
  '8',
  '9',
  '42',
  '2021',
  '9223372036854775807',
  '-9223372036854775808',
  '9223372036854775808',
  '-9223372036854775809',
  '1e999',
  '-1e999',
  '1e-999',
  '.5',
  '4.5',
  '-0.0',
  '1e3',
  '00',
  '0x10',
  '1.2.3',
  '99999999999999999999999999',
  '1.',
  '1e',
  '10000',
  '10001',
  '-.5e-3',
];
const VECTORS = [
  '[1, 0, 0, 0]',
  '[0.1, -2, 3e-4, 1]',
  '[1,0,0]',
  '[]',
  '[1e999, 0, 0, 0]',
  '[.5, 1., 0, 0]',
  '[1, 2, 3, 4, 5]',
  "['a', 'b']",
  '[[1]]',
  '[-0, -0.0, 0e0, 1E+2]',
];
const PUNCT = ['(', ')', '[', ']', '{', '}', ',', ';', '=', '!=', '<>', '<', '<=', '>', '>=', '~', '+', '*', '-', '.', '=>', ':', '"', "'", '\\', '%', '`'];
const COMMENTS = ['-- c\n', '/* c */', '/*', '--', '*/', '/* ü */', '-- ü'];
const CONTROL = ['\u0001', '\u00010', '\u000199', '\ud800', '\udfff', '\u0000', '\t', '\r\n', '\u2028', '\ufeff', '\u0085'];

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

function token(rand: () => number): string {
  const r = rand();
  if (r < 0.3) {
    const k = pick(rand, KEYWORDS);
    return rand() < 0.3 ? k.toLowerCase() : k;
  }
  if (r < 0.45) return pick(rand, NAMES);
  if (r < 0.5) return pick(rand, QUOTED);
  if (r < 0.6) return pick(rand, STRINGS);
  if (r < 0.7) return pick(rand, NUMBERS);
  if (r < 0.75) return pick(rand, VECTORS);
  if (r < 0.92) return pick(rand, PUNCT);
  if (r < 0.96) return pick(rand, COMMENTS);
  return pick(rand, CONTROL);
}

/** (a) A random run of tokens, usually starting with SELECT so the parser gets past the first word. */
function tokenStream(rand: () => number): string {
  const parts: string[] = rand() < 0.75 ? ['SELECT'] : [];
  for (let n = 1 + Math.floor(rand() * 40); n > 0; n--) {
    const sep = rand();
    parts.push(sep < 0.8 ? ' ' : sep < 0.9 ? '' : '\n', token(rand));
  }
  return parts.join('');
}

/** Valid statements of every kind and most clauses, each answering 200. */
const VALID = [
  'SELECT * FROM papers',
  "SELECT title, year FROM papers WHERE year >= 2020 AND tags CONTAINS 'ann' AND NOT venue = 'arXiv' ORDER BY NEAREST([0.12, -0.03, 0.88, 0.41]) LIMIT 10 OPTIONS (min_score = 0.3, limit_per = {field: 'venue', max: 2})",
  'SELECT * EXCEPT (tags, "page-count") FROM papers, cur WHERE year BETWEEN 2019 AND 2022 OR title LIKE \'Vec%\' ORDER BY year DESC LIMIT 2 OFFSET 1',
  "SELECT * FROM papers WHERE FUZZY(title, 'vectr', 2) AND CONTAINS_ALL_TOKENS(title, 'vector search') ORDER BY BM25(title, 'vector', prefix => TRUE)",
  "SELECT * FROM papers ORDER BY GREATEST(BM25(title, 'retrieval'), BM25(tags, 'ann')) OPTIONS (explain = TRUE, highlight = {max_fragments: 2})",
  "SELECT title FROM papers ORDER BY BM25(title, 'hybrid') + BM25(tags, 'bm25') LIMIT 3 OPTIONS (rank_by = Decay(field => 'ts', origin => TIMESTAMP '2024-05-01'))",
  "SELECT * FROM papers ORDER BY RRF(NEAREST([1, 0, 0, 0]), BM25(title, 'retrieval'), k => 10, candidates => 50, vector_weight => 2.0) OPTIONS (plan = TRUE)",
  'SELECT venue, COUNT(*), SUM(year), SUM(score) FROM papers WHERE year IS NOT MISSING GROUP BY venue ORDER BY COUNT(*) DESC',
  'SELECT COUNT(*) FROM papers WHERE gone IS NULL OR ts > TIMESTAMP 1714566600000',
  "SELECT * FROM papers WHERE tags CONTAINS ANY ('ann', 'x') AND venue NOT IN ('SIGIR') AND title ~ '(?i)v.*' AND title NOT GLOB '*x[yz]?'",
  "SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0], names => ['title_vec', 'default'], name_weights => {title_vec: 2.0}, pool => 'Sum')",
  'SELECT * FROM papers ORDER BY NEAREST([0.5, 0.5, 0.5, 0.5]) OPTIONS (exact = TRUE, diversity = 0.5, expand = {radius: 1}, plan = FALSE)',
  'SELECT count FROM select WHERE not = 1',
  'SELECT * WHERE "svc.text" IS MISSING AND year <> 5 AND score = 4.5 AND year = -9223372036854775808 -- trailing\n',
  '/* lead */ SELECT title FROM "papers" WHERE title ILIKE \'%ü_\' ; SELECT COUNT(*) ;',
  "SELECT * FROM papers WHERE title = 'it''s' OR tags = ['ann', 'hnsw'] OR year IN (2019, 2021) ORDER BY title",
];

/** Roughly the statement's tokens: strings, quoted names, arrays, words, numbers, single characters. */
const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\[[^\]]*\]|[A-Za-z_][\w.]*|-?\.?\d[\w.+-]*|=>|<=|>=|<>|!=|\S/g;

/** A vocabulary token of the same kind as `t`: a number for a number, a name for a name... */
function likeToken(rand: () => number, t: string): string {
  if (/^-?\.?\d/.test(t)) return pick(rand, NUMBERS);
  if (t.startsWith("'")) return pick(rand, STRINGS);
  if (t.startsWith('"')) return pick(rand, QUOTED);
  if (t.startsWith('[')) return pick(rand, VECTORS);
  if (/^[A-Za-z_]/.test(t)) {
    if (!KEYWORDS.includes(t.toUpperCase())) return pick(rand, NAMES);
    return rand() < 0.2 ? pick(rand, KEYWORDS) : [...t].map((c) => (rand() < 0.5 ? c.toLowerCase() : c.toUpperCase())).join('');
  }
  return pick(rand, PUNCT);
}

/** (b) A valid statement (or a short script of them) with one to three random edits. */
function mutation(rand: () => number): string {
  let s = pick(rand, VALID);
  if (rand() < 0.1) s = `${s}; ${pick(rand, VALID)}`;
  if (rand() < 0.35) {
    // Kind-preserving replacements mostly still parse, so they reach the compiler and the routes.
    const tokens = s.match(TOKENS) ?? [];
    for (let n = 1 + Math.floor(rand() * 2); n > 0; n--) {
      const ti = Math.floor(rand() * tokens.length);
      tokens[ti] = likeToken(rand, tokens[ti] ?? '');
    }
    return tokens.join(' ');
  }
  for (let n = rand() < 0.6 ? 1 : 2 + Math.floor(rand() * 2); n > 0; n--) {
    const at = Math.floor(rand() * (s.length + 1));
    const tokens = s.match(TOKENS) ?? [];
    const ti = Math.floor(rand() * tokens.length);
    switch (Math.floor(rand() * 10)) {
      case 0: // delete a few characters
        s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rand() * 8));
        break;
      case 1: // insert a vocabulary token
        s = `${s.slice(0, at)}${token(rand)}${s.slice(at)}`;
        break;
      case 2: // insert a random character, any code point
        s = `${s.slice(0, at)}${String.fromCharCode(Math.floor(rand() * (rand() < 0.5 ? 128 : 0x10000)))}${s.slice(at)}`;
        break;
      case 3: // duplicate a slice
        s = `${s.slice(0, at)}${s.slice(Math.max(0, at - 20), at)}${s.slice(at)}`;
        break;
      case 4: {
        // swap two characters
        const b = Math.floor(rand() * s.length);
        const [i, j] = at < b ? [at, b] : [b, at];
        if (j < s.length && i < j) s = s.slice(0, i) + s[j] + s.slice(i + 1, j) + s[i] + s.slice(j + 1);
        break;
      }
      case 5: // truncate
        s = s.slice(0, at);
        break;
      case 6: // delete a token
        tokens.splice(ti, 1);
        s = tokens.join(' ');
        break;
      case 7: // duplicate a token
        tokens.splice(ti, 0, tokens[ti] ?? ';');
        s = tokens.join(' ');
        break;
      case 8: {
        // swap two tokens
        const tj = Math.floor(rand() * tokens.length);
        [tokens[ti], tokens[tj]] = [tokens[tj], tokens[ti]];
        s = tokens.join(' ');
        break;
      }
      default: // replace a token by a vocabulary token, often of its own kind
        tokens[ti] = rand() < 0.5 ? token(rand) : likeToken(rand, tokens[ti] ?? '');
        s = tokens.join(' ');
    }
  }
  return s;
}

// ---- sending and judging ----

/** What is wrong with an answer, or null: 200 with JSON, or 400/404 with exactly {"error": string}. */
function wrong(r: Answer | Error): string | null {
  if (r instanceof Error) return `no answer: ${r.message}`;
  if (r.status === 200) return r.json === undefined ? `200 with a body that is not JSON: ${r.text.slice(0, 300)}` : null;
  if (r.status === 400 || r.status === 404) {
    const ok = typeof r.json === 'object' && r.json !== null && typeof r.json.error === 'string' && Object.keys(r.json).length === 1;
    return ok ? null : `${r.status} without an {"error": string} body: ${r.text.slice(0, 300)}`;
  }
  return `${r.status}: ${r.text.slice(0, 300)}`;
}

interface Case {
  label: string;
  body: { sql: string; compile_only?: boolean };
}

/** Sends every case, at most PARALLEL at a time; answers the failures, described so they replay, and a count of each status. */
async function sendAll(cases: Case[]): Promise<{ failures: string[]; statuses: Record<string, number> }> {
  const failures: string[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < cases.length) {
        const c = cases[next++];
        const r = await call(server, 'POST', '/query', c.body).catch((e: Error) => e);
        const problem = wrong(r);
        const status = r instanceof Error ? 'no answer' : r.status === 400 && /^SQL error/.test(r.json?.error) ? '400 SQL error' : String(r.status);
        statuses[status] = (statuses[status] ?? 0) + 1;
        const sql = c.body.sql.length > 300 ? `${c.body.sql.slice(0, 300)}... (${c.body.sql.length} chars)` : c.body.sql;
        if (problem !== null) failures.push(`${c.label} compile_only=${c.body.compile_only ?? false} sql=${JSON.stringify(sql)} -> ${problem}`);
      }
    }),
  );
  return { failures, statuses };
}

/** The server is alive and answers its probes and a plain statement. */
async function stillServing(t: ExecutionContext): Promise<void> {
  t.is(server.proc.exitCode, null, 'the server process is alive');
  t.is(server.proc.signalCode, null, 'the server process is alive');
  t.is((await call(server, 'GET', '/health')).status, 200);
  const r = await call(server, 'POST', '/query', { sql: 'SELECT COUNT(*) FROM papers' });
  t.is(r.status, 200, r.text);
}

function generated(name: string, seed: number, make: (rand: () => number) => string): Case[] {
  const rand = prng(seed);
  return Array.from({ length: REQUESTS }, (_, i) => ({
    label: `${name} seed ${seed} #${i}`,
    body: { sql: make(rand), ...(rand() < 0.25 ? { compile_only: true } : {}) },
  }));
}

// ---- (a) and (b) ----

test.serial(`(a) ${REQUESTS} random token streams from the grammar's vocabulary answer 200 or 400 with an error body (seed ${SEED})`, async (t) => {
  t.timeout(120_000);
  const { failures, statuses } = await sendAll(generated('token stream', SEED, tokenStream));
  t.deepEqual(failures.slice(0, 10), [], `${failures.length} failures; replay with SQL_FUZZ_SEED=${SEED}`);
  t.log('statuses', statuses);
  await stillServing(t);
});

test.serial(`(b) ${REQUESTS} mutations of valid statements answer 200 or 400 with an error body (seed ${SEED + 1})`, async (t) => {
  t.timeout(120_000);
  const { failures, statuses } = await sendAll(generated('mutation', SEED + 1, mutation));
  t.deepEqual(failures.slice(0, 10), [], `${failures.length} failures; replay with SQL_FUZZ_SEED=${SEED}`);
  t.log('statuses', statuses);
  t.true((statuses['200'] ?? 0) > REQUESTS / 20, 'a fair share of the mutants still parse and run');
  await stillServing(t);
});

test.serial('(b) the valid statements the mutations start from answer 200', async (t) => {
  const answers = await Promise.all(VALID.map((sql) => call(server, 'POST', '/query', { sql })));
  for (const [i, r] of answers.entries()) t.is(r.status, 200, `${VALID[i]}: ${r.text.slice(0, 200)}`);
});

// ---- (c) depth and size ----

/** Deeply nested statements: where the parser gives up, 400 naming §6, never a crash. */
const DEEP: [string, string][] = [
  ['10k parentheses', `SELECT * FROM papers WHERE ${'('.repeat(10_000)}year = 1${')'.repeat(10_000)}`],
  ['100k NOTs', `SELECT * FROM papers WHERE ${'NOT '.repeat(100_000)}year = 1`],
  ['10k nested ORs', `SELECT * FROM papers WHERE ${'(year = 1 OR '.repeat(10_000)}year = 2${')'.repeat(10_000)}`],
  ['10k nested ANDs', `SELECT * FROM papers WHERE ${'(year = 1 AND '.repeat(10_000)}year = 2${')'.repeat(10_000)}`],
  ['10k nested option objects', `SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (expand = ${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)})`],
  ['10k nested option lists', `SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (expand = ${'['.repeat(10_000)}'x'${']'.repeat(10_000)})`],
  ['10k nested option calls', `SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (rank_by = ${'Decay(x => '.repeat(10_000)}1${')'.repeat(10_000)})`],
  ['10k unclosed parentheses', `SELECT * FROM papers WHERE ${'('.repeat(10_000)}`],
  ['100k unclosed brackets', `SELECT * FROM papers ORDER BY NEAREST(${'['.repeat(100_000)}`],
];

test.serial('(c) 10k parentheses, 100k NOTs and 10k nested ORs answer 400, not 500', async (t) => {
  t.timeout(120_000);
  const answers = [];
  for (const [label, sql] of DEEP) answers.push([label, await call(server, 'POST', '/query', { sql }).catch((e: Error) => e)] as const);
  for (const [label, r] of answers) {
    t.is(wrong(r), null, label);
    if (!(r instanceof Error)) t.is(r.status, 400, `${label}: ${r.text.slice(0, 200)}`);
  }
  await stillServing(t);
});

/** Nesting forms whose depth the sweep below steps through. */
const NESTING: [string, (n: number) => string][] = [
  ['NOT', (n) => `SELECT * FROM papers WHERE ${'NOT '.repeat(n)}year = 1`],
  ['nested OR', (n) => `SELECT * FROM papers WHERE ${'(year = 1 OR '.repeat(n)}year = 2${')'.repeat(n)}`],
  ['parentheses', (n) => `SELECT * FROM papers WHERE ${'('.repeat(n)}year = 1${')'.repeat(n)}`],
  ['option lists', (n) => `SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (expand = ${'['.repeat(n)}'x'${']'.repeat(n)})`],
  ['option objects', (n) => `SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (expand = ${'{a: '.repeat(n)}1${'}'.repeat(n)})`],
  ['option calls', (n) => `SELECT * FROM papers ORDER BY NEAREST([1, 0, 0, 0]) OPTIONS (rank_by = ${'Decay(x => '.repeat(n)}1${')'.repeat(n)})`],
];

// Every depth, from where the route's own limits refuse it to where the parser gives up, is a 400.
test.serial('(c) every nesting depth answers 200 or 400, never 500', async (t) => {
  t.timeout(120_000);
  const cases: Case[] = [];
  for (const [label, make] of NESTING) for (let n = 250; n <= 12_000; n += 250) cases.push({ label: `${label} x${n}`, body: { sql: make(n) } });
  const { failures } = await sendAll(cases);
  t.deepEqual(failures.slice(0, 10), [], `${failures.length} of ${cases.length} depths failed`);
});

test.serial('(c) the server still serves after the nesting sweep', async (t) => {
  await stillServing(t);
});

const MB5 = 5 << 20;

/** 5 MB statements: under the default --max-body-bytes (64MiB), past the parser's bound unless the bulk is a vector. */
const HUGE: [string, string, number][] = [
  ['a 5 MB string literal', `SELECT * FROM papers WHERE title = '${'x'.repeat(MB5)}'`, 400],
  [
    'a 5 MB IN list',
    `SELECT * FROM papers WHERE venue IN (${Array(Math.floor(MB5 / 7))
      .fill("'arXiv'")
      .join(', ')})`,
    400,
  ],
  [
    'a 5 MB OR chain',
    `SELECT * FROM papers WHERE ${Array(Math.floor(MB5 / 13))
      .fill('year = 2021')
      .join(' OR ')}`,
    400,
  ],
  [
    'a 5 MB SELECT list',
    `SELECT ${Array(Math.floor(MB5 / 7))
      .fill('title')
      .join(', ')} FROM papers`,
    400,
  ],
  [
    'a 200 KB IN list (under the parsed-text bound)',
    `SELECT * FROM papers WHERE venue IN (${Array(Math.floor(200_000 / 9))
      .fill("'arXiv'")
      .join(', ')})`,
    200,
  ],
  [
    'a 5 MB vector',
    `SELECT * FROM papers ORDER BY NEAREST([${Array(Math.floor(MB5 / 5))
      .fill('0.5')
      .join(', ')}])`,
    400,
  ],
  [
    'a 5 MB vector not in JSON spelling',
    `SELECT * FROM papers ORDER BY NEAREST([${Array(Math.floor(MB5 / 4))
      .fill('.5')
      .join(', ')}])`,
    400,
  ],
  ['1 MB of garbage after a valid head', `SELECT * FROM papers WHERE ${'(]'.repeat(1 << 19)}`, 400],
];

test.serial("(c) 5 MB statements answer their 400 (the parsed-text bound, or their route's) under the default --max-body-bytes", async (t) => {
  t.timeout(120_000);
  for (const [label, sql, status] of HUGE) {
    const r = await call(server, 'POST', '/query', { sql }).catch((e: Error) => e);
    t.is(wrong(r), null, label);
    if (!(r instanceof Error)) t.is(r.status, status, `${label}: ${r.text.slice(0, 200)}`);
  }
  await stillServing(t);
});

test('(c) a statement over --max-body-bytes is 413 with an error body', async (t) => {
  const small = await startServer(['--max-body-bytes', '4MiB']);
  t.teardown(() => small.stop());
  // Refused on its declared length, before the body is read (so the client is not left writing it).
  const { req, response } = openRequest(small, 'POST', '/query', Buffer.byteLength(JSON.stringify({ sql: HUGE[0][1] })));
  const r = await response;
  req.destroy();
  t.is(r.status, 413);
  t.regex(JSON.parse(r.text).error, /max-body-bytes/);
  t.is((await call(small, 'GET', '/health')).status, 200);
});
