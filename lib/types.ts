// Public types of the embedded library. Wire shapes follow ../shared/spec/service-spec.md.

export type Distance = 'Cosine' | 'Euclidean' | 'DotProduct';
export type Role = 'Writer' | 'Reader' | 'InMemory';

/** A tagged attribute value. Int and DateTime come back as bigint so 64-bit values stay exact. */
export type Value =
  | { Str: string }
  | { Int: bigint | number }
  | { Bool: boolean }
  | { List: string[] }
  | { Float: number }
  | { DateTime: bigint | number }
  | 'Null';

export interface RecordInput {
  id: string;
  vector?: number[] | Float32Array;
  vectors?: Record<string, number[] | Float32Array>;
  attrs?: Record<string, Value>;
}

export interface StoredRecord {
  id: string;
  vector: number[] | null;
  vectors?: Record<string, number[]>;
  attrs: Record<string, Value>;
}

export interface Hit {
  collection: string;
  id: string;
  score: number;
  attrs: Record<string, Value>;
}

export interface SearchRequest {
  query: number[] | Float32Array;
  scope?: string[];
  top_k?: number;
  offset?: number;
  min_score?: number;
  exact?: boolean;
  include_attributes?: string[];
  exclude_attributes?: string[];
  names?: string[];
  name_weights?: Record<string, number>;
  pool?: 'Max' | 'Sum';
}

export interface Footprint {
  rows: number;
  dead_rows: number;
  dimension: number;
  vector_bytes: number;
  doc_count: number;
}

export interface Stats {
  dimension: number;
  distance: Distance;
  ann: null;
  quantization: null;
  query_threads: number;
  mmap: boolean;
  collections: string[];
  footprint: Footprint;
  /** SIMD kernel family in use: avx512, avx2, neon or scalar. */
  kernels: string;
}

export interface OpenOptions {
  /** Store directory; created with its header on first open. */
  path?: string;
  /** No files at all; role InMemory. */
  inMemory?: boolean;
  /** Dimension of a new store (0 = keyword-only). Must match an existing store's header. */
  dimension?: number;
  /** Metric of a new store (default Cosine). Must match an existing store's header. */
  distance?: Distance;
  /** Core thread pool size (default: number of CPUs). */
  queryThreads?: number;
  /** Map sealed vector files instead of reading them into memory (default true). */
  mmap?: boolean;
  /** Never take the writer lock; every write fails with 403. */
  readOnly?: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
}
