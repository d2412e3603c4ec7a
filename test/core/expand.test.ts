// expand (spec: "expand and rollup") through the library: each hit's chunk and `radius` chunks on
// either side, read from the stored records and stitched into `context`, on /search,
// /search/similar, /text-search, /hybrid-search and /search/batch; payload only, so hits, scores
// and order never change; the 400s for a malformed expand.
//
// Callers cannot write svc.* attributes (the store strips them), so these tests name their own
// chunk attributes (doc, n, body) through parent_field, index_field and text_field. Chunks without
// svc.char_start are joined with blank lines; stitching by offsets is checked byte for byte by the
// native expand_test. The default svc.* names are exercised once the store's own chunked writes are.
import test, { type ExecutionContext } from 'ava';
import { type ExpandOptions, type Filter, type Hit, type RecordInput, type SearchRequest, Store } from '../../lib/index';
import { prng, randomVector, rejectsWith, tempDir } from './helpers';

const DIM = 4;
const FIELDS = { parent_field: 'doc', index_field: 'n', text_field: 'body' };
const expand = (radius: number): ExpandOptions => ({ radius, ...FIELDS });

/** Chunk n of doc: words the text search matches, and two-, three- and four-byte characters. */
const chunkText = (doc: string, n: number) => `river ${doc} part ${n}: café 中文 😀 #${n}`;

interface Chunk {
  collection: string;
  id: string;
  doc: string;
  n: number;
  text: string;
}

/** Chunks of doc at the indexes given, with the store's chunk ids ({doc}#{n}) or ids of their own. */
function chunksOf(collection: string, doc: string, indexes: number[], storeIds = true): Chunk[] {
  return indexes.map((n) => ({ collection, id: storeIds ? `${doc}#${n}` : `${doc}-id-${(n * 7) % 11}`, doc, n, text: chunkText(doc, n) }));
}

function recordOf(c: Chunk, rand: () => number): RecordInput {
  return {
    id: c.id,
    vector: randomVector(rand, DIM),
    attrs: { doc: { Str: c.doc }, n: { Int: c.n }, body: { Str: c.text }, g: { Int: c.n % 3 }, ts: { DateTime: 1000 * c.n } },
  };
}

/**
 * The corpus: in kb, d1 (chunks 0-5, store ids), d2 (0-4, ids of its own, so found by a scan),
 * d3 (0, 1, 3, 4: chunk 2 missing), the same d1 in collection other with other texts, and
 * records that are not chunks. With sealed, flushed into sealed segments (id index and columns).
 */
async function build(sealed: boolean): Promise<{ store: Store; chunks: Chunk[] }> {
  const rand = prng(7);
  const store = await Store.open({ path: tempDir('expand'), dimension: DIM });
  const chunks = [...chunksOf('kb', 'd1', [0, 1, 2, 3, 4, 5]), ...chunksOf('kb', 'd2', [0, 1, 2, 3, 4], false), ...chunksOf('kb', 'd3', [0, 1, 3, 4])];
  const other = chunksOf('other', 'd1', [0, 1, 2]).map((c) => ({ ...c, text: `other ${c.text}` }));
  await store.upsert('kb', {
    records: [
      ...chunks.map((c) => recordOf(c, rand)),
      { id: 'plain', vector: randomVector(rand, DIM), attrs: { body: { Str: 'river plain text' } } },
      { id: 'typed', vector: randomVector(rand, DIM), attrs: { doc: { Str: 'd9' }, n: { Str: '1' }, body: { Str: 'river typed' } } },
    ],
  });
  await store.upsert('other', { records: other.map((c) => recordOf(c, rand)) });
  for (const c of ['kb', 'other']) await store.setFtsSchema(c, ['body']);
  if (sealed) await store.flush();
  return { store, chunks: [...chunks, ...other] };
}

/** The spec's context without offsets: the chunks of the hit's document within radius, joined with blank lines. */
function expected(chunks: Chunk[], hit: { collection: string; id: string }, radius: number): string | undefined {
  const own = chunks.find((c) => c.collection === hit.collection && c.id === hit.id);
  if (!own) return undefined;
  return chunks
    .filter((c) => c.collection === own.collection && c.doc === own.doc && Math.abs(c.n - own.n) <= radius)
    .sort((a, b) => a.n - b.n)
    .map((c) => c.text)
    .join('\n\n');
}

