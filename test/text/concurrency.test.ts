// Full-text work never blocks the event loop or a reader, and readers see whole batches only.
import test from 'ava';
import { Store } from '../../lib/index';
import { call, startServer } from '../http/helpers';

test('probes answer while an fts-schema declaration indexes every stored document', async (t) => {
  t.timeout(120_000);
  const server = await startServer(['--dimension', '0']);
  t.teardown(() => server.stop());
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa'];
  for (let batch = 0; batch < 10; batch++) {
    const records = Array.from({ length: 10_000 }, (_, i) => {
      const n = batch * 10_000 + i;
      const text = Array.from({ length: 12 }, (_, k) => `${words[(n + k) % words.length]}${(n * 7 + k) % 5000}`).join(' ');
      return { id: `d${n}`, attrs: { body: { Str: text } } };
    });
    t.is((await call(server, 'POST', '/collections/docs/upsert', { records })).status, 200);
  }
  let done = false;
  const declared = call(server, 'POST', '/collections/docs/fts-schema', { fields: ['body'] }).finally(() => (done = true));
  let probes = 0;
  while (!done) {
    for (const path of ['/health', '/ready']) {
      t.is((await call(server, 'GET', path)).status, 200, path);
      probes++;
    }
  }
  t.is((await declared).status, 200);
  t.true(probes >= 2, `${probes} probes answered during the declaration`);
  const hits = await call(server, 'POST', '/text-search', { field: 'body', query: 'alpha0', top_k: 10000 });
  t.is(hits.status, 200);
  t.true((hits.json as unknown[]).length > 0);
});

test('a text search and a suggest never see half a batch while batches commit', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 0 });
  t.teardown(() => store.close());
  await store.createCollection('c');
  await store.setFtsSchema('c', ['body']);
  const BATCH = 50;
  let writing = true;
  const writer = (async () => {
    for (let b = 0; b < 60; b++) {
      const records = Array.from({ length: BATCH }, (_, i) => ({ id: `b${b}-${i}`, attrs: { body: { Str: `zebra stripes batch${b}` } } }));
      await store.upsert('c', { records });
      if (b % 20 === 19) await store.flush();
    }
    writing = false;
  })();
  const seen: number[] = [];
  const reader = async () => {
    while (writing) {
      const hits = await store.textSearch({ field: 'body', query: 'zebra', top_k: 10000, include_attributes: [] });
      const { suggestions } = await store.suggest({ field: 'body', prefix: 'zebr' });
      const df = suggestions.find((s) => s.term === 'zebra')?.df ?? 0;
      t.is(hits.length % BATCH, 0, `text search saw ${hits.length} hits`);
      t.is(df % BATCH, 0, `suggest saw df ${df}`);
      seen.push(hits.length);
    }
  };
  await Promise.all([writer, reader(), reader()]);
  t.is((await store.textSearch({ field: 'body', query: 'zebra', top_k: 10000 })).length, 60 * BATCH);
  t.true(new Set(seen).size > 1, 'readers ran while batches committed');
});
