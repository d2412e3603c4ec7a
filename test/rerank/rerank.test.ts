// rerank (spec, `rerank` under POST /search): the candidate window re-scored by a cross-encoder,
// here a real local HTTP server speaking TEI's /rerank that scores a text by the number it holds
// ("score 7" scores 7), so every order below is known in advance.
import test, { type ExecutionContext } from 'ava';
import { Store } from '../../lib/index';
import type { Hit, OpenOptions } from '../../lib/index';
import { tempDir } from '../core/helpers';
import { call, startServer } from '../http/helpers';
import { type Call, fakeProvider, reply } from '../memory/providers_server';

const scoreOf = (text: string) => Number(/score (-?\d+)/.exec(text)?.[1] ?? 0);

/** A TEI-style reranker scoring each text by its number; its calls are recorded. */
async function reranker(t: ExecutionContext) {
  return fakeProvider(t, (c: Call, res) =>
    reply(
      res,
      200,
      (c.body.texts as string[]).map((text, index) => ({ index, score: scoreOf(text) })),
    ),
  );
}

/** Records r0..r7 on a line (r0 nearest the query [1, 0]); r3 carries no text, r1's number is highest. */
const RECORDS = [
  { id: 'r0', body: 'first score 1' },
  { id: 'r1', body: 'second score 9' },
  { id: 'r2', body: 'third score 5' },
  { id: 'r3', body: undefined },
  { id: 'r4', body: 'fifth score 7' },
  { id: 'r5', body: 'sixth score 3' },
  { id: 'r6', body: 'seventh score 8' },
  { id: 'r7', body: 'eighth score 2' },
];

async function storeWith(t: ExecutionContext, extra: Partial<OpenOptions> = {}) {
  const provider = await reranker(t);
  const store = await Store.open({ path: tempDir('rerank'), dimension: 2, rerankProvider: `tei@${provider.url}`, ...extra });
  t.teardown(() => store.close());
  await store.upsert('c', {
    records: RECORDS.map((r, i) => ({
      id: r.id,
      vector: [1, i * 0.1],
      attrs: { ...(r.body ? { body: { Str: r.body } } : {}), g: { Str: i % 2 === 0 ? 'even' : 'odd' } },
    })),
  });
  await store.setFtsSchema('c', ['body']);
  return { store, provider };
}

const ids = (hits: Hit[]) => hits.map((h) => h.id);
const query = [1, 0];
const rerank = { query: 'q', text_attr: 'body' };

test('rerank re-scores the top_k x overscan candidates with the provider and answers on its scale', async (t) => {
  const { store, provider } = await storeWith(t);
  const hits = await store.search({ query, top_k: 2, rerank: { ...rerank, overscan: 3 } });
  t.deepEqual(ids(hits), ['r1', 'r4']);
  t.deepEqual(
    hits.map((h) => h.score),
    [9, 7],
  );
  t.is(provider.calls.length, 1);
  t.is(provider.calls[0].body.query, 'q');
  t.deepEqual(
    provider.calls[0].body.texts,
    ['first score 1', 'second score 9', 'third score 5', 'fifth score 7', 'sixth score 3'],
    '6 candidates, r3 has no text',
  );
});

test('candidates without usable text keep their score and follow the reranked ones in original order', async (t) => {
  const { store } = await storeWith(t);
  const hits = await store.search({ query, top_k: 8, rerank: { ...rerank, overscan: 1 } });
  t.deepEqual(ids(hits), ['r1', 'r6', 'r4', 'r2', 'r5', 'r7', 'r0', 'r3']);
  const r3 = hits.find((h) => h.id === 'r3')!;
  const exact = (await store.search({ query, top_k: 8 })).find((h) => h.id === 'r3')!;
  t.is(r3.score, exact.score);
});

test('offset pages the reranked order; projection applies to the page while the text is read from the stored record', async (t) => {
  const { store } = await storeWith(t);
  const all = ids(await store.search({ query, top_k: 8, rerank }));
  const page = await store.search({ query, top_k: 3, offset: 2, rerank, include_attributes: ['g'] });
  t.deepEqual(ids(page), all.slice(2, 5));
  t.true(page.every((h) => Object.keys(h.attrs).join() === 'g'));
});

test('min_score runs before reranking; limit_per is re-applied after', async (t) => {
  const { store } = await storeWith(t);
  const floor = (await store.search({ query, top_k: 8 }))[4].score;
  const kept = ids(await store.search({ query, top_k: 8, min_score: floor, rerank }));
  t.deepEqual(kept.sort(), ['r0', 'r1', 'r2', 'r3', 'r4']);
  const capped = await store.search({ query, top_k: 8, limit_per: { field: 'g', max: 1 }, rerank });
  t.deepEqual(ids(capped), ['r1', 'r6'], 'the best odd and the best even by the provider');
});

