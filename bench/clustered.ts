// Seeded clustered vectors (bench:ann's scale case and bench:scale): CLUSTERS centres ~ N(0, 1) in
// CLUSTERED_DIM dimensions; each cluster spreads along RANK random directions of its own
// (coefficients ~ N(0, SPREAD^2)), plus N(0, NOISE^2) in every dimension, so the data has a low
// intrinsic dimension as real embeddings do (pure 128-d Gaussian noise has none and is not what
// anyone indexes). Centres, rows and queries each come from their own seed, so a child process can
// rebuild just the queries, and a stream yields the same rows however it is chunked.
import { quantize, Rng } from './common';

export const CLUSTERED_DIM = 128;
const CLUSTERS = 1000;
const RANK = 16;
const SPREAD = 0.35;
const NOISE = 0.05;
const SEED = 0x5ca1e;

/** The mixture in words, for a bench's `data` field. */
export const CLUSTERED_MIXTURE = `${CLUSTERS} Gaussian centres, each cluster spread along ${RANK} random directions + N(0, ${NOISE}^2) noise`;

/** The mixture's rows (or its queries) in order, as many at a time as asked. */
export class ClusteredStream {
  private readonly centres = new Float32Array(CLUSTERS * CLUSTERED_DIM);
  private readonly basis = new Float32Array(CLUSTERS * RANK * CLUSTERED_DIM);
  private readonly z = new Float64Array(RANK);
  private readonly rng: Rng;

  constructor(of: 'rows' | 'queries') {
    const rc = new Rng(SEED);
    for (let i = 0; i < this.centres.length; i++) this.centres[i] = rc.normal();
    for (let i = 0; i < this.basis.length; i++) this.basis[i] = rc.normal() / Math.sqrt(CLUSTERED_DIM);
    this.rng = new Rng(of === 'rows' ? SEED + 1 : SEED + 2);
  }

  /** The next `count` points, row-major, rounded to the decimals the JSON bodies carry. */
  next(count: number): Float32Array {
    const dim = CLUSTERED_DIM;
    const { centres, basis, z, rng } = this;
    const out = new Float32Array(count * dim);
    for (let o = 0; o < out.length; o += dim) {
      const c = rng.int(CLUSTERS);
      for (let k = 0; k < RANK; k++) z[k] = (SPREAD * Math.sqrt(dim) * rng.normal()) / Math.sqrt(RANK);
      for (let j = 0; j < dim; j++) {
        let x = centres[c * dim + j] + NOISE * rng.normal();
        for (let k = 0; k < RANK; k++) x += z[k] * basis[(c * RANK + k) * dim + j];
        out[o + j] = x;
      }
    }
    quantize(out);
    return out;
  }
}

/** `rows` vectors in one array and `queries` each in its own (usearch ignores byteOffset). */
export function clustered(rows: number, queries: number): { rows: number; dim: number; vectors: Float32Array; queries: Float32Array[] } {
  const vectors = new ClusteredStream('rows').next(rows);
  const qs = new ClusteredStream('queries');
  return { rows, dim: CLUSTERED_DIM, vectors, queries: Array.from({ length: queries }, () => qs.next(1)) };
}
