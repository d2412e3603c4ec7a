// /suggest through the library, one rule at a time (spec "POST /suggest" and docs/full-text.md
// "Suggest"), with an independent oracle for the exact and fuzzy legs written from those rules.
import test, { type ExecutionContext } from 'ava';
import { Store } from '../../lib/index';
import { prng, rejectsWith } from '../core/helpers';
import {
  type Doc,
  type FtsFieldEntry,
  type SuggestRequest,
  type SuggestResult,
  bodies,
  docs,
  fieldOptions,
  indexField,
  porter2,
  randomDocs,
  storeOf,
  str,
  surface,
  term,
  tokenize,
  VOCAB,
} from './util';

/** Levenshtein distance from `token` to the nearest prefix of `word` (in characters). */
function prefixDistance(token: string, word: string): number {
  const a = [...token];
  const b = [...word];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return Math.min(...prev);
}

const budget = (len: number) => (len < 4 ? 0 : len <= 7 ? 1 : len <= 64 ? 2 : 0);
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

interface OracleSuggest extends Omit<SuggestRequest, 'filter'> {
  keep?: (d: Doc) => boolean;
}

/** The rules of docs/full-text.md "Suggest", over the live documents `all`. */
function oracleSuggest(all: Doc[], schemas: Record<string, FtsFieldEntry[]>, q: OracleSuggest): SuggestResult {
  const limit = q.limit ?? 10;
  const rows = (fuzzy: boolean) => {
    const merged = new Map<string, { df: number; dist: number }>();
    for (const c of [...new Set(all.map((d) => d.collection))]) {
      if (q.scope?.length && !q.scope.includes(c)) continue;
      const entry = (schemas[c] ?? []).find((e) => fieldOptions(e).field === q.field);
      if (!entry) continue;
      const opts = fieldOptions(entry);
      const index = indexField(all, c, entry);
      const toks = tokenize(q.prefix);
      if (!toks.length || /[^\p{L}\p{Nd}]$/u.test(q.prefix)) continue;
      const final = surface(toks[toks.length - 1].word, opts);
      const earlier = toks
        .slice(0, -1)
        .map((tk) => term(tk.word, opts))
        .filter((x): x is string => x !== null);
      const holders = [...index.docs.entries()].filter(([k, d]) => {
        const id = k.split('\u0000')[1];
        const doc = all.find((x) => x.collection === c && x.id === id)!;
        return (!q.keep || q.keep(doc)) && earlier.every((e) => d.tf.has(e));
      });
      const surfaces = new Set([...index.docs.values()].flatMap((d) => [...d.surfaces]));
      for (const s of surfaces) {
        let dist = 0;
        if (fuzzy) {
          const n = [...final].length;
          dist = prefixDistance(final, s);
          if (dist > budget(n)) continue;
        } else if (!s.startsWith(final)) continue;
        const df = holders.filter(([, d]) => d.tf.has(porter2(s))).length;
        if (!df) continue;
        const m = merged.get(s);
        merged.set(s, { df: (m?.df ?? 0) + df, dist });
      }
    }
    return [...merged.entries()].sort(([a, x], [b, y]) => x.dist - y.dist || y.df - x.df || byteOrder(a, b)).map(([t, { df }]) => ({ term: t, df }));
  };
  let found = rows(false);
  if (!found.length && q.fuzzy !== false) found = rows(true);
  return { suggestions: found.slice(0, 256).slice(0, limit), matched: found.length };
}

async function expectSuggest(
  t: ExecutionContext,
  store: Store,
  all: Doc[],
  schemas: Record<string, FtsFieldEntry[]>,
  q: SuggestRequest,
  keep?: (d: Doc) => boolean,
): Promise<SuggestResult> {
  const got = await store.suggest(q);
  const { filter: _, ...rest } = q;
  t.deepEqual(got, oracleSuggest(all, schemas, { ...rest, keep }), JSON.stringify(q));
  return got;
}

