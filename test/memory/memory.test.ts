// The memory routes through the library (spec, "Memory routes", "Record expiry", "Chunking
// rules"): remember and recall with the offline hashing embedder, a clock the tests move, and the
// svc.* stamps read back from the store.
import test from 'ava';
import { Store, type StoreError } from '../../lib/index';
import type { Hit, OpenOptions, Value } from '../../lib/index';
import { tempDir } from '../core/helpers';
import { fakeProvider, reply } from './providers_server';

const DIM = 64;
const EMBED = `hash:${DIM}`;

/** A store with the hashing embedder and a clock the test sets. */
async function memoryStore(extra: Partial<OpenOptions> = {}, path = tempDir('memory')) {
  const clock = { now: 1_700_000_000_000 };
  const store = await Store.open({ path, dimension: DIM, embedProvider: EMBED, summarizeProvider: 'extractive:1', clock: () => clock.now, ...extra });
  return { store, clock, path };
}

const attr = (h: Hit, key: string): Value | undefined => h.attrs[key];
const int = (v: Value | undefined): bigint | number | undefined => (v && typeof v === 'object' && 'Int' in v ? v.Int : undefined);
const dateTime = (v: Value | undefined): bigint | number | undefined => (v && typeof v === 'object' && 'DateTime' in v ? v.DateTime : undefined);
const ids = (hits: Hit[]) => hits.map((h) => h.id);

test('remember without an embedder is 400 naming --embed-provider', async (t) => {
  const store = await Store.open({ path: tempDir('memory'), dimension: DIM });
  t.teardown(() => store.close());
  const err = await t.throwsAsync(store.remember('notes', { id: 'a', text: 'hello' }));
  t.is((err as { status?: number }).status, 400);
  t.regex(err!.message, /--embed-provider/);
  t.regex((await t.throwsAsync(store.recall('notes', { query: 'hello' })))!.message, /--embed-provider/);
});

test('remember embeds the text and recall finds it by meaning, stamped with svc.text, created_at and updated_at', async (t) => {
  const { store, clock } = await memoryStore();
  t.teardown(() => store.close());
  t.deepEqual(await store.remember('notes', { id: 'cat', text: 'the cat sat on the warm mat' }), { ok: true, upserted: 1, id: 'cat', deduped: false });
  await store.remember('notes', { id: 'rocket', text: 'rocket engines burn liquid hydrogen' });
  const hits = await store.recall('notes', { query: 'a cat on a mat' });
  t.is(hits[0].id, 'cat');
  t.deepEqual(attr(hits[0], 'svc.text'), { Str: 'the cat sat on the warm mat' });
  t.is(dateTime(attr(hits[0], 'svc.created_at')), BigInt(clock.now));
  t.is(dateTime(attr(hits[0], 'svc.updated_at')), BigInt(clock.now));
  t.is(attr(hits[0], 'svc.expires_at'), undefined, 'no ttl: never expires');
});

test('reserved svc.* keys in attrs are dropped; other attrs are kept', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'a', text: 'real text', attrs: { 'svc.text': { Str: 'forged' }, 'svc.access_count': { Int: 99 }, topic: { Str: 'x' } } });
  const [hit] = await store.recall('notes', { query: 'real text' });
  t.deepEqual(attr(hit, 'svc.text'), { Str: 'real text' });
  t.is(attr(hit, 'svc.access_count'), undefined);
  t.deepEqual(attr(hit, 'topic'), { Str: 'x' });
});

test('ttl_seconds stamps svc.expires_at; recall never returns an expired entry, other routes still do, and the sweep deletes it', async (t) => {
  const { store, clock } = await memoryStore();
  t.teardown(() => store.close());
  const written = clock.now;
  await store.remember('notes', { id: 'brief', text: 'a short lived note', ttl_seconds: 60 });
  await store.remember('notes', { id: 'kept', text: 'a short lived note too' });
  const [first] = await store.recall('notes', { query: 'short lived note', top_k: 1 });
  t.is(dateTime(attr(first, 'svc.expires_at')), BigInt(written + 60_000));
  clock.now = written + 60_001;
  t.deepEqual(ids(await store.recall('notes', { query: 'short lived note' })), ['kept']);
  const vector = (await store.list({ scope: ['notes'] })).length;
  t.is(vector, 2, 'list does not filter expired entries');
  t.true((await store.sweepExpired()).deleted >= 1);
  t.deepEqual(ids(await store.list({ scope: ['notes'] })), ['kept']);
});

