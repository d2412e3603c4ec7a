// The offline providers: hash:DIM (a lexical embedder) and extractive[:N] (a sentence picker).
import test from 'ava';
import { createEmbedder, createSummarizer } from '../../lib/features/memory/providers';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const embed = (texts: string[], spec = 'hash:384') => createEmbedder(spec).embed(texts);

test('hash vectors have the SPEC dimension and unit length', async (t) => {
  for (const v of await embed(['The quick brown fox', 'x', '', '!!!'], 'hash:64')) {
    t.is(v.length, 64);
    t.true(Math.abs(cosine(v, v) - 1) < 1e-6);
  }
});

test('hash gives the same text the same vector, from any instance, on any machine', async (t) => {
  const [a] = await embed(['Tessera stores vectors and text']);
  const [b] = await createEmbedder('hash', { dimension: 384 }).embed(['Tessera stores vectors and text']);
  t.deepEqual(a, b);
  // Pinned: vectors stored under identity hash:384 must stay comparable with new ones.
  const nonZero = Array.from(a.entries()).filter(([, x]) => x !== 0);
  t.deepEqual(
    nonZero.slice(0, 4).map(([i, x]) => [i, Number(x.toFixed(4))]),
    PINNED,
  );
});

const PINNED: [number, number][] = [
  [12, 0.14],
  [31, 0.14],
  [50, 0.14],
  [77, -0.2801],
];

test('hash is lexical: texts sharing words are closer than unrelated texts', async (t) => {
  const [query, related, unrelated] = await embed([
    'how do I rotate the api keys of my account',
    'rotating account api keys: a how-to',
    'the weather in lisbon was sunny all week',
  ]);
  t.true(cosine(query, related) > 0.3, `${cosine(query, related)}`);
  t.true(cosine(query, related) > cosine(query, unrelated) + 0.2, `${cosine(query, related)} vs ${cosine(query, unrelated)}`);
});

test('hash trigrams bring word forms together', async (t) => {
  const [one, many, other] = await embed(['embedding', 'embeddings', 'lisbon']);
  t.true(cosine(one, many) > 0.5, `${cosine(one, many)}`);
  t.true(cosine(one, many) > cosine(one, other) + 0.4);
});

test('hash ignores case, punctuation and Unicode composition', async (t) => {
  const [a, b, c, d] = await embed(['Hello, World!', 'hello world', 'Caf\u00e9', 'cafe\u0301']);
  t.deepEqual(a, b);
  t.deepEqual(c, d);
});

test('hash gives a text without words a unit vector too (a Cosine store refuses zero vectors)', async (t) => {
  const [empty, punctuation] = await embed(['', ' ... '], 'hash:16');
  t.deepEqual(empty, punctuation);
  t.true(Math.abs(cosine(empty, empty) - 1) < 1e-6);
});

const TEXT = [
  'Cats are small furry animals that people keep as pets.',
  'The stock market fell sharply on Tuesday.',
  'Many pets are cats, and cats like to sleep.',
  'Quantum chromodynamics describes the strong force.',
  'People love cats as pets because cats are calm.',
].join(' ');

test('extractive keeps the N most central sentences, in their original order', async (t) => {
  t.is(
    await createSummarizer('extractive:3').summarize(TEXT),
    'Cats are small furry animals that people keep as pets. Many pets are cats, and cats like to sleep. People love cats as pets because cats are calm.',
  );
});

test('extractive keeps 3 sentences by default', async (t) => {
  t.is(await createSummarizer('extractive').summarize(TEXT), await createSummarizer('extractive:3').summarize(TEXT));
});

test('extractive:1 keeps the single most central sentence', async (t) => {
  const summary = await createSummarizer('extractive:1').summarize(TEXT);
  t.true(TEXT.includes(summary));
  t.regex(summary, /cats/i);
  t.notRegex(summary, /stock|quantum/i);
});

test('extractive returns a text of at most N sentences whole', async (t) => {
  const summarizer = createSummarizer('extractive:3');
  t.is(await summarizer.summarize(''), '');
  t.is(await summarizer.summarize('  \n '), '');
  t.is(await summarizer.summarize('Just one sentence without a full stop'), 'Just one sentence without a full stop');
  t.is(await summarizer.summarize('First line.\nSecond line!'), 'First line. Second line!');
});

test('extractive splits sentences on line breaks as well as punctuation', async (t) => {
  const summary = await createSummarizer('extractive:1').summarize('cats cats\ndogs\ncats purr');
  t.is(summary, 'cats purr');
});

test('extractive does not end a sentence at a common abbreviation or an initial', async (t) => {
  const sentences = ['Dr. Smith met J. R. Tolkien in Oxford.', 'They spoke about St. Mary in Jan. last year.', 'Tolkien and Smith met again.'];
  const summary = await createSummarizer('extractive:2').summarize(sentences.join(' '));
  const pairs = [0, 1, 2].map((skip) => sentences.filter((_, i) => i !== skip).join(' '));
  t.true(pairs.includes(summary), summary);
});