test('rerank on /text-search falls back to the single spelling query; with clauses rerank.query is required; /hybrid-search too', async (t) => {
  const { store, provider } = await storeWith(t);
  const hits = await store.textSearch({ field: 'body', query: 'score', top_k: 2, rerank: { text_attr: 'body' } });
  t.deepEqual(ids(hits), ['r1', 'r6']);
  t.is(provider.calls.at(-1)!.body.query, 'score');
  const clauses = await t.throwsAsync(store.textSearch({ clauses: [{ field: 'body', query: 'score' }], rerank: { text_attr: 'body' } }));
  t.regex(clauses!.message, /rerank.query is required/);
  const hybrid = await t.throwsAsync(store.hybridSearch({ vector: query, field: 'body', text: 'score', rerank: { text_attr: 'body' } }));
  t.regex(hybrid!.message, /rerank.query is required/);
  t.deepEqual(ids(await store.hybridSearch({ vector: query, field: 'body', text: 'score', top_k: 2, rerank })), ['r1', 'r6']);
});

test("a reranked page keeps what the route writes: text-search's explain and highlight, /search's plan", async (t) => {
  const { store } = await storeWith(t);
  const annotated = await store.textSearch({ field: 'body', query: 'score', top_k: 2, explain: true, highlight: {}, rerank: { text_attr: 'body' } });
  t.deepEqual(ids(annotated), ['r1', 'r6']);
  t.true(
    annotated.every((h) => h.annotations?.clauses !== undefined && h.annotations?.highlights !== undefined),
    JSON.stringify(annotated),
  );
  const planned = await store.search({ query, top_k: 2, rerank, plan: true });
  t.deepEqual(ids(planned.hits), ['r1', 'r6']);
  t.is(typeof planned.plan.path, 'string');
});

test('omitting rerank, or sending null, leaves the answer byte for byte unchanged; the word inside a value is no rerank', async (t) => {
  const { store, provider } = await storeWith(t);
  const plain = await store.searchJson(Buffer.from('{"query": [1, 0], "top_k": 5}'));
  t.deepEqual(await store.searchJson(Buffer.from('{"query": [1, 0], "top_k": 5, "rerank": null}')), plain);
  const valued = await store.searchJson(Buffer.from('{"query": [1, 0], "top_k": 5, "filter": [{"Ne": ["g", {"Str": "rerank"}]}]}'));
  t.deepEqual(valued, plain);
  t.is(provider.calls.length, 0);
});

test('rerank without a provider is 400 naming --rerank-provider; bad options are 400 naming the field', async (t) => {
  const plain = await Store.open({ path: tempDir('rerank'), dimension: 2 });
  t.teardown(() => plain.close());
  const err = await t.throwsAsync(plain.search({ query, rerank }));
  t.is((err as { status?: number }).status, 400);
  t.regex(err!.message, /--rerank-provider/);
  const { store } = await storeWith(t);
  for (const [bad, message] of [
    [{ ...rerank, overscan: 0 }, /rerank.overscan/],
    [{ ...rerank, text_attr: '' }, /rerank.text_attr/],
    [{ ...rerank, depth: 3 }, /unknown field 'rerank.depth'/],
    ['q', /rerank must be an object/],
  ] as const) {
    const e = await t.throwsAsync(store.search({ query, rerank: bad as never }));
    t.is((e as { status?: number }).status, 400);
    t.regex(e!.message, message);
  }
});

test('a failing rerank provider answers 502 naming it', async (t) => {
  const failing = await fakeProvider(t, (_c, res) => reply(res, 503, 'down for maintenance'));
  const store = await Store.open({ path: tempDir('rerank'), dimension: 2, rerankProvider: `tei@${failing.url}` });
  t.teardown(() => store.close());
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 0], attrs: { svc: { Str: 'x' }, body: { Str: 'text' } } }] });
  const err = await t.throwsAsync(store.search({ query, rerank }));
  t.is((err as { status?: number }).status, 502);
  t.regex(err!.message, /tei@/);
});

test('expand on a reranked page widens the reranked hits', async (t) => {
  const { store } = await storeWith(t);
  const hits = await store.search({ query, top_k: 2, rerank, expand: { parent_field: 'g', index_field: 'n', text_field: 'body' } });
  t.deepEqual(ids(hits), ['r1', 'r6']);
  t.true(
    hits.every((h) => h.context === undefined),
    'records without chunk attributes get no context',
  );
});

test('over HTTP: --rerank-provider serves rerank on /search; without it the route answers 400 naming the flag', async (t) => {
  const provider = await reranker(t);
  const server = await startServer(['--dimension', '2', '--rerank-provider', `tei@${provider.url}`]);
  t.teardown(() => server.stop());
  await call(server, 'POST', '/collections/c/upsert', {
    records: RECORDS.filter((r) => r.body).map((r, i) => ({ id: r.id, vector: [1, i * 0.1], attrs: { body: { Str: r.body } } })),
  });
  const r = await call(server, 'POST', '/search', { query, top_k: 2, rerank });
  t.is(r.status, 200);
  t.deepEqual(
    r.json.map((h: Hit) => h.id),
    ['r1', 'r6'],
  );
  const plain = await startServer(['--dimension', '2']);
  t.teardown(() => plain.stop());
  const refused = await call(plain, 'POST', '/search', { query, rerank });
  t.is(refused.status, 400);
  t.regex(refused.json.error, /--rerank-provider/);
});