test('the not-expired predicate is ANDed into the caller filter', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'a', text: 'blue whale song', attrs: { kind: { Str: 'sea' } } });
  await store.remember('notes', { id: 'b', text: 'blue whale song', attrs: { kind: { Str: 'land' } } });
  t.deepEqual(ids(await store.recall('notes', { query: 'blue whale', filter: [{ Eq: ['kind', { Str: 'land' }] }] })), ['b']);
});

test('dedupe_threshold updates the nearest entry in place: deduped, its id, created_at carried forward', async (t) => {
  const { store, clock } = await memoryStore();
  t.teardown(() => store.close());
  const created = clock.now;
  await store.remember('notes', { id: 'first', text: 'meeting with Ana on Tuesday about the budget' });
  clock.now += 1000;
  const r = await store.remember('notes', { id: 'second', text: 'meeting with Ana on Tuesday about the budget!', dedupe_threshold: 0.9 });
  t.deepEqual(r, { ok: true, upserted: 1, id: 'first', deduped: true });
  const hits = await store.list({ scope: ['notes'] });
  t.deepEqual(ids(hits), ['first']);
  t.deepEqual(attr(hits[0], 'svc.text'), { Str: 'meeting with Ana on Tuesday about the budget!' });
  t.is(dateTime(attr(hits[0], 'svc.created_at')), BigInt(created));
  t.is(dateTime(attr(hits[0], 'svc.updated_at')), BigInt(clock.now));
});

test('dedupe_threshold below the nearest score inserts a new entry', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'first', text: 'apples and pears' });
  const r = await store.remember('notes', { id: 'second', text: 'quantum chromodynamics lecture', dedupe_threshold: 0.9 });
  t.deepEqual(r, { ok: true, upserted: 1, id: 'second', deduped: false });
  t.is((await store.list({ scope: ['notes'] })).length, 2);
});

test('concurrent near-duplicates with dedupe are written one at a time: one entry results', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  const rs = await Promise.all(['a', 'b', 'c', 'd'].map((id) => store.remember('notes', { id, text: 'the same thought again', dedupe_threshold: 0.95 })));
  t.is(rs.filter((r) => r.deduped).length, 3);
  t.is((await store.list({ scope: ['notes'] })).length, 1);
});

test('summarize mode embeds a generated summary and stamps it in svc.summary; no summarizer is 400 naming --summarize-provider', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  const text = 'Rockets need fuel. The launch was delayed by weather. Fuel tanks were refilled overnight.';
  await store.remember('notes', { id: 'launch', text, mode: 'summarize' });
  const [hit] = await store.list({ scope: ['notes'] });
  t.deepEqual(attr(hit, 'svc.text'), { Str: text });
  const summary = attr(hit, 'svc.summary') as { Str: string };
  t.true(typeof summary?.Str === 'string' && summary.Str.length > 0 && text.includes(summary.Str));
  const plain = await Store.open({ path: tempDir('memory'), dimension: DIM, embedProvider: EMBED });
  t.teardown(() => plain.close());
  t.regex((await t.throwsAsync(plain.remember('notes', { id: 'x', text, mode: 'summarize' })))!.message, /--summarize-provider/);
});