const CORPUS: Doc[] = docs('c', {
  s1: { body: str('Running shoes for runners'), color: str('blue') },
  s2: { body: str('Run fast, run far'), color: str('green') },
  s3: { body: str('the runner runs'), color: str('blue') },
  s4: { body: str('Rune stones and running water'), color: str('green') },
  s5: { body: str('red running shoes'), color: str('red') },
  s6: { body: str('red rum'), color: str('red') },
});
const SCHEMA: Record<string, FtsFieldEntry[]> = { c: ['body'] };

test('completions are surface words, ordered by df descending then term ascending; surface forms of one stem share its df', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  const r = await expectSuggest(t, store, CORPUS, SCHEMA, { field: 'body', prefix: 'ru' });
  t.deepEqual(r, {
    suggestions: [
      { term: 'run', df: 5 },
      { term: 'running', df: 5 },
      { term: 'runs', df: 5 },
      { term: 'runner', df: 2 },
      { term: 'runners', df: 2 },
      { term: 'rum', df: 1 },
      { term: 'rune', df: 1 },
    ],
    matched: 7,
  });
});

test('the final token is lowercased; surface words are lowercased and unstemmed', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'RUNN' }), {
    suggestions: [
      { term: 'running', df: 5 },
      { term: 'runner', df: 2 },
      { term: 'runners', df: 2 },
    ],
    matched: 3,
  });
});

test('stopwords are not completions', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  const r = await store.suggest({ field: 'body', prefix: 'fo', fuzzy: false });
  t.deepEqual(r, { suggestions: [], matched: 0 }, '"for" is dropped at index time');
  t.deepEqual((await store.suggest({ field: 'body', prefix: 'th', fuzzy: false })).suggestions, []);
});

test('filter conditions each df; a completion whose documents are all excluded is absent', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  const filter = [{ Eq: ['color', str('green')] as [string, { Str: string }] }];
  const r = await expectSuggest(
    t,
    store,
    CORPUS,
    SCHEMA,
    { field: 'body', prefix: 'ru', filter },
    (d) => (d.attrs?.color as { Str: string } | undefined)?.Str === 'green',
  );
  t.deepEqual(
    r.suggestions.map((s) => s.term),
    ['run', 'running', 'runs', 'rune'],
  );
  t.true(r.suggestions.every((s) => s.df <= 2));
  const red = await store.suggest({ field: 'body', prefix: 'ru', filter: [{ Eq: ['color', str('red')] }] });
  t.deepEqual(red, {
    suggestions: [
      { term: 'rum', df: 1 },
      { term: 'run', df: 1 },
      { term: 'running', df: 1 },
      { term: 'runs', df: 1 },
    ],
    matched: 4,
  });
  await rejectsWith(t, store.suggest({ field: 'body', prefix: 'ru', filter: [{ Regex: ['color', '('] }] }), 400, 'invalid filter');
});

test('earlier words narrow each df to documents holding all of their stems', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  t.deepEqual(await expectSuggest(t, store, CORPUS, SCHEMA, { field: 'body', prefix: 'red ru' }), {
    suggestions: [
      { term: 'rum', df: 1 },
      { term: 'run', df: 1 },
      { term: 'running', df: 1 },
      { term: 'runs', df: 1 },
    ],
    matched: 4,
  });
  // "Runs" holds the stem of "running", so s1, s5 (running) and no others with shoes.
  t.deepEqual(await expectSuggest(t, store, CORPUS, SCHEMA, { field: 'body', prefix: 'Runs sh' }), { suggestions: [{ term: 'shoes', df: 2 }], matched: 1 });
  t.deepEqual(await expectSuggest(t, store, CORPUS, SCHEMA, { field: 'body', prefix: 'red shoes ru' }), {
    suggestions: [
      { term: 'run', df: 1 },
      { term: 'running', df: 1 },
      { term: 'runs', df: 1 },
    ],
    matched: 3,
  });
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'purple ru' }), { suggestions: [], matched: 0 }, 'an earlier word nobody holds');
});

test('a prefix whose earlier words are all stopwords is unconditioned; stopwords among earlier words are ignored', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  const plain = await store.suggest({ field: 'body', prefix: 'ru' });
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'the ru' }), plain);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'The and of ru' }), plain);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'the red ru' }), await store.suggest({ field: 'body', prefix: 'red ru' }));
});

