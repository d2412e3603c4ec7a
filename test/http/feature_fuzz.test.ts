// The feature routes under hostile bodies (spec, Errors: a caller's fault is a 4xx, never a 500).
// Each field of a valid body of every feature route (memory, code, sql, rerank, and the MCP tools
// that map to them) is replaced by a value of every wrong kind: exact Ints and DateTimes (which
// parse to bigint, on which JSON.stringify throws), numbers past 2^64 and past a double, strings,
// huge and deeply nested values; and sent again as a duplicate key. No answer is a 5xx; each
// refusal is an {"error"} body.
import test, { type ExecutionContext } from 'ava';
import { bareSession, inSession, POST_HEADERS } from '../mcp/helpers';
import { type Call, fakeProvider, reply } from '../memory/providers_server';
import { call, type Server, startServer } from './helpers';

/** Values of every wrong kind, as raw JSON text. */
const HOSTILE = [
  '{"Int":1}',
  '{"Int":99999999999999999999999}',
  '{"DateTime":-9223372036854775809}',
  '{"Float":1.5}',
  '1e400',
  '-1e400',
  '-1',
  '-0',
  '0.5',
  '18446744073709551616',
  '99999999999999999999999999999999999999',
  'null',
  'true',
  '""',
  '"x"',
  '[]',
  '[{"Int":1}]',
  '{}',
  `"${'x'.repeat(100_000)}"`,
  `${'['.repeat(300)}${']'.repeat(300)}`,
  `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`,
];

const DIMENSION = 16;
const vector = Array.from({ length: DIMENSION }, (_, i) => (i === 0 ? 1 : 0));

/** A valid body of each feature route; every field of each is attacked. */
const SEEDS: [string, Record<string, unknown>][] = [
  ['/collections/m/remember', { id: 'm1', text: 'sourdough needs a starter', mode: 'raw', attrs: { n: { Int: 1 } }, ttl_seconds: 60, dedupe_threshold: 0.9 }],
  ['/collections/m/remember', { id: 'm2', text: 'a long text. in two sentences.', chunking: { strategy: 'Recursive', max_chars: 12, overlap_chars: 2 } }],
  [
    '/collections/m/recall',
    {
      query: 'bread',
      top_k: 3,
      min_score: 0,
      filter: [],
      diversity: 0.5,
      rollup: { per_parent: 1, neighbours: 1 },
      rerank: { query: 'bread', overscan: 2 },
      reinforce: true,
      extend_ttl_seconds: 60,
    },
  ],
  ['/code-search', { collection: 'm', query: 'starter', limit: 3, filter: [], vector: false }],
  ['/query', { sql: 'SELECT * FROM m WHERE n = 1 LIMIT 2', compile_only: false }],
  ['/search', { query: vector, top_k: 2, rerank: { query: 'bread', overscan: 2, text_attr: 'svc.text' } }],
];

/** The MCP tools that map to the feature routes, with valid arguments. */
const TOOL_SEEDS: [string, Record<string, unknown>][] = [
  ['remember', { collection: 'm', id: 'm3', text: 'rye rises slowly' }],
  ['recall', { collection: 'm', query: 'rye', top_k: 2 }],
  ['code_search', { collection: 'm', query: 'rye', limit: 2 }],
];

