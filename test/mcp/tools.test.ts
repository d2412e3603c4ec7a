// The MCP tools (spec, "/mcp") through the SDK's own client over HTTP: the tool list, every tool
// on real data, and tool errors carrying exactly the HTTP route's message.
import test from 'ava';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { call, readerServer, readOnlyServer, runCli, startServer, tempDir } from '../http/helpers';
import { connect, tool } from './helpers';

const serverArgs = ['--dimension', '16', '--embed-provider', 'hash:16'];

const TOOL_NAMES = [
  'remember',
  'recall',
  'text_search',
  'hybrid_search',
  'list_collections',
  'stats',
  'forget',
  'get',
  'browse',
  'related',
  'suggest',
  'code_search',
];

test('initialize names the server; every tool has a description and an object input schema', async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  const client = await connect(t, server);
  t.is(client.getServerVersion()?.name, 'tessera');
  const { tools } = await client.listTools();
  t.deepEqual(
    tools.map((x) => x.name),
    TOOL_NAMES,
  );
  for (const x of tools) {
    t.true((x.description ?? '').length > 40, x.name);
    t.is(x.inputSchema.type, 'object', x.name);
    t.is(x.inputSchema.additionalProperties, false, `${x.name} refuses arguments it does not know`);
  }
  const recall = tools.find((x) => x.name === 'recall')!;
  t.truthy(recall.inputSchema.properties?.rollup, 'recall offers rollup');
  t.falsy(recall.inputSchema.properties?.expand, 'and never expand');
  for (const x of tools) {
    const { vector, ...others } = (x.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
    t.false(JSON.stringify(others).includes('"vector"'), `${x.name} takes no vector`);
    if (vector) t.is(vector.type, 'boolean', `${x.name}'s vector is the search mode switch, not a vector`);
  }
});

test('every tool on real data: remember, recall, text and hybrid search, suggest, browse, get, related, forget', async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  const client = await connect(t, server);

  const a = await tool(client, 'remember', { collection: 'notes', id: 'a', text: 'sourdough bread needs a starter', attrs: { n: { Int: 3 } } });
  t.deepEqual(a.json, { ok: true, upserted: 1, id: 'a', deduped: false });
  await tool(client, 'remember', { collection: 'notes', id: 'b', text: 'tax returns are due in April' });
  await tool(client, 'remember', { collection: 'notes', id: 'c', text: 'rye bread with a sour starter' });

  const recalled = await tool(client, 'recall', { collection: 'notes', query: 'sourdough bread', top_k: 1 });
  t.false(recalled.isError, recalled.text);
  t.is(recalled.json[0].id, 'a');
  t.deepEqual(recalled.json[0].attrs.n, { Int: 3 });

  t.is((await call(server, 'POST', '/collections/notes/fts-schema', { fields: ['svc.text'] })).status, 200);
  const text = await tool(client, 'text_search', {
    scope: ['notes'],
    field: 'svc.text',
    query: 'April',
    rank_by: { Decay: { field: 'svc.created_at', origin: Date.now() } },
  });
  t.deepEqual(
    text.json.map((h: { id: string }) => h.id),
    ['b'],
  );
  const hybrid = await tool(client, 'hybrid_search', { scope: ['notes'], field: 'svc.text', text: 'sourdough bread needs', top_k: 2 });
  t.is(hybrid.json[0].id, 'a', hybrid.text);
  const suggested = await tool(client, 'suggest', { field: 'svc.text', prefix: 'sourd' });
  t.deepEqual(suggested.json.suggestions, [{ term: 'sourdough', df: 1 }]);

  t.deepEqual((await tool(client, 'list_collections')).json, ['notes']);
  t.true((await tool(client, 'stats')).json.features.includes('mcp'));
  const browsed = await tool(client, 'browse', { scope: ['notes'], order_by: { field: 'n' } });
  t.is(browsed.json.length, 3);
  t.is(browsed.json[0].id, 'a');

  const got = await tool(client, 'get', { collection: 'notes', ids: ['c', 'missing', 'a'] });
  t.deepEqual(
    got.json.map((r: { id: string }) => r.id),
    ['c', 'a'],
  );
  t.is(got.json[1].attrs['svc.text'].Str, 'sourdough bread needs a starter');
  t.false(got.text.includes('vector'), 'no vector in a record');

  const related = await tool(client, 'related', { collection: 'notes', id: 'a', top_k: 1 });
  t.is(related.json[0].id, 'c');
  t.false(related.text.includes('vector'));

  t.deepEqual((await tool(client, 'forget', { collection: 'notes', ids: ['a'] })).json, { deleted: 1 });
  t.deepEqual((await tool(client, 'get', { collection: 'notes', ids: ['a'] })).json, []);
  t.deepEqual((await tool(client, 'forget', { collection: 'notes', filter: [{ ContainsAllTokens: ['svc.text', 'rye'] }] })).json, { deleted: 1 });
  t.deepEqual(
    (await tool(client, 'browse', { scope: ['notes'] })).json.map((h: { id: string }) => h.id),
    ['b'],
  );
});

