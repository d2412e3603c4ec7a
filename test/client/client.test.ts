// The typed client `tessera/client` (issue 16) against a running `tessera serve`: every method,
// exact Int64 as bigint, AbortSignal, a shed 503 retried after Retry-After, a 504 never retried,
// and failures rejected with the library's StoreError. Every exchange is checked against the API
// description (checkedFetch).
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import test from 'ava';
import { StoreError, TesseraClient } from '../../lib/client';
import { PROCESS_ROUTES } from '../../lib/client/client';
import { codeTree } from '../code/tree';
import { apiDescription, checkedFetch } from '../http/contract';
import { type Server, runCli, startServer, tempDir, until, uploadHoldingTheSlot } from '../http/helpers';
import { closed, fakeProvider, rejection } from '../memory/providers_server';

const clientOf = (server: Server, options: { token?: string; retries?: number; fetch?: typeof fetch } = {}) =>
  new TesseraClient({ url: server.url, fetch: checkedFetch, ...options });

/** A fetch that tells `seen` the status of each answer before handing it on. */
const watching =
  (seen: (status: number) => void): typeof fetch =>
  async (input, init) => {
    const res = await checkedFetch(input, init);
    seen(res.status);
    return res;
  };

let server: Server;
let client: TesseraClient;
test.before(async () => {
  server = await startServer(['--dimension', '4', '--embed-provider', 'hash:4']);
  client = clientOf(server);
});
test.after.always(() => server?.stop());

test('the client has a method for every described route but /mcp (an MCP client speaks that) and the web console (a page)', (t) => {
  const operations = Object.values(apiDescription().paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) =>
    Object.values(ops).map((op) => op.operationId),
  );
  const missing = operations.filter(
    (id) =>
      !id.startsWith('mcp') &&
      !id.startsWith('console') &&
      !id.startsWith('injectFault_') &&
      typeof (client as unknown as Record<string, unknown>)[id] !== 'function',
  );
  t.deepEqual(missing, []);
});

test('collections, metadata, declarations and aliases', async (t) => {
  t.deepEqual(await client.createCollection('docs'), { created: 'docs' });
  t.true((await client.collections()).includes('docs'));
  t.deepEqual(await client.putMeta('docs', { owner: 'ann' }), { ok: true });
  t.deepEqual(await client.getMeta('docs'), { owner: 'ann' });
  t.deepEqual(await client.setVectorNames('docs', ['title']), { ok: true });
  t.deepEqual(await client.setFilterIndex('docs', ['tag']), { ok: true });
  t.deepEqual(await client.setFtsSchema('docs', ['body']), { ok: true });
  t.deepEqual(await client.putAlias('latest', 'docs'), { alias: 'latest', target: 'docs' });
  t.is((await client.aliases()).latest, 'docs');
  t.deepEqual(await client.dropAlias('latest'), { dropped: 'latest' });
  t.deepEqual(await client.dropCollection('docs'), { dropped: 'docs' });
});

test('records and the search routes', async (t) => {
  await client.createCollection('papers');
  await client.setFtsSchema('papers', ['body']);
  const records = [
    { id: 'a', vector: [1, 0, 0, 0], attrs: { body: { Str: 'vector search engines' }, tag: { Str: 'x' } } },
    { id: 'b', vector: [0, 1, 0, 0], attrs: { body: { Str: 'full text ranking' }, tag: { Str: 'y' } } },
  ];
  t.deepEqual(await client.upsert('papers', { records }), { upserted: 2 });
  t.deepEqual((await client.records('papers')).map((r) => r.id).sort(), ['a', 'b']);
  t.is((await client.search({ query: [1, 0, 0, 0], scope: ['papers'], top_k: 1 }))[0].id, 'a');
  const planned = await client.search({ query: [1, 0, 0, 0], scope: ['papers'], plan: true });
  t.is(planned.plan.path, 'exact');
  t.is((await client.searchSimilar({ collection: 'papers', id: 'a' }))[0].id, 'b');
  t.true('results' in (await client.searchBatch({ queries: [{ query: [1, 0, 0, 0], scope: ['papers'] }] })));
  t.is((await client.textSearch({ field: 'body', query: 'ranking', scope: ['papers'] }))[0].id, 'b');
  t.is((await client.hybridSearch({ vector: [1, 0, 0, 0], field: 'body', text: 'vector', scope: ['papers'] }))[0].id, 'a');
  t.deepEqual((await client.suggest({ field: 'body', prefix: 'rank', scope: ['papers'] })).suggestions, [{ term: 'ranking', df: 1 }]);
  t.deepEqual(await client.delete('papers', { ids: ['b'] }), { deleted: 1 });
});

