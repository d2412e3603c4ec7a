import test from 'ava';
import { call, startServer, tempDir, unitRecords } from './helpers';

const TOKEN = 's3cret-token';

const WRITES: [string, string, unknown?][] = [
  ['POST', '/collections/w'],
  ['DELETE', '/collections/w'],
  ['PUT', '/collections/w/meta', { k: 'v' }],
  ['POST', '/collections/w/vector-names', { names: ['x'] }],
  ['PUT', '/aliases/al', { target: 'w' }],
  ['DELETE', '/aliases/al'],
  ['POST', '/collections/w/upsert', { records: unitRecords(1, 4) }],
  ['POST', '/collections/w/delete', { ids: ['r0'] }],
  ['POST', '/flush'],
  ['POST', '/compact'],
  ['POST', '/compact', { expired: true }],
];

test('with --token: probes are open, everything else needs the bearer token', async (t) => {
  const server = await startServer(['--token', TOKEN]);
  t.teardown(() => server.stop());
  for (const path of ['/health', '/ready', '/metrics']) t.is((await call(server, 'GET', path)).status, 200, path);
  const auth = { Authorization: `Bearer ${TOKEN}` };
  for (const path of ['/stats', '/cluster', '/versions', '/collections', '/aliases', '/no-such-route']) {
    const wrong: Record<string, string>[] = [
      {},
      { Authorization: 'Bearer wrong' },
      { Authorization: TOKEN },
      { Authorization: `Basic ${TOKEN}` },
      { Authorization: `Bearer ${TOKEN}x` },
    ];
    for (const headers of wrong) {
      const r = await call(server, 'GET', path, undefined, headers);
      t.is(r.status, 401, `${path} ${JSON.stringify(headers)}`);
      t.is(typeof r.json.error, 'string');
      t.truthy(r.headers.get('x-request-id'));
    }
    if (path !== '/no-such-route') t.is((await call(server, 'GET', path, undefined, auth)).status, 200, path);
  }
  t.is((await call(server, 'POST', '/collections/w/upsert', { records: unitRecords(1, 4) })).status, 401);
  t.is((await call(server, 'POST', '/collections/w/upsert', { records: unitRecords(1, 4) }, auth)).status, 200);
  t.is((await call(server, 'GET', '/collections', undefined, { Authorization: `bearer ${TOKEN}` })).status, 200, 'scheme is case-insensitive');
});

test('TESSERA_TOKEN configures the token when --token is absent', async (t) => {
  const server = await startServer([], { TESSERA_TOKEN: TOKEN });
  t.teardown(() => server.stop());
  t.is((await call(server, 'GET', '/collections')).status, 401);
  t.is((await call(server, 'GET', '/collections', undefined, { Authorization: `Bearer ${TOKEN}` })).status, 200);
});

test('--read-only refuses every write route with 403 and serves reads', async (t) => {
  const data = tempDir();
  const writer = await startServer(['--data', data]);
  t.teardown(() => writer.stop());
  t.is((await call(writer, 'POST', '/collections/w/upsert', { records: unitRecords(3, 4) })).status, 200);
  t.is((await call(writer, 'POST', '/flush')).status, 200);

  const reader = await startServer(['--data', data, '--read-only']);
  t.teardown(() => reader.stop());
  for (const [method, path, body] of WRITES) {
    const r = await call(reader, method, path, body);
    t.is(r.status, 403, `${method} ${path}`);
    t.is(typeof r.json.error, 'string');
  }
  t.is((await call(reader, 'GET', '/collections')).status, 200);
  t.is((await call(reader, 'POST', '/search', { query: [1, 0, 0, 0] })).status, 200);
  t.is((await call(reader, 'GET', '/cluster')).json.role, 'Reader');
});