/** The one hit a filter pins to chunk n of doc in kb, searched with expand. */
async function contextOf(store: Store, doc: string, n: number, options: ExpandOptions, extra: Partial<SearchRequest> = {}): Promise<Hit> {
  const filter: Filter = [{ Eq: ['doc', { Str: doc }] }, { Eq: ['n', { Int: n }] }];
  const hits = await store.search({ query: [1, 0, 0, 0], scope: ['kb'], filter, top_k: 1, expand: options, ...extra });
  if (hits.length !== 1) throw new Error(`no hit for ${doc} chunk ${n}`);
  return hits[0];
}

const withoutContext = (hits: Hit[]) => hits.map((h) => Object.fromEntries(Object.entries(h).filter(([key]) => key !== 'context')));

for (const sealed of [false, true]) {
  const where = sealed ? 'sealed segments' : 'a memory segment';

  test(`radius 0 reports the hit's own text (${where})`, async (t) => {
    const { store } = await build(sealed);
    t.is((await contextOf(store, 'd1', 3, expand(0))).context, chunkText('d1', 3));
    t.is((await contextOf(store, 'd1', 3, FIELDS)).context, chunkText('d1', 3), 'radius defaults to 0');
  });

  test(`radius r joins the hit's chunk and r chunks on either side, without offsets by blank lines (${where})`, async (t) => {
    const { store } = await build(sealed);
    const hit = await contextOf(store, 'd1', 2, expand(1));
    t.is(hit.context, [1, 2, 3].map((n) => chunkText('d1', n)).join('\n\n'));
    t.is(Buffer.from(hit.context!).toString('hex'), Buffer.from([1, 2, 3].map((n) => chunkText('d1', n)).join('\n\n')).toString('hex'), 'byte for byte');
  });

  test(`a radius beyond the document's ends stops at its first and last chunks (${where})`, async (t) => {
    const { store } = await build(sealed);
    const all = [0, 1, 2, 3, 4, 5].map((n) => chunkText('d1', n)).join('\n\n');
    t.is((await contextOf(store, 'd1', 0, expand(100))).context, all);
    t.is((await contextOf(store, 'd1', 5, expand(7))).context, all);
    t.is((await contextOf(store, 'd1', 1, expand(2))).context, [0, 1, 2, 3].map((n) => chunkText('d1', n)).join('\n\n'));
  });

  test(`a missing neighbour leaves one blank line between the chunks around it (${where})`, async (t) => {
    const { store } = await build(sealed);
    t.is((await contextOf(store, 'd3', 1, expand(1))).context, [0, 1].map((n) => chunkText('d3', n)).join('\n\n'));
    t.is((await contextOf(store, 'd3', 3, expand(2))).context, [1, 3, 4].map((n) => chunkText('d3', n)).join('\n\n'));
  });

  test(`chunks whose ids are not {parent}#{index} are found by their parent attribute (${where})`, async (t) => {
    const { store } = await build(sealed);
    t.is((await contextOf(store, 'd2', 2, expand(1))).context, [1, 2, 3].map((n) => chunkText('d2', n)).join('\n\n'));
    t.is((await contextOf(store, 'd2', 0, expand(9))).context, [0, 1, 2, 3, 4].map((n) => chunkText('d2', n)).join('\n\n'));
  });

  test(`neighbours come from the hit's own collection only (${where})`, async (t) => {
    const { store } = await build(sealed);
    const [hit] = await store.search({ query: [1, 0, 0, 0], scope: ['other'], filter: [{ Eq: ['n', { Int: 1 }] }], top_k: 1, expand: expand(1) });
    t.is(hit.context, [0, 1, 2].map((n) => `other ${chunkText('d1', n)}`).join('\n\n'));
  });

  test(`a hit without chunk attributes (missing, or of another type) has no context and does not fail (${where})`, async (t) => {
    const { store } = await build(sealed);
    const hits = await store.textSearch({ field: 'body', query: 'river', scope: ['kb'], top_k: 100, expand: expand(2) });
    for (const id of ['plain', 'typed']) {
      const hit = hits.find((h) => h.id === id);
      t.truthy(hit, id);
      t.false('context' in hit!, `${id} has no context key`);
    }
    t.true(
      hits.some((h) => 'context' in h),
      'the chunks among them have one',
    );
  });

  test(`projection excluding the chunk attributes still yields the context (${where})`, async (t) => {
    const { store } = await build(sealed);
    const want = [1, 2, 3].map((n) => chunkText('d1', n)).join('\n\n');
    const excluded = await contextOf(store, 'd1', 2, expand(1), { exclude_attributes: ['doc', 'n', 'body'] });
    t.deepEqual(Object.keys(excluded.attrs).sort(), ['g', 'ts']);
    t.is(excluded.context, want);
    const none = await contextOf(store, 'd1', 2, expand(1), { include_attributes: [] });
    t.deepEqual(none.attrs, {});
    t.is(none.context, want);
  });

  test(`a deleted neighbour is not used (${where})`, async (t) => {
    const { store } = await build(sealed);
    await store.delete('kb', { ids: ['d1#3', 'd2-id-10'] }); // d2's chunk 3 has the id d2-id-10
    t.is((await contextOf(store, 'd1', 2, expand(1))).context, [1, 2].map((n) => chunkText('d1', n)).join('\n\n'));
    t.is((await contextOf(store, 'd2', 2, expand(1))).context, [1, 2].map((n) => chunkText('d2', n)).join('\n\n'));
  });

  test(`an overwritten neighbour contributes its new text (${where})`, async (t) => {
    const { store } = await build(sealed);
    const rand = prng(9);
    await store.upsert('kb', {
      records: [
        recordOf({ collection: 'kb', id: 'd1#3', doc: 'd1', n: 3, text: 'rewritten ✓ three' }, rand),
        recordOf({ collection: 'kb', id: 'd2-id-10', doc: 'd2', n: 3, text: 'rewritten ✓ d2' }, rand),
      ],
    });
    t.is((await contextOf(store, 'd1', 2, expand(1))).context, [chunkText('d1', 1), chunkText('d1', 2), 'rewritten ✓ three'].join('\n\n'));
    t.is((await contextOf(store, 'd2', 2, expand(1))).context, [chunkText('d2', 1), chunkText('d2', 2), 'rewritten ✓ d2'].join('\n\n'));
  });

  test(`a record under a chunk id whose own parent or index differ is not that chunk (${where})`, async (t) => {
    const { store } = await build(sealed);
    const rand = prng(11);
    await store.upsert('kb', { records: [recordOf({ collection: 'kb', id: 'd1#4', doc: 'elsewhere', n: 4, text: 'moved away' }, rand)] });
    t.is((await contextOf(store, 'd1', 3, expand(1))).context, [2, 3].map((n) => chunkText('d1', n)).join('\n\n'));
  });
}

