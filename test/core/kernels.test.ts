// Distance kernels: every SIMD family this CPU runs agrees with a float64 reference and with the
// scalar family; TESSERA_KERNELS forces a lower family, which stats reports and search uses.
import test from 'ava';
import type { Distance, Hit } from '../../lib/index';
import { parseExact } from '../../lib/index';
import { native } from '../../lib/native';
import { Child, type OracleRecord, assertMatchesOracle, oracleSearch, prng, randomVector } from './helpers';

const DIMS = [1, 3, 7, 8, 15, 16, 17, 31, 33, 100, 1023];
const families = native.supportedKernels();

test('supportedKernels lists the families this CPU runs, best first, scalar last', (t) => {
  t.true(families.length >= 1);
  t.is(families[families.length - 1], 'scalar');
  for (const f of families) t.true(['avx512-icl', 'avx512', 'avx2', 'neon-dotprod', 'neon', 'scalar'].includes(f), f);
  t.is(new Set(families).size, families.length);
  if (process.arch === 'arm64') t.true(families.includes('neon'));
  // Without TESSERA_KERNELS the best family is active.
  if (!process.env.TESSERA_KERNELS) t.is(native.activeKernels(), families[0]);
});

test('runKernel refuses a family this CPU does not run', (t) => {
  const a = new Float32Array([1, 2]);
  t.throws(() => native.runKernel('no-such-family', 'dot', a, a));
  t.throws(() => native.runKernel('scalar', 'dot', a, new Float32Array(3)));
});

// |computed - exact| bounded relative to sum |a_i b_i| (the condition of the sum), so a dot product
// that cancels to near zero is still checked meaningfully.
function reference(op: 'dot' | 'l2sq', a: Float32Array, b: Float32Array): { value: number; scale: number } {
  let value = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    const term = op === 'dot' ? a[i] * b[i] : (a[i] - b[i]) ** 2;
    value += term;
    scale += Math.abs(term);
  }
  return { value, scale };
}

for (const family of families) {
  for (const op of ['dot', 'l2sq'] as const) {
    test(`${family} ${op} matches the float64 reference and the scalar family at dimensions ${DIMS.join(', ')}`, (t) => {
      const rand = prng(op === 'dot' ? 11 : 12);
      for (const dim of DIMS) {
        for (let trial = 0; trial < 20; trial++) {
          const spread = trial % 2 === 0 ? 1 : 100;
          const a = Float32Array.from({ length: dim }, () => (rand() * 2 - 1) * spread);
          const b = Float32Array.from({ length: dim }, () => (rand() * 2 - 1) * spread);
          const got = native.runKernel(family, op, a, b);
          const scalar = native.runKernel('scalar', op, a, b);
          const ref = reference(op, a, b);
          const tol = 1e-4 * ref.scale + 1e-30;
          t.true(Math.abs(got - ref.value) <= tol, `${family} ${op} dim ${dim}: ${got} vs reference ${ref.value}`);
          t.true(Math.abs(got - scalar) <= tol, `${family} ${op} dim ${dim}: ${got} vs scalar ${scalar}`);
        }
        // Identical inputs: l2sq is exactly zero, dot is the squared norm.
        const v = Float32Array.from({ length: dim }, () => rand() * 2 - 1);
        if (op === 'l2sq') t.is(native.runKernel(family, op, v, v), 0, `${family} l2sq(v, v) at dim ${dim}`);
      }
    });
  }
}

for (const family of families) {
  for (const op of ['dot', 'l2sq'] as const) {
    test(`${family} ${op}_rows scores every row exactly like ${op} one row at a time`, (t) => {
      const rand = prng(op === 'dot' ? 13 : 14);
      for (const dim of DIMS) {
        for (const count of [1, 3, 4, 5, 9]) {
          const q = Float32Array.from({ length: dim }, () => rand() * 2 - 1);
          const rows = Float32Array.from({ length: dim * count }, () => rand() * 2 - 1);
          const scores = native.runKernel(family, `${op}_rows`, q, rows);
          t.is(scores.length, count);
          for (let r = 0; r < count; r++) {
            const one = native.runKernel(family, op, q, rows.subarray(r * dim, (r + 1) * dim));
            const tol = 1e-4 * reference(op, q, rows.subarray(r * dim, (r + 1) * dim)).scale + 1e-30;
            t.true(Math.abs(scores[r] - one) <= tol, `${family} ${op}_rows dim ${dim} row ${r} of ${count}: ${scores[r]} vs ${one}`);
          }
        }
      }
    });
  }
}