test('a prefix ending in a separator completes nothing', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  for (const prefix of ['ru ', 'run ', 'red ', 'run,', '', ' ']) {
    t.deepEqual(await store.suggest({ field: 'body', prefix }), { suggestions: [], matched: 0 }, JSON.stringify(prefix));
  }
});

test('matched counts every completion while limit cuts the list; the default limit is 10', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'ru', limit: 2 }), {
    suggestions: [
      { term: 'run', df: 5 },
      { term: 'running', df: 5 },
    ],
    matched: 7,
  });
  const words = Array.from({ length: 15 }, (_, i) => `word${String.fromCharCode(97 + i)}x`);
  const many = bodies('m', { d: words.join(' ') });
  const s2 = await storeOf(many, { m: ['body'] });
  const r = await s2.suggest({ field: 'body', prefix: 'word' });
  t.is(r.suggestions.length, 10);
  t.is(r.matched, 15);
});

test('limit 0 answers an empty list', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  const r = await store.suggest({ field: 'body', prefix: 'ru', limit: 0 });
  t.deepEqual(r.suggestions, []);
});

test('limit above 10000 is 400; 10000 is accepted; a negative or fractional limit is 400', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  await rejectsWith(t, store.suggest({ field: 'body', prefix: 'ru', limit: 10_001 }), 400, '10001');
  await rejectsWith(t, store.suggest({ field: 'body', prefix: 'ru', limit: -1 }), 400, '-1');
  await rejectsWith(t, store.suggest({ field: 'body', prefix: 'ru', limit: 2.5 }), 400, '2.5');
  t.is((await store.suggest({ field: 'body', prefix: 'ru', limit: 10_000 })).suggestions.length, 7);
});

test('at most 256 completions are listed (the commonest); matched counts them all', async (t) => {
  const letters = 'bcdfghjklmnpqrtvwxz';
  const words: string[] = [];
  // Each its own stem, so no two words share a df.
  for (const a of letters) for (const b of letters) if (words.length < 300 && porter2(`vox${a}${b}`) === `vox${a}${b}`) words.push(`vox${a}${b}`);
  // The first 256 words appear in two documents, the rest in one.
  const corpus = [
    ...bodies('c', { a: words.slice(0, 256).join(' '), b: words.slice(0, 256).join(' ') }),
    ...words.slice(256).map((w, i) => ({ collection: 'c', id: `r${i}`, attrs: { body: str(w) } })),
  ];
  const store = await storeOf(corpus, SCHEMA);
  const r = await store.suggest({ field: 'body', prefix: 'vox', limit: 10_000 });
  t.is(r.matched, 300);
  t.is(r.suggestions.length, 256);
  t.true(
    r.suggestions.every((s) => s.df === 2),
    'the commonest are kept',
  );
  t.deepEqual(
    r.suggestions.map((s) => s.term),
    [...words.slice(0, 256)].sort(),
  );
  const five = await store.suggest({ field: 'body', prefix: 'vox', limit: 5 });
  t.deepEqual(five, { suggestions: r.suggestions.slice(0, 5), matched: 300 });
});

test('deleted documents do not count; a completion left with df 0 is absent', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  await store.delete('c', { ids: ['s6', 's4'] });
  const live = CORPUS.filter((d) => d.id !== 's6' && d.id !== 's4');
  const r = await expectSuggest(t, store, live, SCHEMA, { field: 'body', prefix: 'ru' });
  t.false(r.suggestions.some((s) => s.term === 'rum' || s.term === 'rune'));
  t.deepEqual(
    r.suggestions.find((s) => s.term === 'run'),
    { term: 'run', df: 4 },
  );
});

