// hash:DIM, an offline embedder: lexical, not semantic. Each word and each character trigram of a
// word is hashed to a bucket and a sign (feature hashing), and the sum is L2-normalized. The same text
// gives the same vector on every machine, and texts sharing words or word parts get a high cosine.
import type { Embedder } from './types';
import { words } from './words';

const WORD_WEIGHT = 1;
/** Trigrams let "embedding" and "embeddings" meet; weighted below whole words. */
const TRIGRAM_WEIGHT = 0.5;
/** A text without words (or whose features cancel out) still needs a unit vector: a Cosine store refuses zero vectors. */
const ZERO_FEATURE = '';

export class HashEmbedder implements Embedder {
  readonly identity: string;

  constructor(private readonly dimension: number) {
    this.identity = `hash:${dimension}`;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    return texts.map((text) => this.vector(text));
  }

  private vector(text: string): Float32Array {
    const sum = new Float64Array(this.dimension);
    const add = (feature: string, weight: number) => {
      const h = hash(feature);
      // The low bit picks the sign, the others the bucket: collisions then cancel out on average.
      sum[(h >>> 1) % this.dimension] += h & 1 ? weight : -weight;
    };
    for (const word of words(text)) {
      add(`w ${word}`, WORD_WEIGHT);
      const chars = Array.from(`^${word}$`);
      for (let i = 0; i + 3 <= chars.length; i++) add(`t ${chars.slice(i, i + 3).join('')}`, TRIGRAM_WEIGHT);
    }
    if (length(sum) === 0) add(ZERO_FEATURE, WORD_WEIGHT);
    const norm = length(sum);
    return Float32Array.from(sum, (x) => x / norm);
  }
}

function length(v: Float64Array): number {
  let squares = 0;
  for (const x of v) squares += x * x;
  return Math.sqrt(squares);
}

/** 32-bit FNV-1a over UTF-16 code units, then murmur3's finalizer so every bit depends on every input bit. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
