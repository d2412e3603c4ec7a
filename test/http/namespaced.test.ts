// Namespaced mode (spec: cross-cutting rule 7, "Namespace entry", States and transitions, GET
// /namespaces, Authentication rule 5, Errors 400 missing prefix): tenant stores under one root.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import test from 'ava';
import { bareSession, connect, inSession, POST_HEADERS, tool } from '../mcp/helpers';
import { call, runCli, type Server, startServer, tempDir, until } from './helpers';

const TOKEN = 'tenant-token';

async function namespaced(args: string[] = [], root = tempDir()): Promise<Server & { root: string }> {
  const server = await startServer(['--namespaced', '--data', root, ...args]);
  return Object.assign(server, { root });
}

const upsert = (server: Server, ns: string, ids: string[]) =>
  call(server, 'POST', `/ns/${ns}/collections/c/upsert`, { records: ids.map((id, i) => ({ id, vector: [1, i, 0, 0] })) });

const ids = async (server: Server, ns: string): Promise<string[]> => {
  const r = await call(server, 'POST', `/ns/${ns}/list`, { scope: ['c'] });
  return r.json.map((h: { id: string }) => h.id).sort();
};

/** A POST whose path is sent as written (fetch would resolve `..` segments before sending). */
function rawPost(server: Server, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method: 'POST', path: target }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

const names = async (server: Server): Promise<string[]> => (await call(server, 'GET', '/namespaces')).json.map((e: { name: string }) => e.name);

test('a store route without the /ns/{namespace} prefix answers 400 naming the fix; the four exempt routes take none', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  for (const [method, route] of [
    ['GET', '/collections'],
    ['POST', '/search'],
    ['POST', '/collections/c/upsert'],
    ['GET', '/stats'],
    ['GET', '/cluster'],
    ['POST', '/query'],
  ]) {
    const r = await call(server, method, route, method === 'POST' ? { records: [] } : undefined);
    t.is(r.status, 400, `${method} ${route}`);
    t.regex(r.json.error, /--namespaced: prefix the path with \/ns\/\{namespace\}, e\.g\. \/ns\/acme\//, route);
  }
  t.is((await call(server, 'GET', '/health')).text, 'ok');
  t.is((await call(server, 'GET', '/ready')).status, 200);
  t.is((await call(server, 'GET', '/metrics')).status, 200);
  t.deepEqual((await call(server, 'GET', '/namespaces')).json, []);
  t.deepEqual(fs.readdirSync(server.root), [], 'nothing was opened');
});

test('/openapi.json describes each store route under /ns/{namespace} with its path parameter, and the unprefixed form as a 400; operationIds stay unique', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  const doc = (await call(server, 'GET', '/openapi.json')).json as {
    paths: Record<string, Record<string, { operationId: string; parameters?: { name: string }[]; responses: Record<string, unknown> }>>;
  };
  const search = doc.paths['/ns/{namespace}/search'].post;
  t.is(search.operationId, 'search');
  t.deepEqual(
    search.parameters?.map((p) => p.name),
    ['namespace'],
  );
  t.deepEqual(
    doc.paths['/ns/{namespace}/collections/{name}/upsert'].post.parameters?.map((p) => p.name),
    ['namespace', 'name'],
  );
  const refused = doc.paths['/search'].post;
  t.is(refused.operationId, 'searchWithoutNamespace');
  t.truthy(refused.responses['400']);
  t.falsy(refused.responses['200']);
  t.truthy(doc.paths['/namespaces'].get);
  t.falsy(doc.paths['/ns/{namespace}/health'], 'probes take no prefix');
  const ops = Object.values(doc.paths).flatMap((verbs) => Object.values(verbs).map((op) => op.operationId));
  t.is(new Set(ops).size, ops.length);
});

test('/ready answers 200 as soon as the listener serves, with no tenant open', async (t) => {
  const server = await startServer(['--namespaced', '--data', tempDir()], {}, { waitReady: false });
  t.teardown(() => server.stop());
  t.is((await fetch(`${server.url}/ready`)).status, 200);
});