test('two records at one index of a document: the one with the smaller id is the neighbour', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  const rand = prng(3);
  const rec = (id: string, n: number, text: string) => recordOf({ collection: 'kb', id, doc: 'd', n, text }, rand);
  await store.upsert('kb', { records: [rec('m', 0, 'zero'), rec('b', 1, 'one from b'), rec('a', 1, 'one from a')] });
  t.is((await contextOf(store, 'd', 0, expand(1))).context, 'zero\n\none from a');
  // A hit's own chunk is always its own text, whichever record holds the same index.
  const [fromB] = await store.search({ query: [1, 0, 0, 0], filter: [{ Eq: ['body', { Str: 'one from b' }] }], expand: expand(0) });
  t.is(fromB.context, 'one from b');
});

test('the default attribute names are svc.*: records written through upsert (svc.* stripped) have no context', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  const attrs = {
    'svc.parent_id': { Str: 'd' },
    'svc.chunk_index': { Int: 0 },
    'svc.text': { Str: 'forged' },
    doc: { Str: 'd' },
    n: { Int: 0 },
    body: { Str: 'x' },
  };
  await store.upsert('kb', { records: [{ id: 'd#0', vector: [1, 0, 0, 0], attrs }] });
  const [hit] = await store.search({ query: [1, 0, 0, 0], expand: { radius: 1 } });
  t.false('context' in hit);
  t.is((await store.search({ query: [1, 0, 0, 0], expand: expand(1) }))[0].context, 'x', 'the same record read through its own names');
});

test('expand: null is the same as leaving it out', async (t) => {
  const { store } = await build(false);
  const body = { query: [1, 0, 0, 0], scope: ['kb'], top_k: 5 };
  t.deepEqual(await store.search({ ...body, expand: null }), await store.search(body));
});

