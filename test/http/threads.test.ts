// Several HTTP threads over one store (--http-threads): each accepts on the port; what is per server
// stays per server: one --max-concurrent-requests across threads, one /metrics counting every
// thread's requests once, a write seen at once by a read on another thread, an MCP session usable
// from any thread, a dead thread taking the process down, no acknowledged write lost at shutdown.
// Which thread served a request is read from the access log (--log-level debug), which names it.
import test, { type ExecutionContext } from 'ava';
import * as http from 'node:http';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { type Server, call, startServer, tempDir, until } from './helpers';
import { fakeProvider, reply } from '../memory/providers_server';

const THREADED = ['--http-threads', '2', '--log-level', 'debug'];

interface Sent {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/** One request over `agent`'s connection. */
function send(server: Server, agent: http.Agent, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = http.request(`${server.url}${path}`, {
      method,
      agent,
      headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The thread the access log says served request `id`, once its line is written. */
async function servedBy(server: Server, id: string): Promise<number> {
  let thread = -1;
  await until(() => {
    for (const line of server.stderr().split('\n')) {
      if (!line.includes(`"reqId":"${id}"`) || !line.includes('"msg":"request"')) continue;
      thread = JSON.parse(line).thread;
      return true;
    }
    return false;
  }, `an access log line for ${id}`);
  return thread;
}

let probes = 0;

/**
 * A kept-alive connection to each of the server's threads, by thread: new connections until the
 * kernel has given one to each (each lands on a thread at random).
 */
async function connectionPerThread(server: Server, threads = 2): Promise<http.Agent[]> {
  const agents: http.Agent[] = [];
  for (let tries = 0; agents.filter(Boolean).length < threads; tries++) {
    if (tries > 200) throw new Error('the kernel never spread 200 connections over every thread');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const id = `probe-${++probes}`;
    await send(server, agent, 'GET', '/stats', undefined, { 'x-request-id': id });
    const thread = await servedBy(server, id);
    if (agents[thread]) agent.destroy();
    else agents[thread] = agent;
  }
  return agents;
}

async function threadedServer(t: { teardown(f: () => void): void }, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const server = await startServer([...THREADED, ...args], env);
  t.teardown(() => void server.stop());
  const agents = await connectionPerThread(server);
  t.teardown(() => {
    for (const agent of agents) agent.destroy();
  });
  return { server, agents };
}

/** `writes` upserts into collection c, each searched for at once on the other thread than the one that wrote it. */
async function writeHereReadThere(t: ExecutionContext, server: Server, agents: http.Agent[], prefix: string, writes: number): Promise<void> {
  for (let i = 0; i < writes; i++) {
    const [writer, reader] = i % 2 === 0 ? [agents[0], agents[1]] : [agents[1], agents[0]];
    const vector = [1, i, 0.5, 0];
    t.is((await send(server, writer, 'POST', `${prefix}/collections/c/upsert`, { records: [{ id: `r${i}`, vector }] })).status, 200);
    const hits = JSON.parse((await send(server, reader, 'POST', `${prefix}/search`, { scope: ['c'], query: vector, top_k: 1 })).text);
    t.is(hits[0].id, `r${i}`, `write ${i} read at once on the other thread`);
  }
}

test('each thread accepts on the one port; a store written on one thread is read on the other at once', async (t) => {
  const { server, agents } = await threadedServer(t);
  t.is((await send(server, agents[0], 'POST', '/collections/c', {})).status, 200);
  await writeHereReadThere(t, server, agents, '', 20);
});

test('--max-concurrent-requests is one limit across threads: with two slow requests held on two threads, a third on either is shed once', async (t) => {
  const held: (() => void)[] = [];
  const provider = await fakeProvider(t, (c, res) => {
    held.push(() => reply(res, 200, { data: (c.body.input as string[]).map((_, index) => ({ index, embedding: [1, 0, 0, 0] })) }));
  });
  const { server, agents } = await threadedServer(t, ['--embed-provider', `openai:m@${provider.url}`, '--max-concurrent-requests', '2']);
  const remember = (agent: http.Agent, id: string) => send(server, agent, 'POST', '/collections/notes/remember', { id, text: `note ${id}` });
  const slow = [remember(agents[0], 'a'), remember(agents[1], 'b')];
  await until(() => provider.calls.length === 2, 'both slow requests reached the provider');
  const fresh = new http.Agent({ keepAlive: false });
  t.teardown(() => fresh.destroy());
  const shed = await send(server, fresh, 'GET', '/stats');
  t.is(shed.status, 503, 'the third request, wherever it landed');
  t.regex(shed.text, /--max-concurrent-requests \(2\)/);
  for (const release of held) release();
  t.deepEqual(
    (await Promise.all(slow)).map((r) => r.status),
    [200, 200],
  );
  t.is((await send(server, fresh, 'GET', '/stats')).status, 200, 'admitted again once they finished');
  const metrics = (await call(server, 'GET', '/metrics')).text;
  t.regex(metrics, /svc_http_requests_total\{route="\/stats",status="5xx"\} 1\n/, 'the 503 counted once');
});

test("/metrics on any thread counts every thread's requests once, and the store gauges once", async (t) => {
  const { server, agents } = await threadedServer(t);
  await send(server, agents[0], 'POST', '/collections/c', {});
  await send(server, agents[1], 'POST', '/collections/c/upsert', { records: [{ id: 'a', vector: [1, 0, 0, 0] }] });
  for (let i = 0; i < 3; i++) await send(server, agents[0], 'POST', '/search', { scope: ['c'], query: [1, 0, 0, 0] });
  for (let i = 0; i < 5; i++) await send(server, agents[1], 'POST', '/search', { scope: ['c'], query: [1, 0, 0, 0] });
  for (const agent of agents) {
    const text = (await send(server, agent, 'GET', '/metrics')).text;
    t.regex(text, /svc_http_requests_total\{route="\/search",status="2xx"\} 8\n/);
    t.regex(text, /svc_search_queries_total 8\n/);
    t.regex(text, /svc_http_request_duration_seconds_count\{route="\/search"\} 8\n/);
    t.regex(text, /svc_store_docs 1\n/, 'the store counted once, not once per thread');
    t.is(text.match(/^# TYPE svc_http_requests_total /gm)?.length, 1, 'each metric once');
  }
});

/** An MCP session opened on one thread, used and ended from the other; `prefix` for a namespaced server. */
async function mcpAcrossThreads(t: ExecutionContext, args: string[], prefix: string): Promise<void> {
  const { server, agents } = await threadedServer(t, ['--dimension', '16', '--embed-provider', 'hash:16', ...args]);
  const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  const rpc = (agent: http.Agent, body: unknown, session?: string) =>
    send(server, agent, 'POST', `${prefix}/mcp`, body, { ...headers, ...(session ? { 'mcp-session-id': session } : {}) });
  const init = await rpc(agents[0], {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'threads', version: '1' } },
  });
  const session = init.headers['mcp-session-id'] as string;
  t.truthy(session);
  t.is((await rpc(agents[1], { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
  const remembered = await rpc(
    agents[1],
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'remember', arguments: { collection: 'notes', id: 'a', text: 'hello there' } } },
    session,
  );
  t.is(remembered.status, 200);
  t.regex(remembered.text, /upserted\\":1/);
  const recalled = await rpc(
    agents[1],
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'recall', arguments: { collection: 'notes', query: 'hello there' } } },
    session,
  );
  t.regex(recalled.text, /hello there/);
  const listed = await rpc(agents[0], { jsonrpc: '2.0', id: 4, method: 'tools/list' }, session);
  t.regex(listed.text, /"recall"/);
  t.is((await send(server, agents[1], 'DELETE', `${prefix}/mcp`, undefined, { 'mcp-session-id': session })).status, 200);
  t.is((await rpc(agents[0], { jsonrpc: '2.0', id: 5, method: 'tools/list' }, session)).status, 404, 'ended for every thread');
}

test('an MCP session opened on one thread is served on the other, and DELETE there ends it', (t) => mcpAcrossThreads(t, [], ''));

test('--namespaced: an MCP session opened on one thread works from the other, its tools in its namespace', (t) =>
  mcpAcrossThreads(t, ['--namespaced'], '/ns/acme'));

test('an HTTP thread that dies takes the process down: exit 1, logged', async (t) => {
  const { server, agents } = await threadedServer(t, [], { TESSERA_TEST_FAULTS: '1' });
  t.is((await send(server, agents[1], 'POST', '/_test/crash-http-thread')).status, 200);
  t.is(await new Promise((resolve) => server.proc.once('exit', resolve)), 1);
  t.regex(server.stderr(), /an HTTP thread died; exiting/);
});

test('SIGTERM under writes on every thread loses no acknowledged write', async (t) => {
  const data = tempDir();
  const { server, agents } = await threadedServer(t, ['--data', data]);
  await send(server, agents[0], 'POST', '/collections/c', {});
  const acknowledged: string[] = [];
  let stopping = false;
  const writer = async (agent: http.Agent, prefix: string) => {
    for (let i = 0; !stopping || i < 3; i++) {
      const id = `${prefix}${i}`;
      const sent = await send(server, agent, 'POST', '/collections/c/upsert', { records: [{ id, vector: [1, i, 0, 0] }] }).catch(() => null);
      if (sent === null || sent.status === 503) return;
      if (sent.status === 200) acknowledged.push(id);
    }
  };
  const writers = [writer(agents[0], 'a'), writer(agents[1], 'b')];
  await until(() => acknowledged.length >= 20, 'writes acknowledged on both threads');
  stopping = true;
  t.is(await server.stop('SIGTERM'), 0);
  await Promise.all(writers);
  const reopened = await startServer(['--data', data, '--http-threads', '2']);
  t.teardown(() => void reopened.stop());
  const stored = new Set(((await call(reopened, 'GET', '/collections/c/records')).json as { id: string }[]).map((r) => r.id));
  t.deepEqual(
    acknowledged.filter((id) => !stored.has(id)),
    [],
    'every acknowledged write is there after the restart',
  );
});

test('--namespaced on two threads: a tenant written on one thread is read on the other at once, listed by both, held open once', async (t) => {
  const { server, agents } = await threadedServer(t, ['--namespaced']);
  await writeHereReadThere(t, server, agents, '/ns/acme', 10);
  for (const agent of agents) {
    const listed = JSON.parse((await send(server, agent, 'GET', '/namespaces')).text) as { name: string; role: string }[];
    t.deepEqual(
      listed.map((e) => [e.name, e.role]),
      [['acme', 'Writer']],
      'one tenant store, the writer: never a second open of the same directory from another thread',
    );
  }
  const metrics = (await send(server, agents[1], 'GET', '/metrics')).text;
  t.regex(metrics, /svc_store_docs 10\n/, 'the tenant counted once');
});

test('--http-threads above 1 with --cluster exits 2 naming the flag', async (t) => {
  const env = { AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' };
  const run = await startServer(['--cluster', 's3://bucket/prefix', '--cluster-endpoint', 'http://127.0.0.1:9', '--http-threads', '2'], env).catch(
    (e: Error) => e,
  );
  t.true(run instanceof Error);
  t.regex((run as Error).message, /exited with 2[\s\S]*--http-threads 2: cluster mode serves on one HTTP thread/);
});

test('--http-threads must be a whole number from 1 to 256: 0 exits 2 naming the flag', async (t) => {
  const run = await startServer(['--http-threads', '0']).catch((e: Error) => e);
  t.true(run instanceof Error);
  t.regex((run as Error).message, /exited with 2[\s\S]*--http-threads/);
});
