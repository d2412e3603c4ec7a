// Query plans (spec "Query plans") on a store without an approximate index: plan: true wraps the
// answer as {hits, plan} on /search, /search/similar and /hybrid-search, with the exact path's
// fields; plan: false and no plan keep the bare array. The approximate paths are in test/ann/.
import test from 'ava';
import { type Server, call, startServer } from './helpers';

let server: Server;
type Plan = Record<string, unknown> & { timings: Record<string, number>; narrowing: { state: string; candidates?: number } };

test.before(async () => {
  server = await startServer();
  const records = Array.from({ length: 40 }, (_, i) => ({
    id: `r${i}`,
    vector: [Math.cos(i / 10), Math.sin(i / 10), 0.1, 0],
    attrs: { g: { Str: i % 4 === 0 ? 'a' : 'b' }, body: { Str: `word${i % 3} text` } },
  }));
  await call(server, 'POST', '/collections/docs/upsert', { records });
  await call(server, 'POST', '/collections/docs/fts', { fields: ['body'] });
  await call(server, 'POST', '/collections/indexed/upsert', { records });
  await call(server, 'POST', '/collections/indexed/filter-index', { fields: ['body'] });
  await call(server, 'POST', '/flush');
});
test.after.always(() => server?.stop());

const Q = [1, 0, 0, 0];

test('plan: true on /search answers {hits, plan} with the hits the bare query returns', async (t) => {
  const bare = await call(server, 'POST', '/search', { query: Q, scope: ['docs'], top_k: 5 });
  const planned = await call(server, 'POST', '/search', { query: Q, scope: ['docs'], top_k: 5, plan: true });
  t.is(planned.status, 200);
  const body = planned.json as { hits: unknown; plan: Plan };
  t.deepEqual(Object.keys(body).sort(), ['hits', 'plan']);
  t.deepEqual(body.hits, bare.json);
});

test('the exact path reports rows_scanned, no candidates, and its timings', async (t) => {
  const { plan } = (await call(server, 'POST', '/search', { query: Q, scope: ['docs'], plan: true })).json as { plan: Plan };
  t.is(plan.path, 'exact');
  t.is(plan.rows_scanned, 40);
  t.false('candidates' in plan);
  t.deepEqual(plan.narrowing, { state: 'inactive' });
  t.true(Number.isInteger(plan.timings.total_us) && plan.timings.total_us >= 0);
  t.true('score_us' in plan.timings);
  t.false('walk_us' in plan.timings);
  t.false('narrow_us' in plan.timings);
});

test('plan: false and an absent plan keep the bare hit array', async (t) => {
  const off = await call(server, 'POST', '/search', { query: Q, scope: ['docs'], plan: false });
  t.true(Array.isArray(off.json));
  t.deepEqual(off.json, (await call(server, 'POST', '/search', { query: Q, scope: ['docs'] })).json);
});

test('narrowing is narrowed, with its candidate rows, when a filter index answers the filter', async (t) => {
  const filter = [{ ContainsAllTokens: ['body', 'word1'] }];
  const r = await call(server, 'POST', '/search', { query: Q, scope: ['indexed'], filter, top_k: 20, plan: true });
  const { hits, plan } = r.json as { hits: { id: string }[]; plan: Plan };
  t.deepEqual(plan.narrowing, { state: 'narrowed', candidates: 13 });
  t.true('narrow_us' in plan.timings);
  t.is(plan.rows_scanned, 13);
  t.is(hits.length, 13);
  t.true(hits.every((h) => Number(h.id.slice(1)) % 3 === 1));
});

test('narrowing is declined when a filter index is in scope but cannot answer the filter', async (t) => {
  const r = await call(server, 'POST', '/search', { query: Q, scope: ['indexed'], filter: [{ Eq: ['g', { Str: 'a' }] }], plan: true });
  const { plan } = r.json as { plan: Plan };
  t.deepEqual(plan.narrowing, { state: 'declined' });
  t.is(plan.rows_scanned, 40);
});

test('/search/similar and /hybrid-search answer {hits, plan} with plan: true', async (t) => {
  const similar = await call(server, 'POST', '/search/similar', { collection: 'docs', id: 'r0', plan: true });
  t.is((similar.json as { plan: Plan }).plan.path, 'exact');
  t.false((similar.json as { hits: { id: string }[] }).hits.some((h) => h.id === 'r0'));
  const hybrid = await call(server, 'POST', '/hybrid-search', { vector: Q, text: 'word1', field: 'body', scope: ['docs'], plan: true });
  t.is(hybrid.status, 200, JSON.stringify(hybrid.json));
  const body = hybrid.json as { hits: unknown[]; plan: Plan };
  t.is(body.plan.path, 'exact');
  t.true(body.hits.length > 0);
});

test('plan is not a /text-search field, and not a batch leg field', async (t) => {
  const text = await call(server, 'POST', '/text-search', { field: 'body', query: 'word1', plan: true });
  t.is(text.status, 400);
  t.regex((text.json as { error: string }).error, /plan/);
  const batch = await call(server, 'POST', '/search/batch', { queries: [{ query: Q, plan: true }] });
  t.is(batch.status, 400);
});