test('radius 0 may run inline and a radius goes to the query threads; both answer the same contexts', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  const rand = prng(13);
  const chunks = chunksOf('kb', 'd', [0, 1, 2]);
  await store.upsert('kb', { records: chunks.map((c) => recordOf(c, rand)) });
  await store.setFtsSchema('kb', ['body']);
  const counts = () => {
    const { reads_inline, reads_queued } = store.footprintCached();
    return { inline: reads_inline, queued: reads_queued };
  };
  for (const [route, run] of [
    ['/search', (radius: number) => store.search({ query: [1, 0, 0, 0], expand: expand(radius) })],
    ['/text-search', (radius: number) => store.textSearch({ field: 'body', query: 'river', expand: expand(radius) })],
  ] as const) {
    const before = counts();
    const own = await run(0);
    t.deepEqual(counts(), { inline: before.inline + 1, queued: before.queued }, `${route}: radius 0 inline`);
    const wide = await run(1);
    t.deepEqual(counts(), { inline: before.inline + 1, queued: before.queued + 1 }, `${route}: radius 1 queued`);
    t.deepEqual(withoutContext(wide), withoutContext(own), route);
    for (const h of own) t.is(h.context, expected(chunks, h, 0), `${route}: ${h.id}`);
    for (const h of wide) t.is(h.context, expected(chunks, h, 1), `${route}: ${h.id}`);
  }
});

// ---- payload only: every route answers the same hits in the same order -------------------------

/**
 * A larger corpus for the ranking passes: 30 documents of 8 chunks over two collections, two in
 * three with store ids, flushed into sealed segments; then the first six documents rewritten, so
 * their current chunks are in memory segments and their old rows deleted in sealed ones.
 */
async function buildLarge(): Promise<{ store: Store; chunks: Chunk[] }> {
  const rand = prng(21);
  const store = await Store.open({ path: tempDir('expand'), dimension: DIM });
  const chunks: Chunk[] = [];
  for (let d = 0; d < 30; d++) chunks.push(...chunksOf(d % 2 ? 'a' : 'b', `doc${d}`, [0, 1, 2, 3, 4, 5, 6, 7], d % 3 !== 0));
  const write = async (rows: Chunk[]) => {
    for (const c of ['a', 'b']) await store.upsert(c, { records: rows.filter((x) => x.collection === c).map((x) => recordOf(x, rand)) });
  };
  await write(chunks);
  for (const c of ['a', 'b']) await store.setFtsSchema(c, ['body']);
  await store.flush();
  const rewritten = chunks.filter((c) => Number(c.doc.slice(3)) < 6);
  for (const c of rewritten) c.text = `v2 ${c.text}`;
  await write(rewritten);
  return { store, chunks };
}

const OPTIONS: [string, Record<string, unknown>][] = [
  ['plain', {}],
  ['offset', { offset: 7, top_k: 6 }],
  ['rank_by', { rank_by: { Decay: { field: 'ts', origin: 8000, scale: 3000 } } }],
  ['limit_per', { limit_per: { field: 'doc', max: 2 } }],
  ['diversity', { diversity: 0.3 }],
  ['min_score', { min_score: 0.2 }],
  ['projection', { include_attributes: ['g'] }],
];

/** Hits with expand equal the hits without it once context is taken away, and each context is the oracle's. */
function samePage(t: ExecutionContext, chunks: Chunk[], without: Hit[], withExpand: Hit[], radius: number, label: string) {
  t.true(without.length > 0, `${label}: some hits`);
  t.deepEqual(withoutContext(withExpand), without, `${label}: same hits, scores and order`);
  for (const h of withExpand) t.is(h.context, expected(chunks, h, radius), `${label}: context of ${h.collection}/${h.id}`);
}

test('ids, scores and order are identical with and without expand on /search', async (t) => {
  const { store, chunks } = await buildLarge();
  const query = randomVector(prng(5), DIM);
  for (const [label, options] of OPTIONS) {
    const body = { query, top_k: 12, ...options };
    samePage(t, chunks, await store.search(body), await store.search({ ...body, expand: expand(2) }), 2, label);
  }
});

test('ids, scores and order are identical with and without expand on /search/similar', async (t) => {
  const { store, chunks } = await buildLarge();
  for (const [label, options] of OPTIONS) {
    const body = { collection: 'a', id: 'doc1#3', scope: ['a', 'b'], top_k: 12, ...options };
    samePage(t, chunks, await store.searchSimilar(body), await store.searchSimilar({ ...body, expand: expand(1) }), 1, label);
  }
});

test('ids, scores and order are identical with and without expand on /text-search', async (t) => {
  const { store, chunks } = await buildLarge();
  for (const [label, options] of OPTIONS) {
    const body = { field: 'body', query: 'river part doc3 doc4 5', top_k: 12, ...options, ...(label === 'min_score' ? { min_score: 1 } : {}) };
    samePage(t, chunks, await store.textSearch(body), await store.textSearch({ ...body, expand: expand(3) }), 3, label);
  }
});

