// An embedder over an HTTP API: batching and the checks every answer gets, whatever its API.
import { inBatches } from './batches';
import type { HttpClient } from './transport';
import type { Embedder } from './types';

/** One embedding API: its request, and where the vectors are in its answer. */
export interface EmbedApi {
  path: string;
  body(texts: string[]): unknown;
  /** The vectors, in input order, or undefined when the answer is not `shape`. */
  vectors(answer: unknown, count: number): unknown[] | undefined;
  /** The expected answer, as error messages name it. */
  shape: string;
}

export class HttpEmbedder implements Embedder {
  readonly identity: string;

  constructor(
    private readonly client: HttpClient,
    private readonly api: EmbedApi,
    private readonly batchSize: number,
    private readonly dimension?: number,
  ) {
    this.identity = client.identity;
  }

  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return inBatches(texts, this.batchSize, signal, async (batch, s) => {
      const answer = await this.client.post(this.api.path, this.api.body(batch), s);
      const rows = this.api.vectors(answer, batch.length);
      if (rows?.length !== batch.length) throw this.client.malformed(`${this.api.shape} with ${batch.length} vectors`, answer);
      const vectors = rows.map((row) => this.vector(row, answer));
      const length = vectors[0]?.length;
      const odd = vectors.find((v) => v.length !== length);
      if (odd) throw this.client.error(`answered vectors of different lengths (${length} and ${odd.length})`);
      return vectors;
    });
  }

  private vector(row: unknown, answer: unknown): Float32Array {
    // null would silently become 0 in a Float32Array; a number too large for f32 becomes Infinity.
    if (!Array.isArray(row) || row.length === 0 || !row.every((x) => typeof x === 'number'))
      throw this.client.malformed(`${this.api.shape} of non-empty number arrays`, answer);
    const vector = Float32Array.from(row as number[]);
    if (this.dimension !== undefined && vector.length !== this.dimension)
      throw this.client.error(`returns ${vector.length}-dimensional vectors but the store's dimension is ${this.dimension}`);
    if (!vector.every(Number.isFinite)) throw this.client.error('answered a vector holding a number that is not finite as a 32-bit float');
    return vector;
  }
}