test('with ascii_folding the prefix and the surface words are folded', async (t) => {
  const schemas = { c: [{ field: 'body', ascii_folding: true }] };
  const corpus = bodies('c', { a: 'Café crème', b: 'cafe society', c: 'cafés' });
  const store = await storeOf(corpus, schemas);
  t.deepEqual(await expectSuggest(t, store, corpus, schemas, { field: 'body', prefix: 'CAFÉ' }), {
    suggestions: [
      { term: 'cafe', df: 3 },
      { term: 'cafes', df: 3 },
    ],
    matched: 2,
  });
  // Unfolded, "café" and "cafés" share the stem café (df 2) and "cafe" is apart.
  const plain = await storeOf(corpus, SCHEMA);
  t.deepEqual(await plain.suggest({ field: 'body', prefix: 'café', fuzzy: false }), {
    suggestions: [
      { term: 'café', df: 2 },
      { term: 'cafés', df: 2 },
    ],
    matched: 2,
  });
  t.deepEqual(await plain.suggest({ field: 'body', prefix: 'cafe', fuzzy: false }), { suggestions: [{ term: 'cafe', df: 1 }], matched: 1 });
});

// ---- fuzzy retry ----------------------------------------------------------------------------------

const TYPOS: Doc[] = bodies('c', {
  t1: 'magnificent views',
  t2: 'a magnifier lens',
  t3: 'the magnifier shop',
  t4: 'it magnifies things',
  t5: 'running shoes',
  t6: 'runs daily',
  t7: 'candlesticks and candles',
});

test('fuzzy: a token below 4 characters is never retried', async (t) => {
  const store = await storeOf(TYPOS, SCHEMA);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'rxn' }), { suggestions: [], matched: 0 }, '"run" is one edit away');
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'xu' }), { suggestions: [], matched: 0 });
});

test('fuzzy: a token of 4 to 7 characters is retried within one edit', async (t) => {
  const store = await storeOf(TYPOS, SCHEMA);
  const r = await expectSuggest(t, store, TYPOS, SCHEMA, { field: 'body', prefix: 'runx' });
  t.deepEqual(r.suggestions.map((s) => s.term).sort(), ['running', 'runs']);
  t.is(r.matched, 2);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'rxnx' }), { suggestions: [], matched: 0 }, 'two edits at length 4');
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'magnxfx' }), { suggestions: [], matched: 0 }, 'two edits at length 7');
  const seven = await expectSuggest(t, store, TYPOS, SCHEMA, { field: 'body', prefix: 'magnifx' });
  t.is(seven.matched, 3, 'magnificent, magnifier, magnifies at one edit');
});

test('fuzzy: a token of 8 or more characters is retried within two edits', async (t) => {
  const store = await storeOf(TYPOS, SCHEMA);
  t.deepEqual(await expectSuggest(t, store, TYPOS, SCHEMA, { field: 'body', prefix: 'magnxfxc' }), {
    suggestions: [{ term: 'magnificent', df: 1 }],
    matched: 1,
  });
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'mxgnxfxc' }), { suggestions: [], matched: 0 }, 'three edits');
});

test('fuzzy: ranked by edit distance, then df descending, then term', async (t) => {
  const store = await storeOf(TYPOS, SCHEMA);
  // magnificent is 1 edit away (df 1); magnifier and magnifies share the stem magnifi (df 3) at 2 edits.
  t.deepEqual(await expectSuggest(t, store, TYPOS, SCHEMA, { field: 'body', prefix: 'magnifxce' }), {
    suggestions: [
      { term: 'magnificent', df: 1 },
      { term: 'magnifier', df: 3 },
      { term: 'magnifies', df: 3 },
    ],
    matched: 3,
  });
  await expectSuggest(t, store, TYPOS, SCHEMA, { field: 'body', prefix: 'candlestx' });
});

test('fuzzy: tokens past 64 characters are not retried; 64 characters get two edits', async (t) => {
  const long = `x${'abcdefghij'.repeat(7)}`;
  const corpus = bodies('c', { long: `${long} tail` });
  const store = await storeOf(corpus, SCHEMA);
  const typo = (n: number) => `${long.slice(0, 10)}Z${long.slice(11, n)}`;
  t.is(typo(64).length, 64);
  t.deepEqual(
    await store.suggest({ field: 'body', prefix: long.slice(0, 65) }),
    { suggestions: [{ term: long, df: 1 }], matched: 1 },
    'exact prefixes of any length complete',
  );
  t.deepEqual(await store.suggest({ field: 'body', prefix: typo(64) }), { suggestions: [{ term: long, df: 1 }], matched: 1 }, '64 characters, one edit');
  t.deepEqual(await store.suggest({ field: 'body', prefix: typo(65) }), { suggestions: [], matched: 0 }, '65 characters');
});

