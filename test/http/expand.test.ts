// expand over real HTTP: /search, /search/similar, /text-search, /hybrid-search and a
// /search/batch leg accept it and answer each chunk hit's `context` (the same hits, scores and
// order as without it), and a malformed expand is a 400 {"error"} naming the field, the store
// unchanged. The rules themselves are tested through the library (test/core/expand.test.ts).
import test, { type ExecutionContext } from 'ava';
import { type Answer, type Server, call, startServer } from './helpers';

type Hit = { collection: string; id: string; score: number; attrs: Record<string, unknown>; context?: string };

let server: Server;

// Callers cannot write svc.* attributes, so the chunks carry their own and expand names them.
const FIELDS = { parent_field: 'doc', index_field: 'n', text_field: 'body' };
const TEXTS = ['première partie', '第二部分', 'third part 🎉'];

test.before(async () => {
  server = await startServer();
  const records = TEXTS.map((text, n) => ({
    id: `guide#${n}`,
    vector: [1, n / 10, 0, 0],
    attrs: { doc: { Str: 'guide' }, n: { Int: n }, body: { Str: text } },
  }));
  await call(server, 'POST', '/collections/docs/upsert', {
    records: [...records, { id: 'loose', vector: [1, 0.05, 0, 0], attrs: { body: { Str: 'loose part' } } }],
  });
  const r = await call(server, 'POST', '/collections/docs/fts-schema', { fields: ['body'] });
  if (r.status !== 200) throw new Error(`fts-schema failed: ${r.status} ${r.text}`);
});
test.after.always(() => server?.stop());

/** Each route's body around the same page of docs. */
const ROUTES: [string, Record<string, unknown>][] = [
  ['/search', { query: [1, 0, 0, 0] }],
  ['/search/similar', { collection: 'docs', id: 'loose' }],
  ['/text-search', { field: 'body', query: 'part partie 第二部分' }],
  ['/hybrid-search', { vector: [1, 0, 0, 0], field: 'body', text: 'part' }],
];

const stripped = (hits: Hit[]) => hits.map(({ collection, id, score, attrs }) => ({ collection, id, score, attrs }));

test.serial('every ranked route accepts expand and adds context to the chunk hits only, the page otherwise unchanged', async (t) => {
  for (const [path, body] of ROUTES) {
    const plain = await call(server, 'POST', path, body);
    const widened = await call(server, 'POST', path, { ...body, expand: { radius: 1, ...FIELDS } });
    t.is(widened.status, 200, `${path}: ${widened.text}`);
    const hits = widened.json as Hit[];
    t.deepEqual(stripped(hits), stripped(plain.json), `${path}: same hits, scores and order`);
    const middle = hits.find((h) => h.id === 'guide#1');
    t.is(middle?.context, TEXTS.join('\n\n'), `${path}: guide#1 widened to its neighbours`);
    const loose = hits.find((h) => h.id === 'loose');
    if (loose) t.false('context' in loose, `${path}: a hit that is not a chunk has no context`);
  }
});

test.serial('a /search/batch leg accepts expand', async (t) => {
  const r = await call(server, 'POST', '/search/batch', { queries: [{ query: [1, 0, 0, 0], expand: { radius: 1, ...FIELDS } }, { query: [1, 0, 0, 0] }] });
  t.is(r.status, 200, r.text);
  const [widened, plain] = r.json.results as Hit[][];
  t.is(widened.find((h) => h.id === 'guide#0')?.context, TEXTS.slice(0, 2).join('\n\n'));
  t.true(plain.every((h) => !('context' in h)));
});

function isError(t: ExecutionContext, r: Answer, message: RegExp, label: string) {
  t.is(r.status, 400, `${label}: ${r.text}`);
  t.deepEqual(Object.keys(r.json ?? {}), ['error'], `${label}: {error} body`);
  if (typeof r.json?.error === 'string') t.regex(r.json.error, message, label);
}

test.serial('a malformed expand is 400 naming the field on every route, and changes nothing', async (t) => {
  const before = (await call(server, 'GET', '/collections/docs/records')).text;
  const cases: [unknown, RegExp][] = [
    [{ ...FIELDS, text_field: '' }, /expand\.text_field must not be empty/],
    [{ radius: 101 }, /expand\.radius must be at most 100/],
    [{ radius: -2 }, /expand\.radius must not be negative/],
    [{ radius: 0.5 }, /expand\.radius must be a whole number/],
    [{ depth: 1 }, /unknown field 'depth' in expand/],
    [[], /expand must be an object/],
  ];
  for (const [path, body] of ROUTES)
    for (const [expand, message] of cases) isError(t, await call(server, 'POST', path, { ...body, expand }), message, `${path} ${JSON.stringify(expand)}`);
  const leg = await call(server, 'POST', '/search/batch', { queries: [{ query: [1, 0, 0, 0], expand: { parent_field: '' } }] });
  isError(t, leg, /queries\[0\]\.expand\.parent_field must not be empty/, 'batch leg');
  t.is((await call(server, 'GET', '/collections/docs/records')).text, before, 'store unchanged');
});
