// Runs a fixed set of text searches over a seeded Zipf-like corpus and prints their rankings as
// JSON; pruning.test.ts runs it with and without TESSERA_TEXT_EXHAUSTIVE=1 and compares.
import { Store } from '../../lib/index';
import { prng } from '../core/helpers';

async function main(): Promise<void> {
  const rnd = prng(42);
  const vocab = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}x`);
  const word = () => vocab[Math.floor(rnd() ** 3 * vocab.length)];
  const phrase = (n: number) => Array.from({ length: n }, word).join(' ');
  const store = await Store.open({ inMemory: true, dimension: 0 });
  await store.createCollection('a');
  await store.createCollection('b');
  for (const c of ['a', 'b']) await store.setFtsSchema(c, ['t', { field: 'u', k1: 0.9, b: 0.4 }]);
  for (let batch = 0; batch < 12; batch++) {
    const c = batch % 3 === 0 ? 'b' : 'a';
    const records = Array.from({ length: 400 }, (_, i) => ({
      id: `d${(batch * 400 + i) % 3000}`, // some ids repeat: overwrites leave deleted rows behind
      attrs: { t: { Str: phrase(2 + Math.floor(rnd() * 25)) }, u: { Str: phrase(1 + Math.floor(rnd() * 4)) } },
    }));
    await store.upsert(c, { records });
    if (batch % 4 === 1) await store.flush();
  }
  await store.delete('a', { ids: Array.from({ length: 200 }, (_, i) => `d${i * 7}`) });
  const rankings: string[] = [];
  for (let q = 0; q < 400; q++) {
    const words = phrase(1 + Math.floor(rnd() * 7));
    const top_k = [1, 3, 10, 40][q % 4];
    const body =
      q % 3 === 0
        ? {
            clauses: [
              { field: 't', query: words },
              { field: 'u', query: words.split(' ')[0] },
            ],
            top_k,
          }
        : { field: 't', query: words, top_k, offset: q % 5, ...(q % 7 === 0 ? { min_score: 3 } : {}) };
    const hits = await store.textSearch(body);
    rankings.push(hits.map((h) => `${h.collection}/${h.id}:${h.score}`).join(','));
  }
  await store.close();
  process.stdout.write(JSON.stringify(rankings));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