test('each namespace is its own store: same collection names, separate records, files under the root', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  for (const ns of ['acme', 'globex']) t.is((await call(server, 'POST', `/ns/${ns}/collections/c`, {})).status, 200);
  t.is((await upsert(server, 'acme', ['a1', 'a2'])).status, 200);
  t.is((await upsert(server, 'globex', ['g1'])).status, 200);
  t.deepEqual(await ids(server, 'acme'), ['a1', 'a2']);
  t.deepEqual(await ids(server, 'globex'), ['g1']);
  const hits = (await call(server, 'POST', '/ns/globex/search', { query: [1, 0, 0, 0], top_k: 10 })).json;
  t.deepEqual(
    hits.map((h: { id: string }) => h.id),
    ['g1'],
  );
  t.deepEqual(fs.readdirSync(server.root).sort(), ['acme', 'globex']);
  // Every route, field and error is the unprefixed one's.
  const missing = await call(server, 'POST', '/ns/acme/search', { query: [1, 0, 0] });
  t.is(missing.status, 400);
  t.regex(missing.json.error, /dimension/);
});

test('namespace names that are not one plain directory name are refused with 400, creating nothing', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  for (const ns of ['..', '.', '%2e%2e', '.hidden', 'a%2Fb', '..%2F..%2Fetc', 'a%00b', 'x'.repeat(65), '%C3%A9t%C3%A9', 'a%20b']) {
    const r = await rawPost(server, `/ns/${ns}/collections/c`);
    t.is(r.status, 400, ns);
    t.regex(r.body, /namespace .* is not valid: use 1 to 64 letters, digits/, ns);
  }
  t.deepEqual(fs.readdirSync(server.root), []);
  t.is((await call(server, 'POST', `/ns/${'x'.repeat(64)}/collections/c`, {})).status, 200, '64 characters is the bound');
});

test('GET /namespaces lists each open tenant: name, measured bytes, role, fenced, staleness; it opens nothing', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  await call(server, 'POST', '/ns/b/collections/c', {});
  await upsert(server, 'b', ['x']);
  await call(server, 'GET', '/ns/a/collections');
  await until(async () => (await call(server, 'GET', '/namespaces')).json.every((e: { bytes: number }) => e.bytes > 0), 'sizes measured');
  const entries = (await call(server, 'GET', '/namespaces')).json;
  t.deepEqual(
    entries.map((e: { name: string }) => e.name),
    ['a', 'b'],
  );
  for (const e of entries) t.like(e, { role: 'Writer', fenced: false, staleness_secs: 0 });
  t.deepEqual(Object.keys(entries[0]).sort(), ['bytes', 'fenced', 'name', 'role', 'staleness_secs']);
  t.deepEqual(fs.readdirSync(server.root).sort(), ['a', 'b']);
});

test('past --warm-bytes the least recently used idle tenants close; their data stays and the next request reopens them', async (t) => {
  const server = await namespaced(['--warm-bytes', '1']);
  t.teardown(() => server.stop());
  await call(server, 'POST', '/ns/old/collections/c', {});
  t.is((await upsert(server, 'old', ['o1', 'o2'])).status, 200);
  await until(async () => !(await names(server)).includes('old'), 'old evicted');
  t.deepEqual(await ids(server, 'old'), ['o1', 'o2'], 'reopened with every acknowledged write');
  t.is((await upsert(server, 'old', ['o3'])).status, 200, 'writable again: the evicted one released its writer lock');
  t.deepEqual(await ids(server, 'old'), ['o1', 'o2', 'o3']);
});