test('fuzzy: no retry when the exact prefix matches', async (t) => {
  const corpus = bodies('c', { a: 'cart', b: 'card card', c: 'care' });
  const store = await storeOf(corpus, SCHEMA);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'cart' }), { suggestions: [{ term: 'cart', df: 1 }], matched: 1 });
});

test('fuzzy: false opts out of the retry', async (t) => {
  const store = await storeOf(TYPOS, SCHEMA);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'magnifxce', fuzzy: false }), { suggestions: [], matched: 0 });
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'runx', fuzzy: false }), { suggestions: [], matched: 0 });
  t.not((await store.suggest({ field: 'body', prefix: 'runx', fuzzy: true })).matched, 0);
});

test('fuzzy: the filter and earlier-word conditions still apply', async (t) => {
  const corpus = docs('c', {
    a: { body: str('blue magnifier'), k: str('x') },
    b: { body: str('red magnifier'), k: str('y') },
    c: { body: str('red magnificent'), k: str('x') },
  });
  const store = await storeOf(corpus, SCHEMA);
  t.deepEqual(await expectSuggest(t, store, corpus, SCHEMA, { field: 'body', prefix: 'red magnifxce' }), {
    suggestions: [
      { term: 'magnificent', df: 1 },
      { term: 'magnifier', df: 1 },
    ],
    matched: 2,
  });
  t.deepEqual(
    await expectSuggest(
      t,
      store,
      corpus,
      SCHEMA,
      { field: 'body', prefix: 'magnifxce', filter: [{ Eq: ['k', str('x')] }] },
      (d) => (d.attrs?.k as { Str: string } | undefined)?.Str === 'x',
    ),
    {
      suggestions: [
        { term: 'magnificent', df: 1 },
        { term: 'magnifier', df: 1 },
      ],
      matched: 2,
    },
  );
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'blue magnifxce', filter: [{ Eq: ['k', str('y')] }] }), { suggestions: [], matched: 0 });
});

// ---- scope -------------------------------------------------------------------------------------------

test('across collections a shared surface form is one row whose df is the sum', async (t) => {
  const corpus = [...CORPUS, ...bodies('k', { k1: 'running late', k2: 'rum and running', k3: 'ruby' })];
  const schemas = { c: ['body'], k: ['body'] };
  const store = await storeOf(corpus, schemas);
  const r = await expectSuggest(t, store, corpus, schemas, { field: 'body', prefix: 'ru' });
  t.deepEqual(r.suggestions.slice(0, 3), [
    { term: 'running', df: 7 },
    { term: 'run', df: 5 },
    { term: 'runs', df: 5 },
  ]);
  t.deepEqual(
    r.suggestions.find((s) => s.term === 'rum'),
    { term: 'rum', df: 2 },
  );
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'ru', scope: ['k'] }), {
    suggestions: [
      { term: 'running', df: 2 },
      { term: 'ruby', df: 1 },
      { term: 'rum', df: 1 },
    ],
    matched: 3,
  });
});

test('a missing collection, or one without a schema for the field, contributes nothing (200, empty)', async (t) => {
  const corpus = [...CORPUS, ...bodies('plain', { p: 'running' }), ...docs('other', { o: { title: str('running') } })];
  const store = await storeOf(corpus, { c: ['body'], other: ['title'] });
  const none = { suggestions: [], matched: 0 };
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'ru', scope: ['ghost'] }), none);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'ru', scope: ['plain', 'other'] }), none);
  t.deepEqual(await store.suggest({ field: 'title', prefix: 'ru', scope: ['c'] }), none);
  t.deepEqual(await store.suggest({ field: 'nothing', prefix: 'ru' }), none);
  t.deepEqual(
    await store.suggest({ field: 'body', prefix: 'ru', scope: ['ghost', 'c', 'plain'] }),
    await store.suggest({ field: 'body', prefix: 'ru', scope: ['c'] }),
  );
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'ru' }), await store.suggest({ field: 'body', prefix: 'ru', scope: ['c'] }), 'all collections');
  const empty = await Store.open({ inMemory: true, dimension: 0 });
  t.deepEqual(await empty.suggest({ field: 'body', prefix: 'ru' }), none, 'an empty store');
});

