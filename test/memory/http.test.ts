// The memory routes over HTTP (spec, "Memory routes", cross-cutting rule 6): remember and recall
// through `tessera serve --embed-provider`, a reinforced recall as a write, and a package built
// without feature memory answering 404.
import test from 'ava';
import { createServer } from 'node:net';
import { call, packageBuiltWith, readerServer, readOnlyServer, runCli, startServer, tempDir } from '../http/helpers';
import { closed, fakeProvider, reply } from './providers_server';

/** A port nothing listens on: bound, then released. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const serverArgs = ['--dimension', '16', '--embed-provider', 'hash:16'];

test('remember answers {ok, upserted, id, deduped}; recall answers hits found by meaning', async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  const r = await call(
    server,
    'POST',
    '/collections/notes/remember',
    '{"id": "a", "text": "sourdough bread needs a starter", "attrs": {"n": {"Int": 9007199254740993}}}',
  );
  t.is(r.status, 200);
  t.deepEqual(r.json, { ok: true, upserted: 1, id: 'a', deduped: false });
  await call(server, 'POST', '/collections/notes/remember', { id: 'b', text: 'tax returns are due in April' });
  const hits = await call(server, 'POST', '/collections/notes/recall', { query: 'bread starter', top_k: 1 });
  t.is(hits.status, 200);
  t.is(hits.json[0].id, 'a');
  t.regex(hits.text, /"n":\{"Int":9007199254740993\}/, 'Int values stay exact through remember');
});

test('remember and recall bodies the store refuses are 400 naming the field', async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  const missingId = await call(server, 'POST', '/collections/notes/remember', { text: 'x' });
  t.is(missingId.status, 400);
  t.regex(missingId.json.error, /id is required/);
  const broken = await call(server, 'POST', '/collections/notes/recall', '{"query": ');
  t.is(broken.status, 400);
  const invalid = await call(
    server,
    'POST',
    '/collections/notes/remember',
    Buffer.from([...Buffer.from('{"id": "a", "text": "'), 0xff, 0xfe, ...Buffer.from('"}')]),
  );
  t.is(invalid.status, 400);
  t.regex(invalid.json.error, /not valid UTF-8/);
  const deep = await call(server, 'POST', '/collections/notes/remember', `{"id": "a", "text": "x", "attrs": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
  t.is(deep.status, 400);
  const noQuery = await call(server, 'POST', '/collections/notes/recall', { top_k: 3 });
  t.is(noQuery.status, 400);
  t.regex(noQuery.json.error, /query is required/);
});

test('without an embedder remember and recall are 400 naming --embed-provider', async (t) => {
  const server = await startServer(['--dimension', '16']);
  t.teardown(() => server.stop());
  for (const [route, body] of [
    ['remember', { id: 'a', text: 'x' }],
    ['recall', { query: 'x' }],
  ] as const) {
    const r = await call(server, 'POST', `/collections/notes/${route}`, body);
    t.is(r.status, 400, route);
    t.regex(r.json.error, /--embed-provider/, route);
  }
});

test('--read-only: a plain recall is served, a reinforced recall and remember are 403', async (t) => {
  const server = await readOnlyServer(serverArgs, (writer) => call(writer, 'POST', '/collections/notes/remember', { id: 'a', text: 'read only recall' }));
  t.teardown(() => server.stop());
  const plain = await call(server, 'POST', '/collections/notes/recall', { query: 'read only recall' });
  t.is(plain.status, 200);
  t.is(plain.json[0].id, 'a');
  t.is((await call(server, 'POST', '/collections/notes/recall', { query: 'read only recall', reinforce: true })).status, 403);
  t.is((await call(server, 'POST', '/collections/notes/remember', { id: 'b', text: 'x' })).status, 403);
});

test('on a Reader (another process holds the writer lock), remember and a reinforced recall answer 409 like upsert, and stamp nothing', async (t) => {
  const { writer, reader } = await readerServer(serverArgs, (w) => call(w, 'POST', '/collections/notes/remember', { id: 'a', text: 'reader recall' }));
  t.teardown(() => writer.stop());
  t.teardown(() => reader.stop());
  t.is((await call(reader, 'GET', '/cluster')).json.role, 'Reader');
  const upsert = await call(reader, 'POST', '/collections/notes/upsert', { records: [{ id: 'z', vector: Array(16).fill(0.25) }] });
  t.is(upsert.status, 409);
  for (const [route, body] of [
    ['remember', { id: 'b', text: 'x' }],
    ['recall', { query: 'reader recall', reinforce: true }],
  ] as const) {
    const r = await call(reader, 'POST', `/collections/notes/${route}`, body);
    t.is(r.status, 409, route);
    t.is(r.json.error, upsert.json.error, route);
  }
  const plain = await call(reader, 'POST', '/collections/notes/recall', { query: 'reader recall' });
  t.is(plain.status, 200);
  t.is(plain.json[0].attrs['svc.access_count'], undefined, 'the refused recall stamped nothing');
});

test('on a pinned instance (--at-version), remember and a reinforced recall answer 403 like upsert; a plain recall is served', async (t) => {
  const data = tempDir();
  const writer = await startServer([...serverArgs, '--data', data, '--history-versions', '4']);
  t.teardown(() => writer.stop());
  await call(writer, 'POST', '/collections/notes/remember', { id: 'a', text: 'pinned recall' });
  await call(writer, 'POST', '/flush');
  const { commit_version } = (await call(writer, 'GET', '/versions')).json;
  const pinned = await startServer([...serverArgs, '--data', data, '--at-version', String(commit_version)]);
  t.teardown(() => pinned.stop());
  for (const [route, body] of [
    ['upsert', { records: [{ id: 'z', vector: Array(16).fill(0.25) }] }],
    ['remember', { id: 'b', text: 'x' }],
    ['recall', { query: 'pinned recall', reinforce: true }],
  ] as const) {
    const r = await call(pinned, 'POST', `/collections/notes/${route}`, body);
    t.is(r.status, 403, route);
    t.regex(r.json.error, /pinned at version/, route);
  }
  t.is((await call(pinned, 'POST', '/collections/notes/recall', { query: 'pinned recall' })).json[0].id, 'a');
});

test('a reinforced recall over HTTP stamps the returned entries', async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  await call(server, 'POST', '/collections/notes/remember', { id: 'a', text: 'kettle boils water' });
  await call(server, 'POST', '/collections/notes/recall', { query: 'kettle', reinforce: true });
  const [hit] = (await call(server, 'POST', '/collections/notes/recall', { query: 'kettle' })).json;
  t.deepEqual(hit.attrs['svc.access_count'], { Int: 1 });
});

test('/stats reports the build features', async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  t.deepEqual((await call(server, 'GET', '/stats')).json.features, ['memory', 'rerank', 'mcp', 'code']);
});

test('a bad --embed-provider exits 2 before listening, naming the flag', async (t) => {
  const r = await runCli(['serve', '--port', '0', '--in-memory', '--dimension', '16', '--embed-provider', 'nonsense']);
  t.is(r.code, 2);
  t.regex(r.stderr, /--embed-provider/);
  t.false(r.stdout.includes('listening'));
});

test('a package built without features answers 404 on remember, recall and /mcp, 400 on rerank, and reports no features', async (t) => {
  const server = await startServer(['--dimension', '16'], {}, { cli: packageBuiltWith('') });
  t.teardown(() => server.stop());
  for (const route of ['remember', 'recall'])
    t.is((await call(server, 'POST', `/collections/notes/${route}`, { id: 'a', text: 'x', query: 'x' })).status, 404, route);
  for (const method of ['POST', 'GET', 'DELETE'])
    t.is((await call(server, method, '/mcp', method === 'POST' ? { jsonrpc: '2.0', id: 1, method: 'initialize' } : undefined)).status, 404, `${method} /mcp`);
  t.deepEqual((await call(server, 'GET', '/stats')).json.features, []);
  const rerank = await call(server, 'POST', '/search', { query: Array(16).fill(0.5), rerank: { query: 'x' } });
  t.is(rerank.status, 400);
  t.regex(rerank.json.error, /not in this build \(feature rerank\)/);
});

test('a provider that fails, answers the wrong dimension or is unreachable makes remember 502 naming it, and writes nothing', async (t) => {
  const failing = await fakeProvider(t, (_call, res) => reply(res, 500, { error: 'model overloaded' }));
  const narrow = await fakeProvider(t, (call, res) =>
    reply(res, 200, { data: (call.body.input as string[]).map((_, index) => ({ index, embedding: [0.1, 0.2, 0.3] })) }),
  );
  const dead = await deadPort();
  const cases: [string, RegExp[]][] = [
    [`openai:m@${failing.url}`, [/openai:m@/, /500/, /model overloaded/]],
    [`openai:m@${narrow.url}`, [/\b3\b/, /\b16\b/]],
    [`openai:m@http://127.0.0.1:${dead}`, [/unreachable/]],
  ];
  for (const [spec, messages] of cases) {
    const server = await startServer(['--dimension', '16', '--embed-provider', spec]);
    const r = await call(server, 'POST', '/collections/notes/remember', { id: 'a', text: 'hello' });
    t.is(r.status, 502, spec);
    for (const m of messages) t.regex(r.json.error, m, spec);
    t.deepEqual((await call(server, 'GET', '/collections')).json, [], 'nothing written');
    await server.stop();
  }
});

test('a provider slower than --write-timeout: remember answers 504 and the provider call is abandoned', async (t) => {
  const slow = await fakeProvider(t, () => undefined); // never answers
  // Long enough for the call to reach the provider on a loaded machine before the deadline abandons
  // it (2 s was not, with a benchmark and a fresh build sharing the two cores).
  const server = await startServer(['--dimension', '16', '--embed-provider', `openai:m@${slow.url}`, '--write-timeout', '5s']);
  t.teardown(() => server.stop());
  const r = await call(server, 'POST', '/collections/notes/remember', { id: 'a', text: 'hello' });
  t.is(r.status, 504);
  t.is(slow.calls.length, 1);
  await closed(slow.calls[0]);
  t.pass('the provider saw its request abandoned');
});

test('a reinforced recall is judged on --write-timeout, a plain recall on --read-timeout', async (t) => {
  // The provider answers each embedding after 600 ms: past the read timeout, well inside the write timeout.
  const slow = await fakeProvider(t, (c, res) => {
    setTimeout(() => reply(res, 200, { data: (c.body.input as string[]).map((_, index) => ({ index, embedding: Array(16).fill(0.25) })) }), 600);
  });
  const server = await startServer(['--dimension', '16', '--embed-provider', `openai:m@${slow.url}`, '--read-timeout', '200ms', '--write-timeout', '20s']);
  t.teardown(() => server.stop());
  t.is((await call(server, 'POST', '/collections/notes/remember', { id: 'a', text: 'x' })).status, 200);
  t.is((await call(server, 'POST', '/collections/notes/recall', { query: 'x' })).status, 504);
  const reinforced = await call(server, 'POST', '/collections/notes/recall', { query: 'x', reinforce: true });
  t.is(reinforced.status, 200);
  t.is(reinforced.json[0].id, 'a');
});