test('chunking writes {id}#{index} records with parent, index and char_start; a shorter version prunes the stale tail', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  const para = (i: number) => `Paragraph ${i} talks about topic number ${i} in some detail.`;
  const long = Array.from({ length: 6 }, (_, i) => para(i)).join('\n\n');
  const r = await store.remember('docs', { id: 'doc', text: long, chunking: { max_chars: 80, overlap_chars: 10 } });
  t.true(r.upserted >= 3);
  const all = await store.list({ scope: ['docs'], order_by: { field: 'svc.chunk_index' } });
  t.deepEqual(
    ids(all),
    Array.from({ length: r.upserted }, (_, i) => `doc#${i}`),
  );
  for (const [i, h] of all.entries()) {
    t.deepEqual(attr(h, 'svc.parent_id'), { Str: 'doc' });
    t.is(int(attr(h, 'svc.chunk_index')), BigInt(i));
    const start = Number(int(attr(h, 'svc.char_start')));
    const text = (attr(h, 'svc.text') as { Str: string }).Str;
    t.is([...long].slice(start, start + [...text].length).join(''), text, 'an exact slice at char_start');
  }
  const shorter = await store.remember('docs', { id: 'doc', text: para(0), chunking: { max_chars: 80, overlap_chars: 10 } });
  t.is(shorter.upserted, 1);
  t.deepEqual(ids(await store.list({ scope: ['docs'] })), ['doc#0']);
  t.deepEqual(await store.remember('docs', { id: 'doc', text: '  ', chunking: {} }), { ok: true, upserted: 0, id: 'doc', deduped: false });
  t.deepEqual(ids(await store.list({ scope: ['docs'] })), ['doc#0'], 'empty text writes and prunes nothing');
});

test('chunking with dedupe or with summarize is 400; bad bodies are 400 naming the field and change nothing', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  const cases: [unknown, RegExp][] = [
    [{ id: 'a', text: 't', chunking: {}, dedupe_threshold: 0.9 }, /dedupe_threshold cannot be combined with chunking/],
    [{ id: 'a', text: 't', chunking: {}, mode: 'summarize' }, /summarize.*chunking/],
    [{ text: 't' }, /id is required/],
    [{ id: 'a' }, /text is required/],
    [{ id: 'a', text: 't', ttl_seconds: -1 }, /ttl_seconds/],
    [{ id: 'a', text: 't', ttl_seconds: 'soon' }, /ttl_seconds/],
    [{ id: 'a', text: 't', dedupe_threshold: 2 }, /dedupe_threshold/],
    [{ id: 'a', text: 't', mode: 'poem' }, /mode/],
    [{ id: 'a', text: 't', colour: 'red' }, /unknown field 'colour'/],
    [{ id: 'a', text: 't', chunking: { max_chars: 0 } }, /max_chars/],
  ];
  for (const [body, message] of cases) {
    const err = await t.throwsAsync(store.remember('notes', body as never));
    t.is((err as { status?: number }).status, 400, JSON.stringify(body));
    t.regex(err!.message, message, JSON.stringify(body));
  }
  t.deepEqual(await store.collections(), []);
  const bad = await t.throwsAsync(store.recall('notes', Buffer.from('{"query": "x",')));
  t.regex(bad!.message, /malformed JSON/);
  t.regex((await t.throwsAsync(store.recall('notes', { query: 'x', extend_ttl_seconds: 5 })))!.message, /needs reinforce/);
});

test('recall with reinforce stamps svc.access_count and svc.last_accessed on every returned entry', async (t) => {
  const { store, clock } = await memoryStore();
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'a', text: 'green tea with honey' });
  await store.remember('notes', { id: 'b', text: 'motorcycle repair manual' });
  await store.recall('notes', { query: 'green tea', top_k: 1, reinforce: true });
  clock.now += 5000;
  await store.recall('notes', { query: 'green tea', top_k: 1, reinforce: true });
  const byId = new Map((await store.list({ scope: ['notes'] })).map((h) => [h.id, h]));
  t.is(int(attr(byId.get('a')!, 'svc.access_count')), 2n);
  t.is(dateTime(attr(byId.get('a')!, 'svc.last_accessed')), BigInt(clock.now));
  t.is(attr(byId.get('b')!, 'svc.access_count'), undefined, 'not returned, not reinforced');
  const [again] = await store.recall('notes', { query: 'green tea', top_k: 1 });
  t.is(int(attr(again, 'svc.access_count')), 2n, 'a recall without reinforce stamps nothing');
});