test('suggest reads the schema declared after the data, and a dropped schema contributes nothing', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', { records: CORPUS.map((d) => ({ id: d.id, attrs: d.attrs })) });
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'ru' }), { suggestions: [], matched: 0 });
  await store.setFtsSchema('c', ['body']);
  t.is((await store.suggest({ field: 'body', prefix: 'ru' })).matched, 7);
  await store.setFtsSchema('c', []);
  t.deepEqual(await store.suggest({ field: 'body', prefix: 'ru' }), { suggestions: [], matched: 0 });
});

test("randomized corpora: every suggestion list and matched count is the oracle's", async (t) => {
  let answered = 0;
  let fuzzyAnswered = 0;
  for (const seed of [4, 5]) {
    const rand = prng(seed);
    const corpus = randomDocs(rand, 150, ['a', 'b', 'c']);
    const schemas: Record<string, FtsFieldEntry[]> = { a: ['body'], b: [{ field: 'body', ascii_folding: true }], c: ['title'] };
    const store = await storeOf(corpus, schemas);
    const deleted = new Set(corpus.filter(() => rand() < 0.1).map((d) => `${d.collection}/${d.id}`));
    for (const c of ['a', 'b', 'c']) await store.delete(c, { ids: corpus.filter((d) => d.collection === c && deleted.has(`${c}/${d.id}`)).map((d) => d.id) });
    const live = corpus.filter((d) => !deleted.has(`${d.collection}/${d.id}`));
    const pick = () => VOCAB[Math.floor(rand() * VOCAB.length)];
    const typo = (w: string) => {
      const i = Math.floor(rand() * w.length);
      return `${w.slice(0, i)}q${w.slice(i + 1)}`;
    };
    for (let q = 0; q < 40; q++) {
      const w = pick();
      const final = q % 4 === 3 ? typo(w) : w.slice(0, 1 + Math.floor(rand() * w.length));
      const prefix = (rand() < 0.4 ? `${pick()} ` : '') + final;
      const field = rand() < 0.8 ? 'body' : 'title';
      const filtered = rand() < 0.3;
      const scope = rand() < 0.3 ? ['a', 'b'] : undefined;
      const limit = [undefined, 3, 100][Math.floor(rand() * 3)];
      const body = {
        field,
        prefix,
        ...(scope ? { scope } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(filtered ? { filter: [{ Eq: ['g', str('x')] as [string, { Str: string }] }] } : {}),
      };
      const r = await expectSuggest(t, store, live, schemas, body, filtered ? (d) => (d.attrs?.g as { Str: string } | undefined)?.Str === 'x' : undefined);
      if (r.suggestions.length) answered++;
      if (r.suggestions.length && q % 4 === 3) fuzzyAnswered++;
    }
  }
  t.true(answered > 40 && fuzzyAnswered > 5, `${answered} answered, ${fuzzyAnswered} of them typos`);
});

test('request validation: missing field or prefix, wrong types and unknown keys are 400', async (t) => {
  const store = await storeOf(CORPUS, SCHEMA);
  const bad: [string, string][] = [
    ['no field', '{"prefix":"ru"}'],
    ['no prefix', '{"field":"body"}'],
    ['field a number', '{"field":1,"prefix":"ru"}'],
    ['prefix a number', '{"field":"body","prefix":1}'],
    ['fuzzy a string', '{"field":"body","prefix":"ru","fuzzy":"no"}'],
    ['scope a string', '{"field":"body","prefix":"ru","scope":"c"}'],
    ['unknown key', '{"field":"body","prefix":"ru","bogus":1}'],
    ['malformed', '{"field":'],
  ];
  for (const [label, body] of bad) await rejectsWith(t, store.suggest(Buffer.from(body)), 400, label);
});