test('a tenant stays open while the bound allows it', async (t) => {
  const server = await namespaced(['--warm-bytes', '1GiB']);
  t.teardown(() => server.stop());
  await call(server, 'POST', '/ns/kept/collections/c', {});
  await until(async () => (await call(server, 'GET', '/namespaces')).json[0]?.bytes > 0, 'measured');
  await call(server, 'POST', '/ns/other/collections/c', {});
  await until(async () => (await call(server, 'GET', '/namespaces')).json[1]?.bytes > 0, 'measured');
  t.deepEqual(await names(server), ['kept', 'other']);
});

test('an open tenant whose background work is done keeps no thread of its own: many open tenants add a handful, not one each', async (t) => {
  const server = await namespaced(['--warm-bytes', '1GiB']);
  t.teardown(() => server.stop());
  const threads = () => Number(/Threads:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))?.[1]);
  await upsert(server, 'first', ['x']);
  await until(async () => (await call(server, 'GET', '/namespaces')).json[0]?.bytes > 0, 'measured');
  const before = threads();
  const tenants = Array.from({ length: 16 }, (_, i) => `t${i}`);
  for (const ns of tenants) await upsert(server, ns, ['x']);
  t.is((await names(server)).length, 17);
  // Each open saves its derived files on a thread; the thread leaves when that is done.
  await until(() => threads() <= before + 4, `threads back near ${before} after 16 opens (now ${threads()})`);
  t.pass();
});

test('concurrent first requests to one tenant open it once', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  // A second open of the same directory would find the writer lock held and serve as a Reader,
  // refusing the creates it got.
  const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => call(server, 'POST', `/ns/fresh/collections/c${i}`, {})));
  t.deepEqual(
    answers.map((a) => a.status),
    Array(16).fill(200),
  );
  t.is((await call(server, 'GET', '/ns/fresh/collections')).json.length, 16);
  t.like((await call(server, 'GET', '/namespaces')).json, [{ name: 'fresh', role: 'Writer' }]);
});

test('one process-wide token guards every tenant and /namespaces; probes stay open', async (t) => {
  const server = await namespaced(['--token', TOKEN]);
  t.teardown(() => server.stop());
  const auth = { authorization: `Bearer ${TOKEN}` };
  for (const route of ['/ns/a/collections', '/ns/b/collections', '/namespaces']) {
    t.is((await call(server, 'GET', route)).status, 401, route);
    t.is((await call(server, 'GET', route, undefined, auth)).status, 200, route);
  }
  for (const route of ['/health', '/ready', '/metrics']) t.is((await call(server, 'GET', route)).status, 200, route);
});

test('metrics label routes by template: no namespace name appears', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  await call(server, 'POST', '/ns/secret-tenant/collections/c', {});
  await upsert(server, 'secret-tenant', ['x']);
  const metrics = (await call(server, 'GET', '/metrics')).text;
  t.regex(metrics, /svc_http_requests_total\{route="\/ns\/\{namespace\}\/collections\/\{name\}\/upsert",status="2xx"\} 1/);
  t.false(metrics.includes('secret-tenant'));
  t.regex(metrics, /svc_store_docs 1\n/, 'store gauges add up the open tenants');
});

test('acknowledged writes in every tenant survive kill -9 and a restart on the same root', async (t) => {
  const root = tempDir();
  const first = await namespaced([], root);
  for (const ns of ['one', 'two']) {
    await call(first, 'POST', `/ns/${ns}/collections/c`, {});
    t.is((await upsert(first, ns, [`${ns}-1`, `${ns}-2`])).status, 200);
  }
  await first.stop('SIGKILL');
  const second = await namespaced([], root);
  t.teardown(() => second.stop());
  t.deepEqual(await ids(second, 'one'), ['one-1', 'one-2']);
  t.deepEqual(await ids(second, 'two'), ['two-1', 'two-2']);
});

test('a --data root that cannot hold tenants exits 2 before listening', async (t) => {
  const file = path.join(tempDir(), 'a-file');
  fs.writeFileSync(file, 'x');
  const r = await runCli(['serve', '--port', '0', '--namespaced', '--data', file]);
  t.is(r.code, 2);
  t.regex(r.stderr, /cannot use .*a-file as the root of --namespaced stores/);
  t.false(r.stdout.includes('listening'));
});