test('a reinforced recall keeps the record searchable with the same score (vectors are copied as stored)', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'a', text: 'green tea with honey' });
  const [before] = await store.recall('notes', { query: 'tea honey', reinforce: true });
  const [after] = await store.recall('notes', { query: 'tea honey' });
  t.is(after.score, before.score);
});

test('extend_ttl_seconds pushes an existing expiry forward, never creates one and never moves one back', async (t) => {
  const { store, clock } = await memoryStore();
  t.teardown(() => store.close());
  const t0 = clock.now;
  await store.remember('notes', { id: 'short', text: 'expiring tea note', ttl_seconds: 10 });
  await store.remember('notes', { id: 'long', text: 'expiring tea note', ttl_seconds: 10_000 });
  await store.remember('notes', { id: 'never', text: 'expiring tea note' });
  await store.recall('notes', { query: 'expiring tea note', reinforce: true, extend_ttl_seconds: 100 });
  const byId = new Map((await store.list({ scope: ['notes'] })).map((h) => [h.id, h]));
  t.is(dateTime(attr(byId.get('short')!, 'svc.expires_at')), BigInt(t0 + 100_000));
  t.is(dateTime(attr(byId.get('long')!, 'svc.expires_at')), BigInt(t0 + 10_000_000));
  t.is(attr(byId.get('never')!, 'svc.expires_at'), undefined);
});

test('a reinforced recall on a read-only handle skips the stamp with a warning', async (t) => {
  const { store, path } = await memoryStore();
  await store.remember('notes', { id: 'a', text: 'green tea' });
  await store.close();
  const reader = await Store.open({ path, readOnly: true, embedProvider: EMBED });
  t.teardown(() => reader.close());
  const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
  t.deepEqual(ids(await reader.recall('notes', { query: 'green tea', reinforce: true })), ['a']);
  t.regex((await warned).message, /reinforce skipped/);
  t.is(attr((await reader.list({ scope: ['notes'] }))[0], 'svc.access_count'), undefined);
});

test('a reinforced recall on a poisoned store fails with 503, not skipped like a read-only handle', async (t) => {
  process.env.TESSERA_TEST_FAULTS = '1'; // arms _injectFault in this test process only
  const { store } = await memoryStore();
  t.teardown(() => store.close().catch(() => undefined));
  await store.remember('notes', { id: 'a', text: 'green tea' });
  store._injectFault('poison-next-write');
  await t.throwsAsync(store.upsert('notes', { records: [{ id: 'z', vector: Array(DIM).fill(0.5) }] }));
  t.deepEqual(ids(await store.recall('notes', { query: 'green tea' })), ['a'], 'reads are still served');
  const refused = await t.throwsAsync(store.recall('notes', { query: 'green tea', reinforce: true }));
  t.is((refused as StoreError).status, 503);
  t.regex(refused?.message ?? '', /poisoned/);
});

test('remember on a Reader (another handle holds the writer lock) is refused like upsert, 409 naming the holder', async (t) => {
  const { store, path } = await memoryStore();
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'a', text: 'green tea' });
  await store.flush();
  const reader = await Store.open({ path, embedProvider: EMBED });
  t.teardown(() => reader.close());
  t.is(reader.role, 'Reader');
  const upsert = await t.throwsAsync(reader.upsert('notes', { records: [{ id: 'z', vector: Array(DIM).fill(0.5) }] }));
  const remember = await t.throwsAsync(reader.remember('notes', { id: 'b', text: 'black tea' }));
  t.is((remember as StoreError).status, 409);
  t.is(remember?.message, upsert?.message);
  t.is(reader.writeRefusal()?.message, upsert?.message);
  t.is(store.writeRefusal(), null);
});

test('remember records svc.embedder and svc.dim; a collection embedded by another embedder is refused, naming both', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'a', text: 'hello there' });
  const meta = await store.getMeta('notes');
  t.is(meta['svc.embedder'], EMBED);
  t.is(meta['svc.dim'], String(DIM));
  await store.putMeta('notes', { ...meta, 'svc.embedder': 'openai:other-model@http://example.invalid' });
  const err = await t.throwsAsync(store.recall('notes', { query: 'hello' }));
  t.is((err as { status?: number }).status, 400);
  t.regex(err!.message, /openai:other-model/);
  t.regex(err!.message, new RegExp(EMBED));
  t.regex((await t.throwsAsync(store.remember('notes', { id: 'b', text: 'x' })))!.message, /not comparable/);
});