test('metadata reads and SQL-shaped reads', async (t) => {
  await client.upsert('shelf', {
    records: [
      { id: 'a', attrs: { n: { Int: 2 } } },
      { id: 'b', attrs: { n: { Int: 5 } } },
    ],
  });
  t.deepEqual(
    (await client.list({ scope: ['shelf'], order_by: { field: 'n', descending: true } })).map((h) => h.id),
    ['b', 'a'],
  );
  t.like(await client.aggregate({ scope: ['shelf'], sum: ['n'] }), { count: 2, sums: { n: { Int: 7n } } });
  t.deepEqual(
    ((await client.query('SELECT * FROM shelf WHERE n > 3')) as { id: string }[]).map((h) => h.id),
    ['b'],
  );
  t.like(await client.query('SELECT * FROM shelf', { compileOnly: true }), { kind: 'list', route: '/list', collections: ['shelf'] });
});

test('maintenance, introspection and probes', async (t) => {
  t.deepEqual(await client.flush(), { ok: true });
  t.deepEqual(await client.compact({ expired: true }), { ok: true });
  t.deepEqual(await client.refresh(), { adopted: false });
  t.is((await client.stats()).dimension, 4);
  t.is((await client.cluster()).role, 'Writer');
  t.deepEqual((await client.versions()).readable, []);
  t.is(await client.health(), 'ok');
  t.is(await client.ready(), 'ok');
  t.regex(await client.metrics(), /svc_http_requests_total/);
  t.is((await client.openApi()).openapi, '3.1.0');
  t.like(await rejection(client.namespaces()), { status: 404 }, '/namespaces exists only on a --namespaced server');
});

test("a client whose base URL is a tenant's (/ns/acme) sends store routes there and the process-wide routes to the root", async (t) => {
  const namespaced = await startServer(['--namespaced', '--data', tempDir()]);
  t.teardown(() => namespaced.stop());
  const tenant = new TesseraClient(`${namespaced.url}/ns/acme/`);
  await tenant.upsert('c', { records: [{ id: 'a', vector: [1, 0, 0, 0] }] });
  t.deepEqual(
    (await tenant.list({ scope: ['c'] })).map((h) => h.id),
    ['a'],
  );
  t.is(await tenant.health(), 'ok');
  t.is(await tenant.ready(), 'ok');
  t.regex(await tenant.metrics(), /svc_http_requests_total/);
  t.truthy(((await tenant.openApi()).paths as Record<string, unknown>)['/ns/{namespace}/search']);
  t.deepEqual(
    (await tenant.namespaces()).map((n) => n.name),
    ['acme'],
  );
  // The routes the client sends to the root are exactly those the server serves without a prefix.
  const paths = Object.entries((await tenant.openApi()).paths as Record<string, Record<string, { operationId: string }>>);
  const unprefixed = paths.filter(
    ([p, ops]) => !p.startsWith('/ns/') && !p.startsWith('/console') && Object.values(ops).every((op) => !op.operationId.endsWith('WithoutNamespace')),
  );
  t.deepEqual(unprefixed.map(([p]) => p).sort(), [...PROCESS_ROUTES].sort());
});

test("the web console's process-wide routes are the client's (the page, plain browser JavaScript, keeps its own copy)", async (t) => {
  const page = await (await fetch(`${server.url}/console/console.js`)).text();
  const listed = /const PROCESS_ROUTES = new Set\((\[[^\]]*\])\)/.exec(page);
  t.truthy(listed, 'console.js declares PROCESS_ROUTES');
  t.deepEqual((JSON.parse(listed![1].replaceAll("'", '"')) as string[]).sort(), [...PROCESS_ROUTES].sort());
});

test('the memory routes: remember, then recall', async (t) => {
  t.deepEqual(await client.remember('notes', { id: 'n1', text: 'sourdough needs a starter' }), { ok: true, upserted: 1, id: 'n1', deduped: false });
  t.is((await client.recall('notes', { query: 'sourdough starter', top_k: 1 }))[0].id, 'n1');
});

test('code search over a tree ingested with tessera ingest --code', async (t) => {
  const data = path.join(tempDir(), 'store');
  t.is((await runCli(['ingest', '--code', codeTree(), '--collection', 'code', '--data', data, '--dimension', '0'])).code, 0);
  const coded = await startServer(['--data', data, '--dimension', '0']);
  t.teardown(() => coded.stop());
  const found = await clientOf(coded).codeSearch({ collection: 'code', query: 'parse json', limit: 1 });
  t.like(found.files[0], { path: 'src/json.ts', language: 'typescript' });
});

test('Int and DateTime values round-trip exactly as bigint past 2^53', async (t) => {
  const big = 2n ** 62n + 1n;
  await client.upsert('exact', { records: [{ id: 'a', attrs: { n: { Int: big }, at: { DateTime: -(2n ** 60n) - 3n } } }] });
  const [hit] = await client.list({ scope: ['exact'], filter: [{ Eq: ['n', { Int: big }] }] });
  t.deepEqual(hit.attrs, { n: { Int: big }, at: { DateTime: -(2n ** 60n) - 3n } });
  t.deepEqual((await client.records('exact'))[0].attrs.n, { Int: big });
});