test('a tenant that cannot open answers why, naming it, and the next request tries again', async (t) => {
  const root = tempDir();
  const server = await startServer(['--namespaced', '--data', root, '--dimension', '4']);
  t.teardown(() => server.stop());
  fs.writeFileSync(path.join(root, 'broken'), 'not a directory');
  const r = await call(server, 'GET', '/ns/broken/collections');
  t.is(r.status, 400);
  t.regex(r.json.error, /^namespace broken: .*broken is not a directory/);
  t.deepEqual(await names(server), [], 'a refused open is not listed');
  fs.rmSync(path.join(root, 'broken'));
  t.is((await call(server, 'GET', '/ns/broken/collections')).status, 200);
});

test('without --dimension an existing tenant serves, and a new one is refused naming what it needs', async (t) => {
  const root = tempDir();
  const writer = await namespaced(['--dimension', '4'], root);
  await call(writer, 'POST', '/ns/old/collections/c', {});
  await writer.stop('SIGTERM');
  const server = await startServer(['--namespaced', '--data', root], {}, { defaultDimension: false });
  t.teardown(() => server.stop());
  t.deepEqual((await call(server, 'GET', '/ns/old/collections')).json, ['c']);
  const r = await call(server, 'GET', '/ns/new/collections');
  t.is(r.status, 400);
  t.regex(r.json.error, /^namespace new: a new store needs a dimension/);
});

test('/mcp takes the prefix: its tools see the namespace, and a session is found only in the namespace that opened it', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  await call(server, 'POST', '/ns/a/collections/only-in-a', {});
  const inA = { url: `${server.url}/ns/a` };
  const client = await connect(t, inA);
  t.deepEqual((await tool(client, 'list_collections')).json, ['only-in-a']);
  t.deepEqual((await tool(await connect(t, { url: `${server.url}/ns/b` }), 'list_collections')).json, []);
  const id = await bareSession(inA);
  const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const elsewhere = await fetch(`${server.url}/ns/b/mcp`, { method: 'POST', headers: { ...POST_HEADERS, ...inSession(id) }, body: list });
  t.is(elsewhere.status, 404, 'another namespace does not know the session');
  const home = await fetch(`${server.url}/ns/a/mcp`, { method: 'POST', headers: { ...POST_HEADERS, ...inSession(id) }, body: list });
  t.is(home.status, 200);
  t.is((await fetch(`${server.url}/mcp`, { method: 'POST', headers: POST_HEADERS, body: list })).status, 400, 'no prefix');
});

test('an MCP tool call may name its namespace: it works in that tenant; a bad name is a tool error naming the rule', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  await call(server, 'POST', '/ns/b/collections/only-in-b', {});
  const client = await connect(t, { url: `${server.url}/ns/a` });
  t.deepEqual((await tool(client, 'list_collections', { namespace: 'b' })).json, ['only-in-b']);
  t.deepEqual((await tool(client, 'list_collections')).json, [], "without it: the path's namespace");
  const bad = await tool(client, 'list_collections', { namespace: '..' });
  t.true(bad.isError);
  t.regex(bad.text, /namespace "\.\." is not valid/);
  t.deepEqual(fs.readdirSync(server.root).sort(), ['a', 'b'], 'nothing opened for the bad name');
});

test('an empty namespace (/ns//...) is the 400 naming the rule, not a 404; an unknown route under a good one stays 404', async (t) => {
  const server = await namespaced();
  t.teardown(() => server.stop());
  const empty = await call(server, 'GET', '/ns//collections');
  t.is(empty.status, 400);
  t.regex(empty.json.error, /namespace "" is not valid: use 1 to 64 letters/);
  t.is((await call(server, 'GET', '/ns/a/no-such-route')).status, 404);
  t.deepEqual(fs.readdirSync(server.root), []);
});