test('an embedder whose dimension differs from the store is refused at open, naming both', async (t) => {
  const err = await t.throwsAsync(Store.open({ path: tempDir('memory'), dimension: 32, embedProvider: 'hash:64' }));
  t.is((err as { status?: number }).status, 400);
  t.regex(err!.message, /64/);
  t.regex(err!.message, /32/);
});

test('stats report the build features', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  t.deepEqual((await store.stats()).features, ['memory', 'rerank', 'mcp', 'code']);
});

test('rollup caps recall at per_parent hits per document (an unchunked memory is its own) and widens each by neighbours', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  const doc = (topic: string) => Array.from({ length: 6 }, (_, i) => `Part ${i} of the ${topic} story keeps talking about ${topic}.`).join(' ');
  const garden = doc('garden');
  await store.remember('notes', { id: 'garden', text: garden, chunking: { max_chars: 60, overlap_chars: 10 } });
  await store.remember('notes', { id: 'kitchen', text: doc('kitchen'), chunking: { max_chars: 60, overlap_chars: 10 } });
  await store.remember('notes', { id: 'loose1', text: 'the garden story in one line' });
  await store.remember('notes', { id: 'loose2', text: 'another garden story line' });
  const hits = await store.recall('notes', { query: 'garden story', top_k: 10, rollup: { per_parent: 0 } });
  const parents = hits.map((h) => (h.attrs['svc.parent_id'] as { Str: string } | undefined)?.Str ?? h.id);
  t.is(new Set(parents).size, parents.length, 'one hit per document');
  t.true(parents.includes('loose1') && parents.includes('loose2'), 'each unchunked memory is a document of its own');
  const plain = await store.recall('notes', { query: 'garden story', top_k: 10 });
  t.true(plain.filter((h) => h.id.startsWith('garden#')).length > 1, 'without rollup a document fills several hits');
  const [widened] = (await store.recall('notes', { query: 'garden story', top_k: 10, rollup: { neighbours: 1 } })).filter((h) => h.id.startsWith('garden#'));
  const index = Number((widened.attrs['svc.chunk_index'] as { Int: bigint }).Int);
  const chunks = (await store.list({ scope: ['notes'], filter: [{ Eq: ['svc.parent_id', { Str: 'garden' }] }], order_by: { field: 'svc.chunk_index' } })).map(
    (h) => ({
      start: Number((h.attrs['svc.char_start'] as { Int: bigint }).Int),
      text: (h.attrs['svc.text'] as { Str: string }).Str,
    }),
  );
  const from = chunks[Math.max(0, index - 1)];
  const to = chunks[Math.min(chunks.length - 1, index + 1)];
  t.is(
    widened.context,
    [...garden].slice(from.start, to.start + [...to.text].length).join(''),
    'the chunk and one either side, stitched without repeating overlap',
  );
  t.regex((await t.throwsAsync(store.recall('notes', { query: 'x', rollup: { neighbours: -1 } })))!.message, /rollup.neighbours/);
  t.regex((await t.throwsAsync(store.recall('notes', { query: 'x', rollup: { per_document: 1 } as never })))!.message, /unknown field 'rollup.per_document'/);
});

test('limit_per with missing "own" makes each record without the field a group of its own; "shared" (the default) one group', async (t) => {
  const store = await Store.open({ path: tempDir('memory'), dimension: 2 });
  t.teardown(() => store.close());
  await store.upsert('c', {
    records: [
      { id: 'a', vector: [1, 0] },
      { id: 'b', vector: [1, 0.1] },
      { id: 'c', vector: [1, 0.2], attrs: { g: { Str: 'x' } } },
    ],
  });
  const query = [1, 0];
  t.deepEqual(ids(await store.search({ query, limit_per: { field: 'g', max: 1 } })), ['a', 'c']);
  t.deepEqual(ids(await store.search({ query, limit_per: { field: 'g', max: 1, missing: 'own' } })), ['a', 'b', 'c']);
  t.regex((await t.throwsAsync(store.search({ query, limit_per: { field: 'g', max: 1, missing: 'all' as never } })))!.message, /limit_per.missing/);
});