test("a failure rejects with the StoreError the library would: status and the server's message", async (t) => {
  const wrongLength = (await rejection(client.search({ query: [1, 0] }))) as StoreError;
  t.true(wrongLength instanceof StoreError);
  t.is(wrongLength.status, 400);
  t.false(wrongLength.cancelled);
  t.regex(wrongLength.message, /query has length 2 but the store dimension is 4/);
  t.like(await rejection(client.getMeta('no-such-collection')), { status: 404 });
  // A value JSON cannot carry is refused before sending, as the library refuses it.
  const nan = (await rejection(client.search({ query: [1, 0, 0, Number.NaN] }))) as StoreError;
  t.is(nan.status, 400);
  t.regex(nan.message, /must be a finite number, got NaN/);
});

test('the token goes out as a bearer header; a wrong one rejects with 401', async (t) => {
  const guarded = await startServer(['--token', 's3cret']);
  t.teardown(() => guarded.stop());
  t.deepEqual(await clientOf(guarded, { token: 's3cret' }).collections(), []);
  t.like(await rejection(clientOf(guarded, { token: 'wrong' }).collections()), { status: 401 });
});

test('aborting a call in flight rejects it as cancelled, and the server sees the client leave', async (t) => {
  const slow = await fakeProvider(t, () => undefined); // never answers
  const embedding = await startServer(['--dimension', '16', '--embed-provider', `openai:m@${slow.url}`]);
  t.teardown(() => embedding.stop());
  const abort = new AbortController();
  const pending = clientOf(embedding).recall('notes', { query: 'x' }, { signal: abort.signal });
  await until(() => slow.calls.length > 0, 'the server asked the provider for the embedding');
  abort.abort();
  const err = await rejection(pending);
  t.true(err instanceof StoreError);
  t.true((err as StoreError).cancelled);
  t.is((err as StoreError).status, 499);
  await closed(slow.calls[0]);
  t.pass('the server abandoned the provider call');
});

test('a shed 503 is retried after its Retry-After, then answers', async (t) => {
  const narrow = await startServer(['--max-concurrent-requests', '1']);
  t.teardown(() => narrow.stop());
  const held = await uploadHoldingTheSlot(narrow, '/collections/held/upsert', '{"records": [');
  const statuses: number[] = [];
  let shed!: () => void;
  const wasShed = new Promise<void>((resolve) => (shed = resolve));
  const started = Date.now();
  const seen = (status: number) => {
    statuses.push(status);
    if (status === 503) shed();
  };
  const answer = clientOf(narrow, { fetch: watching(seen) }).collections();
  await wasShed;
  held.req.end(']}');
  t.is((await held.response).status, 200);
  t.deepEqual(await answer, ['held']);
  t.deepEqual(statuses, [503, 200]);
  t.true(Date.now() - started >= 1000, 'waited the Retry-After second');
});

test('a shed 503 past the retry budget rejects with it', async (t) => {
  const narrow = await startServer(['--max-concurrent-requests', '1']);
  t.teardown(() => narrow.stop());
  const held = await uploadHoldingTheSlot(narrow, '/collections/held/upsert', '{"records": [');
  t.teardown(() => held.req.destroy());
  const statuses: number[] = [];
  const err = (await rejection(clientOf(narrow, { retries: 0, fetch: watching((s) => statuses.push(s)) }).collections())) as StoreError;
  t.is(err.status, 503);
  t.regex(err.message, /--max-concurrent-requests/);
  t.deepEqual(statuses, [503]);
});

test('a 504 is never retried: its work may still be running', async (t) => {
  const slow = await fakeProvider(t, () => undefined); // never answers
  const timed = await startServer(['--dimension', '16', '--embed-provider', `openai:m@${slow.url}`, '--read-timeout', '200ms']);
  t.teardown(() => timed.stop());
  const statuses: number[] = [];
  const err = (await rejection(clientOf(timed, { fetch: watching((s) => statuses.push(s)) }).recall('notes', { query: 'x' }))) as StoreError;
  t.is(err.status, 504);
  t.regex(err.message, /--read-timeout/);
  t.deepEqual(statuses, [504], 'one attempt');
});

test('tessera/client resolves through the package exports and loads no native code; tessera still loads the library', (t) => {
  const script = `
    const { TesseraClient, StoreError } = require('tessera/client');
    const loaded = Object.keys(require.cache);
    if (typeof TesseraClient !== 'function' || typeof StoreError !== 'function') throw new Error('exports missing');
    if (loaded.some((f) => f.endsWith('.node') || f.includes('/native.js') || f.includes('uWebSockets'))) throw new Error('native code loaded: ' + loaded.join(' '));
    if (typeof require('tessera').Store !== 'function') throw new Error('tessera has no Store');
    process.stdout.write(require.resolve('tessera/client'));
  `;
  const resolved = execFileSync(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '../../..'), encoding: 'utf8' });
  t.is(resolved, path.resolve(__dirname, '../../lib/client/index.js'));
});
