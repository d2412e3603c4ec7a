// /mcp inside the server's middleware (spec, "/mcp", "Authentication"): bearer token, body limit,
// the session's GET event stream (not cut by --read-timeout, ended cleanly by DELETE and by
// shutdown), deadlines of tool calls, and the route label in metrics.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { call, startServer, until } from '../http/helpers';
import { reply, fakeProvider } from '../memory/providers_server';
import { POST_HEADERS, bareSession, connect, eventStream, inSession, tool } from './helpers';

const serverArgs = ['--dimension', '16', '--embed-provider', 'hash:16'];

test('the /mcp routes load the MCP SDK with their first request, not with the server', (t) => {
  // A fresh process: building every route leaves the SDK (about 0.2 s of a server's start) unloaded.
  const api = path.join(__dirname, '..', '..', 'lib', 'api', 'index.js');
  const script = `require(${JSON.stringify(api)}); console.log(Object.keys(require.cache).filter((f) => f.includes('@modelcontextprotocol')).length)`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  t.is(run.status, 0, run.stderr);
  t.is(run.stdout.trim(), '0');
});

test('with --token, /mcp answers 401 without it and serves the SDK client that sends it', async (t) => {
  const server = await startServer([...serverArgs, '--token', 's3cret']);
  t.teardown(() => server.stop());
  const refused = await call(server, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, POST_HEADERS);
  t.is(refused.status, 401);
  t.regex(refused.json.error, /bearer token/);
  await t.throwsAsync(connect(t, server), { message: /bearer token/ });
  const client = await connect(t, server, { Authorization: 'Bearer s3cret' });
  t.true((await client.listTools()).tools.some((x) => x.name === 'recall'));
});

test('a body above --max-body-bytes is 413 before the transport sees it', async (t) => {
  const server = await startServer([...serverArgs, '--max-body-bytes', '2048']);
  t.teardown(() => server.stop());
  const client = await connect(t, server);
  t.false((await tool(client, 'remember', { collection: 'notes', id: 'a', text: 'small enough' })).isError);
  await t.throwsAsync(tool(client, 'remember', { collection: 'notes', id: 'b', text: 'x'.repeat(4096) }), { message: /--max-body-bytes/ });
  const raw = await call(server, 'POST', '/mcp', 'x'.repeat(4096), POST_HEADERS);
  t.is(raw.status, 413);
  t.regex(raw.json.error, /--max-body-bytes/);
});

test('--max-concurrent-requests counts an open GET stream: beyond it /mcp is shed with 503 until the client leaves the stream', async (t) => {
  const server = await startServer([...serverArgs, '--max-concurrent-requests', '1']);
  t.teardown(() => server.stop());
  const id = await bareSession(server);
  const stream = await eventStream(server, id);
  const shed = await call(server, 'POST', '/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...POST_HEADERS, ...inSession(id) });
  t.is(shed.status, 503);
  t.is(shed.headers.get('retry-after'), '1');
  await stream.cancel();
  await until(
    async () => (await call(server, 'POST', '/mcp', { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...POST_HEADERS, ...inSession(id) })).status === 200,
    'the slot freed once the client left its stream',
  );
  const again = await eventStream(server, id);
  t.is(again.res.status, 200, 'the session may open its GET stream again (the SDK let the old one go)');
  await again.cancel();
});

test('requests outside a session: no session id is 400, an unknown one 404, as the SDK answers', async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
  const none = await call(server, 'POST', '/mcp', list, POST_HEADERS);
  t.is(none.status, 400);
  t.regex(none.json.error.message, /Mcp-Session-Id/);
  const unknown = await call(server, 'POST', '/mcp', list, { ...POST_HEADERS, ...inSession('no-such-session') });
  t.is(unknown.status, 404);
  t.is(unknown.json.error.message, 'Session not found');
  t.is((await call(server, 'GET', '/mcp', undefined, { accept: 'text/event-stream' })).status, 400);
});