for (const family of families) {
  for (const op of ['dot', 'l2sq'] as const) {
    test(`${family} ${op}_rows_at scores rows anywhere, by fours, to the bit as ${op}_rows scores them in one block`, (t) => {
      const rand = prng(op === 'dot' ? 15 : 16);
      for (const dim of DIMS) {
        for (const count of [4, 8, 12]) {
          const q = Float32Array.from({ length: dim }, () => rand() * 2 - 1);
          const rows = Float32Array.from({ length: dim * count }, () => rand() * 2 - 1);
          const block = native.runKernel(family, `${op}_rows`, q, rows);
          // rows_at is handed the rows last first, so every four it scores together were apart in the block.
          const scattered = native.runKernel(family, `${op}_rows_at`, q, rows);
          t.deepEqual(Array.from(scattered).reverse(), Array.from(block), `${family} ${op} dim ${dim} count ${count}`);
        }
      }
    });
  }
}

test('kernels ignore memory past the end of the vectors (tail handling on subarrays)', (t) => {
  const rand = prng(5);
  const big = Float32Array.from({ length: 64 }, () => rand());
  for (const family of families) {
    for (const dim of [1, 3, 7, 9, 17]) {
      const a = big.subarray(0, dim);
      const b = big.subarray(32, 32 + dim);
      const poisonedA = Float32Array.from(big);
      poisonedA.fill(1e30, dim, 32); // junk right after a's end
      const a2 = poisonedA.subarray(0, dim);
      for (const op of ['dot', 'l2sq'] as const) t.is(native.runKernel(family, op, a2, b), native.runKernel(family, op, a, b), `${family} ${op} ${dim}`);
    }
  }
});

// An exact search run in a child process whose kernels are forced with TESSERA_KERNELS.
const DIM = 33;
const N = 300;
function dataset(): { records: OracleRecord[]; queries: number[][] } {
  const rand = prng(77);
  const records: OracleRecord[] = [];
  for (let i = 0; i < N; i++) records.push({ collection: ['k1', 'k2', 'k3'][i % 3], id: `id${i}`, vector: randomVector(rand, DIM) });
  const queries = Array.from({ length: 4 }, () => randomVector(rand, DIM));
  return { records, queries };
}

for (const family of families) {
  test(`with TESSERA_KERNELS=${family} the child reports ${family}, stats().kernels says so, and exact search equals the oracle`, async (t) => {
    const child = new Child({ TESSERA_KERNELS: family });
    try {
      const k = await child.call('kernels');
      t.is(k.active, family);
      t.deepEqual(k.supported, families);
      const { records, queries } = dataset();
      for (const metric of ['Cosine', 'Euclidean', 'DotProduct'] as Distance[]) {
        await child.call('open', { options: { inMemory: true, dimension: DIM, distance: metric } });
        t.is((await child.call('stats')).kernels, family);
        for (const c of ['k1', 'k2', 'k3']) {
          const body = JSON.stringify({ records: records.filter((r) => r.collection === c).map((r) => ({ id: r.id, vector: r.vector })) });
          await child.call('upsert', { collection: c, body });
        }
        for (const query of queries) {
          const hits = parseExact<Hit[]>(await child.call('searchJson', { body: JSON.stringify({ query, top_k: 25 }) }));
          assertMatchesOracle(t, hits, oracleSearch(records, metric, { query, top_k: 25 }), 1e-4, `${family} ${metric}`);
        }
      }
    } finally {
      await child.kill();
    }
  });
}

test('an unknown TESSERA_KERNELS value falls back to the best family', async (t) => {
  const child = new Child({ TESSERA_KERNELS: 'no-such-family' });
  try {
    t.is((await child.call('kernels')).active, families[0]);
  } finally {
    await child.kill();
  }
});