/** Every body a seed yields: each field (and each field of an object field) replaced by each hostile value, then also sent as a duplicate key. */
function* hostileBodies(seed: Record<string, unknown>): Generator<string> {
  const text = JSON.stringify(seed);
  for (const [key, value] of Object.entries(seed)) {
    for (const bad of HOSTILE) {
      yield JSON.stringify({ ...seed, [key]: '\u0000' }).replace('"\\u0000"', () => bad);
      yield `{${JSON.stringify(key)}:${bad},${text.slice(1)}`;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      for (const inner of hostileBodies(value as Record<string, unknown>)) yield JSON.stringify({ ...seed, [key]: '\u0000' }).replace('"\\u0000"', () => inner);
  }
}

/** A Cohere-style reranker answering every document with its length. */
const reranker = (t: ExecutionContext) =>
  fakeProvider(t, (c: Call, res) => reply(res, 200, { results: (c.body.documents as string[]).map((d, index) => ({ index, relevance_score: d.length })) }));

async function featureServer(t: ExecutionContext): Promise<Server> {
  const provider = await reranker(t);
  const server = await startServer([
    '--dimension',
    String(DIMENSION),
    '--embed-provider',
    `hash:${DIMENSION}`,
    '--summarize-provider',
    'extractive',
    '--rerank-provider',
    `cohere:m@${provider.url}`,
  ]);
  t.teardown(() => server.stop());
  t.is((await call(server, 'POST', '/collections/m/remember', { id: 'seed', text: 'bread needs flour and water' })).status, 200);
  return server;
}

/** Sends each body, 8 at a time; resolves the answers that are 5xx or not an {"error"} refusal. */
async function faults(bodies: string[], send: (body: string) => Promise<{ status: number; text: string }>): Promise<string[]> {
  const found: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < bodies.length; i = next++) {
        const { status, text } = await send(bodies[i]);
        let error: unknown = 'none';
        if (status >= 400) {
          try {
            error = JSON.parse(text).error;
          } catch {
            error = undefined;
          }
        }
        if (status >= 500 || typeof error !== 'string') found.push(`${status} ${text.slice(0, 200)} <- ${bodies[i].slice(0, 200)}`);
      }
    }),
  );
  return found;
}

test('every field of every feature route, given a value of each wrong kind or twice, answers a 4xx {"error"}, never a 5xx', async (t) => {
  t.timeout(240_000);
  const server = await featureServer(t);
  for (const [route, seed] of SEEDS) {
    const bodies = [...hostileBodies(seed)];
    const found = await faults(bodies, async (body) => {
      const r = await fetch(server.url + route, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      return { status: r.status, text: await r.text() };
    });
    t.deepEqual(found, [], `${route}: ${found.length} of ${bodies.length}`);
  }
});

test('the MCP tools of the feature routes, given arguments of each wrong kind, answer a tool error, never a server error', async (t) => {
  t.timeout(240_000);
  const server = await featureServer(t);
  const session = await bareSession(server);
  let id = 10;
  for (const [name, seed] of TOOL_SEEDS) {
    const bodies = [...hostileBodies(seed)].map(
      (args) => `{"jsonrpc":"2.0","id":${id++},"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`,
    );
    const found = await faults(bodies, async (body) => {
      const r = await fetch(`${server.url}/mcp`, { method: 'POST', body, headers: { ...POST_HEADERS, ...inSession(session) } });
      const text = await r.text();
      // A JSON-RPC internal error (-32603) is a server fault however the HTTP status reads.
      return { status: /"code":-32603/.test(text) ? 500 : r.status, text: r.status >= 400 ? text : '{"error":"none"}' };
    });
    t.deepEqual(found, [], `${name}: ${found.length} of ${bodies.length}`);
  }
});

test("a wrong type in a feature route's field is a 400 naming the field and quoting the value", async (t) => {
  const server = await featureServer(t);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['/collections/m/remember', { id: 'm1', text: 'hi', mode: { Int: 1 } }, /mode must be one of "raw", "summarize", got \{"Int":1\}/],
    ['/collections/m/remember', { id: 'm1', text: 'hi', ttl_seconds: { Int: 1 } }, /ttl_seconds must be a number, got \{"Int":1\}/],
    ['/collections/m/remember', { id: 'm1', text: 'hi', dedupe_threshold: { Int: 1 } }, /dedupe_threshold must be a number, got \{"Int":1\}/],
    ['/collections/m/recall', { query: 'hi', top_k: { Int: 1 } }, /top_k must be a whole number, got \{"Int":1\}/],
    ['/code-search', { collection: 'c', query: 'q', limit: { Int: 1 } }, /limit must be a whole number, got \{"Int":1\}/],
  ];
  for (const [route, body, message] of cases) {
    const r = await call(server, 'POST', route, body);
    t.is(r.status, 400, `${route} ${JSON.stringify(body)}`);
    t.regex(r.json.error, message);
  }
});