test('the GET event stream opens at once, DELETE ends the session and its stream cleanly; metrics label the route /mcp', async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  const id = await bareSession(server);
  const stream = await eventStream(server, id);
  t.is(stream.res.status, 200);
  t.is(stream.res.headers.get('content-type'), 'text/event-stream');
  t.is(stream.res.headers.get('mcp-session-id'), id);
  t.truthy(stream.res.headers.get('x-request-id'));
  const second = await call(server, 'GET', '/mcp', undefined, { accept: 'text/event-stream', ...inSession(id) });
  t.is(second.status, 409, 'one GET stream per session');
  const deleted = await call(server, 'DELETE', '/mcp', undefined, inSession(id));
  t.is(deleted.status, 200);
  t.true(await stream.ended, 'the stream ended cleanly');
  const after = await call(server, 'POST', '/mcp', { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...POST_HEADERS, ...inSession(id) });
  t.is(after.status, 404);
  const metrics = (await call(server, 'GET', '/metrics')).text;
  t.regex(metrics, /svc_http_requests_total\{route="\/mcp",status="2xx"\} \d+/);
});

test('--read-timeout never cuts a GET stream; a writing tool call is judged on --write-timeout, a reading one on --read-timeout', async (t) => {
  // The provider answers each embedding after 600 ms: past the read timeout, well inside the write timeout.
  const slow = await fakeProvider(t, (c, res) => {
    setTimeout(() => reply(res, 200, { data: (c.body.input as string[]).map((_, index) => ({ index, embedding: Array(16).fill(0.25) })) }), 600);
  });
  const server = await startServer(['--dimension', '16', '--embed-provider', `openai:m@${slow.url}`, '--read-timeout', '200ms', '--write-timeout', '20s']);
  t.teardown(() => server.stop());
  const id = await bareSession(server);
  const stream = await eventStream(server, id);
  let ended = false;
  void stream.ended.then(() => (ended = true));
  const client = await connect(t, server);
  t.false((await tool(client, 'remember', { collection: 'notes', id: 'a', text: 'x' })).isError, 'a write waits past --read-timeout');
  await t.throwsAsync(tool(client, 'recall', { collection: 'notes', query: 'x' }), { message: /--read-timeout/ });
  t.false(ended, 'the GET stream outlived --read-timeout three times over');
  t.is((await call(server, 'DELETE', '/mcp', undefined, inSession(id))).status, 200);
  t.true(await stream.ended);
});

test('shutdown ends an open GET stream cleanly and the server exits 0 without waiting out its grace', async (t) => {
  const server = await startServer(serverArgs);
  const id = await bareSession(server);
  const stream = await eventStream(server, id);
  const started = performance.now();
  const code = server.stop('SIGTERM');
  t.true(await stream.ended, 'the stream ended cleanly');
  t.is(await code, 0);
  t.true(performance.now() - started < 5000, 'well inside the 10 s grace');
});

test('protocol versions are negotiated as the SDK does: an unknown one at initialize gets the latest, a later unsupported header is 400', async (t) => {
  const server = await startServer(serverArgs);
  t.teardown(() => server.stop());
  const init = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: POST_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    }),
  });
  const event = (await init.text()).split('\n').find((l) => l.startsWith('data: '))!;
  t.is(JSON.parse(event.slice(6)).result.protocolVersion, LATEST_PROTOCOL_VERSION);
  const id = init.headers.get('mcp-session-id')!;
  const bogus = await call(
    server,
    'POST',
    '/mcp',
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { ...POST_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '1999-01-01' },
  );
  t.is(bogus.status, 400);
  t.regex(bogus.json.error.message, /Unsupported protocol version/);
});

test('a build choosing mcp without memory is refused', (t) => {
  const run = spawnSync(process.execPath, [path.resolve(__dirname, '../../../scripts/features.js')], {
    env: { ...process.env, TESSERA_FEATURES: 'rerank,mcp' },
    encoding: 'utf8',
  });
  t.is(run.status, 2);
  t.regex(run.stderr, /feature mcp needs feature memory/);
});
