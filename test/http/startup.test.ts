import test from 'ava';
import pino from 'pino';
import { OneStore, apiRoutes, storeErrorStatus } from '../../lib/api';
import { createRegistry } from '../../lib/http/metrics';
import { HttpServer } from '../../lib/http/server';
import { Store } from '../../lib/index';
import { openRequest, sleep, until } from './helpers';

function serve(slot: OneStore): HttpServer {
  return new HttpServer(apiRoutes(slot, { registry: createRegistry(), slowQueryMs: null, testFaults: false, readOnly: false, consoleWithoutToken: false }), {
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1 << 20,
    readTimeoutMs: 5_000,
    writeTimeoutMs: 5_000,
    hooks: [],
    logger: pino({ level: 'silent' }),
    errorStatus: storeErrorStatus,
  });
}

// In process, so the moment the store opens is under the test's control.
test('until the store is open: /health 200, /ready 503, data routes 503; then everything serves', async (t) => {
  const slot = new OneStore();
  const server = serve(slot);
  const url = `http://127.0.0.1:${await server.listen()}`;
  t.teardown(() => server.close(0));
  const status = async (method: string, path: string) => (await fetch(url + path, { method })).status;

  t.is(await status('GET', '/health'), 200);
  t.is(await status('GET', '/metrics'), 200);
  const ready = await fetch(`${url}/ready`);
  t.is(ready.status, 503);
  t.is(typeof ((await ready.json()) as { error: unknown }).error, 'string');
  for (const [method, path] of [
    ['GET', '/collections'],
    ['GET', '/cluster'],
    ['GET', '/stats'],
    ['POST', '/collections/c'],
    ['POST', '/flush'],
  ]) {
    t.is(await status(method, path), 503, `${method} ${path}`);
  }

  const store = await Store.open({ inMemory: true, dimension: 4 });
  t.teardown(() => store.close());
  slot.open(store);
  t.is(await status('GET', '/ready'), 200);
  t.is(await status('POST', '/collections/c'), 200);
  t.is(await status('GET', '/collections'), 200);
});

test('close() stops accepting, lets in-flight requests finish, and cancels those outliving the grace period', async (t) => {
  const slot = new OneStore();
  const store = await Store.open({ inMemory: true, dimension: 4 });
  t.teardown(() => store.close());
  slot.open(store);
  const server = serve(slot);
  const port = await server.listen();
  const target = { url: `http://127.0.0.1:${port}` };
  const body = JSON.stringify({ records: [{ id: 'a', vector: [1, 0, 0, 0] }] });
  const finishing = openRequest(target, 'POST', '/collections/c/upsert');
  const outliving = openRequest(target, 'POST', '/collections/c/upsert');
  finishing.req.write(body.slice(0, 5));
  outliving.req.write(body.slice(0, 5));
  // Both are in flight once the server has dispatched their headers (on a loaded machine that can
  // take longer than any fixed pause).
  while (server.inFlightRequests < 2) await sleep(5);

  // A grace period long enough for the finishing request on a loaded machine; the outliving one waits it out.
  const closed = server.close(3000);
  // No new connections: the listening socket is closed (a connection attempt is refused).
  await until(
    () =>
      fetch(`${target.url}/health`).then(
        () => false,
        () => true,
      ),
    'the listening socket refuses connections',
  );
  finishing.req.end(body.slice(5));
  t.is((await finishing.response).status, 200);
  const cancelled = await outliving.response;
  t.is(cancelled.status, 503);
  t.is(JSON.parse(cancelled.text).retryable, true);
  await closed;
});