test('ids, scores and order are identical with and without expand on /hybrid-search', async (t) => {
  const { store, chunks } = await buildLarge();
  const vector = randomVector(prng(6), DIM);
  // /hybrid-search takes neither rank_by nor min_score.
  for (const [label, options] of OPTIONS.filter(([l]) => l !== 'rank_by' && l !== 'min_score')) {
    const body = { vector, field: 'body', text: 'doc7 part 2', top_k: 12, candidates: 40, ...options };
    samePage(t, chunks, await store.hybridSearch(body), await store.hybridSearch({ ...body, expand: expand(1) }), 1, label);
  }
});

test('a /search/batch leg expands its own hits; fused hits are expanded as the first leg asks', async (t) => {
  const { store, chunks } = await buildLarge();
  const [q1, q2] = [randomVector(prng(1), DIM), randomVector(prng(2), DIM)];
  const plain = (await store.searchBatch({ queries: [{ query: q1 }, { query: q2 }] })) as { results: Hit[][] };
  const legs = (await store.searchBatch({ queries: [{ query: q1, expand: expand(1) }, { query: q2 }] })) as { results: Hit[][] };
  samePage(t, chunks, plain.results[0], legs.results[0], 1, 'leg 0');
  t.deepEqual(legs.results[1], plain.results[1], 'leg 1 asked for nothing');
  const fuse = { top_k: 15 };
  const fusedPlain = (await store.searchBatch({ queries: [{ query: q1 }, { query: q2 }], fuse })) as { fused: Hit[] };
  const fused = (await store.searchBatch({
    queries: [
      { query: q1, expand: expand(2) },
      { query: q2, expand: expand(0) },
    ],
    fuse,
  })) as { fused: Hit[] };
  samePage(t, chunks, fusedPlain.fused, fused.fused, 2, 'fused');
});

// ---- 400s -------------------------------------------------------------------------------------

test('an empty field name in expand is 400 naming the field', async (t) => {
  const { store } = await build(false);
  for (const field of ['parent_field', 'index_field', 'text_field']) {
    const e = await rejectsWith(t, store.search({ query: [1, 0, 0, 0], expand: { ...FIELDS, [field]: '' } }), 400, field);
    t.regex(e.message, new RegExp(`expand\\.${field} must not be empty`));
  }
});

test('a radius that is not a whole number from 0 to 100 is 400 naming expand.radius', async (t) => {
  const { store } = await build(false);
  for (const radius of [-1, 1.5, 101, '2', true, null]) {
    const e = await rejectsWith(t, store.search({ query: [1, 0, 0, 0], expand: { radius } as unknown as ExpandOptions }), 400, `radius ${radius}`);
    t.regex(e.message, /expand\.radius/);
  }
  t.is((await store.search({ query: [1, 0, 0, 0], expand: { radius: 100, ...FIELDS } })).length, 10, '100 is accepted');
});

test('an unknown key, a field name of another type, or an expand that is not an object is 400', async (t) => {
  const { store } = await build(false);
  const cases: [unknown, RegExp][] = [
    [{ radius: 1, radius_chars: 5 }, /unknown field 'radius_chars' in expand; allowed: radius, parent_field, index_field, text_field/],
    [{ parent_field: 5 }, /expand\.parent_field/],
    [{ text_field: ['body'] }, /expand\.text_field/],
    [1, /expand must be an object/],
    ['radius', /expand must be an object/],
  ];
  for (const [value, message] of cases) {
    const e = await rejectsWith(t, store.search({ query: [1, 0, 0, 0], expand: value as ExpandOptions }), 400, JSON.stringify(value));
    t.regex(e.message, message);
  }
});

test('a malformed expand is 400 on every route that takes it, a batch leg included', async (t) => {
  const { store } = await build(false);
  const bad = { ...FIELDS, index_field: '' };
  const calls: [string, Promise<unknown>, RegExp][] = [
    ['/search/similar', store.searchSimilar({ collection: 'kb', id: 'd1#0', expand: bad }), /^expand\.index_field/],
    ['/text-search', store.textSearch({ field: 'body', query: 'river', expand: bad }), /^expand\.index_field/],
    ['/hybrid-search', store.hybridSearch({ vector: [1, 0, 0, 0], field: 'body', text: 'river', expand: bad }), /^expand\.index_field/],
    ['/search/batch', store.searchBatch({ queries: [{ query: [1, 0, 0, 0] }, { query: [1, 0, 0, 0], expand: bad }] }), /^queries\[1\]\.expand\.index_field/],
  ];
  for (const [route, promise, message] of calls) t.regex((await rejectsWith(t, promise, 400, route)).message, message, route);
});
