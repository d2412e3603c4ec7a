// The core's side of a reranked read, through the addon (native/include/tessera/rerank_window.h):
// the window's texts and query, and the refusals no library call reaches: a plain read sent
// `rerank`, scores that do not fit the texts, a window used after it was closed.
import test from 'ava';
import { native, type NativeStore } from '../../lib/native';

const bytes = (body: object) => Buffer.from(JSON.stringify(body));

async function core(): Promise<NativeStore> {
  const store = await native.NativeStore.open({ inMemory: true, dimension: 2 });
  await store.upsert(
    'c',
    bytes({
      records: [
        { id: 'a', vector: [1, 0], attrs: { body: { Str: 'alpha' } } },
        { id: 'b', vector: [1, 0.5], attrs: { body: { Str: 'beta' } } },
        { id: 'c', vector: [1, 1], attrs: {} },
      ],
    }),
  );
  return store;
}

const search = { query: [1, 0], top_k: 3, rerank: { query: 'q', text_attr: 'body' } };

test('a plain read refuses a body asking for rerank: the library reads it in two phases', async (t) => {
  const store = await core();
  t.teardown(() => store.close());
  const err = await t.throwsAsync(async () => store.search(bytes(search)));
  t.is((err as { status?: number }).status, 400);
  t.regex(err!.message, /two phases/);
});

test('the window holds the texts in rank order (null without one), and its scores order the page', async (t) => {
  const store = await core();
  t.teardown(() => store.close());
  const window = await store.rerankWindow('search', bytes(search));
  t.true(window.reranks());
  t.is(window.query(), 'q');
  t.deepEqual(window.texts(), ['alpha', 'beta', null]);
  const hits = JSON.parse((await window.finish(new Float64Array([1, 2]))).toString()) as { id: string; score: number }[];
  t.deepEqual(
    hits.map((h) => [h.id, h.score]),
    [
      ['b', 2],
      ['a', 1],
      ['c', hits[2].score],
    ],
  );
});

test('scores that do not fit the texts are 400 and the window stays usable; a closed window refuses every call', async (t) => {
  const store = await core();
  t.teardown(() => store.close());
  const window = await store.rerankWindow('search', bytes(search));
  for (const [scores, message] of [
    [[1], /1 scores for 2 candidate texts/],
    [[1, Number.NaN], /not a finite number/],
  ] as const) {
    const err = await t.throwsAsync(window.finish(new Float64Array(scores)));
    t.is((err as { status?: number }).status, 400);
    t.regex(err!.message, message);
  }
  t.is(JSON.parse((await window.finish(new Float64Array([0, 0]))).toString()).length, 3);
  window.close();
  t.throws(() => window.texts(), { message: /closed/ });
  t.throws(() => window.finish(new Float64Array([0, 0])), { message: /closed/ });
});

test('a body without rerank answers the plain read through the window, with no texts to score', async (t) => {
  const store = await core();
  t.teardown(() => store.close());
  const plain = { query: [1, 0], top_k: 3, rerank: null };
  const window = await store.rerankWindow('search', bytes(plain));
  t.false(window.reranks());
  t.deepEqual(window.texts(), []);
  t.deepEqual(await window.finish(new Float64Array(0)), await store.search(bytes({ query: [1, 0], top_k: 3 })));
  window.close();
});