test('recall with rerank re-scores by the rerank provider, reading the recall query when rerank.query is left out', async (t) => {
  const provider = await fakeProvider(t, (c, res) =>
    reply(
      res,
      200,
      (c.body.texts as string[]).map((text, index) => ({ index, score: text.includes('lemon') ? 10 : 1 })),
    ),
  );
  const { store } = await memoryStore({ rerankProvider: `tei@${provider.url}` });
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'tea', text: 'green tea with honey' });
  await store.remember('notes', { id: 'lemon', text: 'green tea with lemon' });
  await store.remember('notes', { id: 'car', text: 'car engine oil' });
  const hits = await store.recall('notes', { query: 'green tea honey', top_k: 2, rerank: {} });
  t.is(hits[0].id, 'lemon');
  t.is(hits[0].score, 10);
  t.is(provider.calls[0].body.query, 'green tea honey');
  const plain = await memoryStore();
  t.teardown(() => plain.store.close());
  t.regex((await t.throwsAsync(plain.store.recall('notes', { query: 'x', rerank: {} })))!.message, /--rerank-provider/);
});

test('recall takes rank_by, so it can rank on the reinforcement stamps', async (t) => {
  const { store, clock } = await memoryStore();
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'a', text: 'same words here', attrs: { k: { Str: 'a' } } });
  await store.remember('notes', { id: 'b', text: 'same words here', attrs: { k: { Str: 'b' } } });
  t.deepEqual(ids(await store.recall('notes', { query: 'same words' })), ['a', 'b'], 'a tie resolves on id');
  for (let i = 0; i < 2; i++) await store.recall('notes', { query: 'same words', filter: [{ Eq: ['k', { Str: 'b' }] }], reinforce: true });
  const rankBy = { Decay: { field: '', origin: clock.now, count_field: 'svc.access_count', count_lambda: 1 } };
  const ranked = await store.recall('notes', { query: 'same words', rank_by: rankBy });
  t.deepEqual(ids(ranked), ['b', 'a'], 'b, reinforced twice, pays less of the count penalty');
  t.true(ranked[0].score > ranked[1].score);
});

test('embed for a scope refuses a collection embedded by another provider, as recall does; [] checks every collection', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  await store.remember('notes', { id: 'a', text: 'hello there' });
  await store.remember('other', { id: 'b', text: 'hello again' });
  t.is((await store.embed('hello', undefined, ['notes'])).length, DIM);
  await store.putMeta('other', { ...(await store.getMeta('other')), 'svc.embedder': 'openai:other-model@http://example.invalid' });
  t.is((await store.embed('hello', undefined, ['notes'])).length, DIM, 'a scope without it is fine');
  for (const scope of [['other'], []]) {
    const err = await t.throwsAsync(store.embed('hello', undefined, scope));
    t.is(err!.message, (await t.throwsAsync(store.recall('other', { query: 'hello' })))!.message);
  }
});

test('re-remembering a chunked document prunes a stale tail longer than one lookup page, and writes nothing more when nothing is stale', async (t) => {
  const { store } = await memoryStore();
  t.teardown(() => store.close());
  const chunking = { max_chars: 20, overlap_chars: 0 };
  const long = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');
  const first = await store.remember('docs', { id: 'doc', text: long, chunking });
  t.true(first.upserted > 64, `${first.upserted} chunks`);
  await store.remember('docs', { id: 'doc', text: 'short now', chunking });
  t.deepEqual(ids(await store.list({ scope: ['docs'], limit: 1000 })), ['doc#0']);
  const before = store.commitVersion();
  await store.remember('docs', { id: 'doc', text: 'short now', chunking });
  t.is(store.commitVersion(), before + 1, "the chunks' upsert only: no delete when nothing is stale");
});
