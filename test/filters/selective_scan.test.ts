// A selective filter's exact scan scores only what the segment's columns leave of each block (the
// kept rows gathered in fours, index/flat_index.cc), and every row it scores gets the very score
// the unfiltered scan gives it: the narrowing changes the work, never a score or an order.
import test from 'ava';
import { Store } from '../../lib/index';
import { prng, randomVector, tempDir } from '../core/helpers';

const DIM = 96;
const ROWS = 2050;

test('a filter passing 1% to half of the rows answers the scores of the unfiltered scan, sealed and in memory', async (t) => {
  const store = await Store.open({ path: tempDir('selective'), dimension: DIM, distance: 'Euclidean' });
  t.teardown(() => store.close());
  const rand = prng(46);
  for (let s = 0; s < ROWS; s += 500) {
    const records = [];
    for (let i = s; i < Math.min(ROWS, s + 500); i++)
      records.push({ id: `r${i}`, vector: randomVector(rand, DIM), attrs: { r: { Int: i % 100 }, u: { Int: Math.floor(rand() * 100) } } });
    await store.upsert('c', { records });
  }
  const query = randomVector(rand, DIM);
  for (const where of ['in memory', 'sealed']) {
    if (where === 'sealed') await store.flush();
    const all = await store.search({ query, top_k: ROWS, exact: true });
    t.is(all.length, ROWS);
    for (const v of [0, 7, 49]) {
      const passing = all.filter((h) => Number(h.id.slice(1)) % 100 === v);
      const hits = await store.search({ query, top_k: 30, exact: true, filter: [{ Eq: ['r', { Int: v }] }] });
      t.deepEqual(
        hits.map((h) => [h.id, h.score]),
        passing.map((h) => [h.id, h.score]),
        `${where}, r = ${v}`,
      );
    }
  }
  // Rows passing at random, a few to half of each block: scored wherever they lie, in fours.
  const all = await store.search({ query, top_k: ROWS, exact: true, include_attributes: ['u'] });
  for (const below of [3, 10, 25, 45]) {
    const passing = all.filter((h) => Number((h.attrs.u as { Int: bigint }).Int) < below);
    const hits = await store.search({ query, top_k: ROWS, exact: true, filter: [{ Lt: ['u', { Int: below }] }] });
    t.deepEqual(
      hits.map((h) => [h.id, h.score]),
      passing.map((h) => [h.id, h.score]),
      `u < ${below}`,
    );
  }
});