test("a refused call is an MCP tool error carrying exactly the HTTP route's message", async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  const client = await connect(t, server);
  await tool(client, 'remember', { collection: 'notes', id: 'a', text: 'kept' });
  const cases: [string, Record<string, unknown>, string, string, unknown][] = [
    ['remember', { collection: 'notes', text: 'x' }, 'POST', '/collections/notes/remember', { text: 'x' }],
    ['recall', { collection: 'notes', query: 'x', top_k: -1 }, 'POST', '/collections/notes/recall', { query: 'x', top_k: -1 }],
    ['related', { collection: 'notes', id: 'nope' }, 'POST', '/search/similar', { collection: 'notes', id: 'nope' }],
    ['text_search', { field: 'svc.text', query: 'x', clauses: [] }, 'POST', '/text-search', { field: 'svc.text', query: 'x', clauses: [] }],
    ['browse', { include_attributes: ['a'], exclude_attributes: ['b'] }, 'POST', '/list', { include_attributes: ['a'], exclude_attributes: ['b'] }],
  ];
  for (const [name, args, method, path, body] of cases) {
    const answer = await tool(client, name, args);
    const route = await call(server, method, path, body);
    t.is(route.status, 400, path);
    t.true(answer.isError, name);
    t.is(answer.text, route.json.error, name);
  }
  const unknown = await tool(client, 'recall', { collection: 'notes', query: 'x', expand: { radius: 1 } });
  t.true(unknown.isError, 'an argument the tool does not know is refused, not dropped');
  t.regex(unknown.text, /expand/);
});

test("without an embedder remember, recall and hybrid_search are tool errors naming --embed-provider, as remember's route says", async (t) => {
  const server = await startServer(['--dimension', '16']);
  t.teardown(() => server.stop());
  const client = await connect(t, server);
  const route = await call(server, 'POST', '/collections/notes/remember', { id: 'a', text: 'x' });
  t.regex(route.json.error, /--embed-provider/);
  for (const [name, args] of [
    ['remember', { collection: 'notes', id: 'a', text: 'x' }],
    ['recall', { collection: 'notes', query: 'x' }],
    ['hybrid_search', { field: 'svc.text', text: 'x' }],
  ] as const) {
    const answer = await tool(client, name, args);
    t.true(answer.isError, name);
    t.is(answer.text, route.json.error, name);
  }
});

test("--read-only: reads are served; remember, forget and a reinforced recall answer the HTTP layer's 403 message", async (t) => {
  const server = await readOnlyServer(serverArgs, (writer) => call(writer, 'POST', '/collections/notes/remember', { id: 'a', text: 'read only recall' }));
  t.teardown(() => server.stop());
  const client = await connect(t, server);
  const refusal = (await call(server, 'POST', '/collections/notes/remember', { id: 'b', text: 'x' })).json.error;
  t.is(refusal, 'this server is read-only (--read-only); writes are refused');
  t.is((await tool(client, 'recall', { collection: 'notes', query: 'read only recall' })).json[0].id, 'a');
  t.is((await tool(client, 'get', { collection: 'notes', ids: ['a'] })).json[0].id, 'a');
  for (const [name, args] of [
    ['remember', { collection: 'notes', id: 'b', text: 'x' }],
    ['forget', { collection: 'notes', ids: ['a'] }],
    ['recall', { collection: 'notes', query: 'read only recall', reinforce: true }],
  ] as const) {
    const answer = await tool(client, name, args);
    t.true(answer.isError, name);
    t.is(answer.text, refusal, name);
  }
});

test("on a Reader (another process holds the writer lock), remember, forget and a reinforced recall answer upsert's 409 message; a plain recall is served", async (t) => {
  const { writer, reader } = await readerServer(serverArgs, (w) => call(w, 'POST', '/collections/notes/remember', { id: 'a', text: 'reader recall' }));
  t.teardown(() => writer.stop());
  t.teardown(() => reader.stop());
  const client = await connect(t, reader);
  const upsert = await call(reader, 'POST', '/collections/notes/upsert', { records: [{ id: 'z', vector: Array(16).fill(0.25) }] });
  t.is(upsert.status, 409);
  t.is((await tool(client, 'recall', { collection: 'notes', query: 'reader recall' })).json[0].id, 'a');
  for (const [name, args] of [
    ['remember', { collection: 'notes', id: 'b', text: 'x' }],
    ['forget', { collection: 'notes', ids: ['a'] }],
    ['recall', { collection: 'notes', query: 'reader recall', reinforce: true }],
  ] as const) {
    const answer = await tool(client, name, args);
    t.true(answer.isError, name);
    t.is(answer.text, upsert.json.error, name);
  }
});

test('code_search answers a tree ingested with tessera ingest --code, grouped by file', async (t) => {
  const data = tempDir();
  const src = tempDir();
  mkdirSync(path.join(src, 'lib'));
  writeFileSync(
    path.join(src, 'lib', 'parse.ts'),
    '/** Parses a config file into settings. */\nexport function parseConfig(text: string) {\n  return text.split("\\n");\n}\n',
  );
  writeFileSync(path.join(src, 'README.md'), '# Usage\n\nRun the tool.\n');
  const ingested = await runCli(['ingest', '--code', src, '--collection', 'code', '--data', data, '--dimension', '16']);
  t.is(ingested.code, 0, ingested.stderr);
  const server = await startServer(['--data', data, ...serverArgs]);
  t.teardown(() => server.stop());
  const client = await connect(t, server);
  const found = await tool(client, 'code_search', { collection: 'code', query: 'parse config settings', vector: false });
  t.false(found.isError, found.text);
  t.is(found.json.files[0].path, 'lib/parse.ts');
  t.is(found.json.files[0].symbols[0].symbol, 'parseConfig');
  t.false(found.text.includes('split'), 'never a source body');
  const refused = await tool(client, 'code_search', { collection: 'code' });
  t.true(refused.isError);
  t.is(refused.text, (await call(server, 'POST', '/code-search', { collection: 'code' })).json.error);
});
