// Public types of the embedded library. Wire shapes follow ../shared/spec/service-spec.md.
import type { AnnConfig, Distance, QuantizationConfig } from './options';

export type { AnnConfig, Distance, IndexSettingInfo, OpenOptions, QuantizationConfig } from './options';
export type Role = 'Writer' | 'Reader' | 'ClusterWriter' | 'ClusterReader' | 'InMemory';

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
  /** Only when `explain` or `highlight` was requested. */
  annotations?: Annotations;
  /**
   * Only with `expand`, and only on a hit that is a chunk (parent, index and text attributes of
   * the right types): its text and `radius` neighbouring chunks of its document, stitched.
   */
  context?: string;
}

export interface Annotations {
  vector?: { rank: number; score: number };
  text?: { rank: number; score: number };
  clauses?: { field: string; score: number; expansion?: { matched: number; scored: number } }[];
  highlights?: { field: string; fragments: { text: string; spans: [number, number][] }[] }[];
}

/** A predicate: a single-key object naming the variant, its arguments as an array (key first). */
export type Predicate =
  | { Eq: [string, Value] }
  | { Ne: [string, Value] }
  | { In: [string, Value[]] }
  | { NotIn: [string, Value[]] }
  | { Lt: [string, Value] }
  | { Le: [string, Value] }
  | { Gt: [string, Value] }
  | { Ge: [string, Value] }
  | { Glob: [string, string] }
  | { IGlob: [string, string] }
  | { Regex: [string, string] }
  | { Contains: [string, Value] }
  | { NotContains: [string, Value] }
  | { ContainsAny: [string, Value[]] }
  | { Fuzzy: [string, string, number] }
  | { ContainsAllTokens: [string, string] }
  | { ContainsAnyToken: [string, string] }
  | { ContainsTokenSequence: [string, string] }
  | { All: Predicate[] }
  | { Any: Predicate[] }
  | { Not: Predicate };

export type Filter = Predicate[];

/** A filter-index declaration entry: a field name, or the field with either structure turned off. */
export type FilterIndexEntry = string | { field: string; tokens?: boolean; trigrams?: boolean };

/** At most `max` hits per distinct stored value of `field`. */
export interface LimitPer {
  field: string;
  max: number;
  /** Records missing the field: one shared group (`shared`, the default, the spec's rule) or a group each (`own`). */
  missing?: 'shared' | 'own';
}

export interface DecayRank {
  field: string;
  origin: number | bigint;
  scale?: number;
  decay?: number;
  lambda?: number;
  missing?: number;
  count_field?: string;
  count_scale?: number;
  count_lambda?: number;
}

/**
 * `expand`: each hit's chunk widened by `radius` chunks on either side, read from the stored
 * records (projection does not hide them) and stitched into `Hit.context`. Payload only: hits,
 * scores and order are the same with and without it.
 */
export interface ExpandOptions {
  /** Chunks on either side, 0 to 100; 0 (the default) reports the hit's own text. */
  radius?: number;
  /** Str attribute grouping a document's chunks; default `svc.parent_id`. */
  parent_field?: string;
  /** Int attribute ordering a document's chunks; default `svc.chunk_index`. */
  index_field?: string;
  /** Str attribute holding a chunk's text; default `svc.text`. */
  text_field?: string;
}

/**
 * `rerank` (feature rerank): the (offset + top_k) x overscan best candidates re-scored by the
 * rerank provider; candidates without usable text follow the re-scored ones in their order.
 */
export interface RerankOptions {
  /** Text read against each candidate; required on /search, /hybrid-search and /text-search with clauses. */
  query?: string;
  /** Candidates retrieved: top_k x overscan (default 10). */
  overscan?: number;
  /** Attribute holding each candidate's text (default svc.text). */
  text_attr?: string;
}

/** Options shared by /search, /search/similar and each /search/batch leg. */
export interface RankedOptions {
  scope?: string[];
  top_k?: number;
  offset?: number;
  min_score?: number;
  exact?: boolean;
  filter?: Filter;
  include_attributes?: string[];
  exclude_attributes?: string[];
  limit_per?: LimitPer;
  diversity?: number;
  rank_by?: { Decay: DecayRank };
  /** Adds `context` to each hit of the page; `null` is the same as leaving it out. */
  expand?: ExpandOptions | null;
}

export interface SearchRequest extends RankedOptions {
  query: number[] | Float32Array;
  /** Re-scores the candidate window with the rerank provider (not in a batch leg, not on /search/similar). */
  rerank?: RerankOptions | null;
  names?: string[];
  name_weights?: Record<string, number>;
  pool?: 'Max' | 'Sum';
  /** Answer `{hits, plan}` (not inside a batch). */
  plan?: boolean;
}

export interface SimilarRequest extends RankedOptions {
  collection: string;
  id: string;
  plan?: boolean;
}

/** How a vector query ran (the spec's "Query plans"); times in microseconds. */
export interface QueryPlan {
  path: 'ann' | 'ann_prefilter_fallback' | 'segmented' | 'quantized' | 'exact';
  /** Rows fed to exact scans; absent on `ann` and `segmented`. */
  rows_scanned?: number;
  /** Rows a quantized pass or walk read in f32 to rescore (at most window x rescore); present when one ran. */
  rows_rescored?: number;
  /** Rows index walks surfaced and what became of them; absent on `exact` and `quantized`. */
  candidates?: {
    surfaced: number;
    survived: number;
    dropped_out_of_scope: number;
    dropped_stale: number;
    dropped_filtered: number;
    dropped_min_score: number;
  };
  narrowing: { state: 'inactive' | 'declined' | 'narrowed'; candidates?: number };
  timings: Partial<Record<'narrow_us' | 'gather_us' | 'walk_us' | 'resolve_us' | 'first_pass_us' | 'rescore_us' | 'score_us', number>> & { total_us: number };
}

export interface PlannedHits {
  hits: Hit[];
  plan: QueryPlan;
}

/** A /search page as parallel arrays, best first (`searchSync(request, { arrays: true })`): no attributes, no JSON. */
export interface HitArrays {
  collections: string[];
  ids: string[];
  scores: Float32Array;
}

export interface BatchRequest {
  /** Each leg's own options; fused hits are written as the first leg asks (projection, expand). */
  queries: SearchRequest[];
  /** Reciprocal rank fusion: score = sum over legs of weight / (rrf_k + rank), rank 1-based. */
  fuse?: { rrf_k?: number; weights?: number[]; top_k?: number };
}

export type BatchResponse = { results: Hit[][] } | { fused: Hit[] };

/** A full-text schema entry: an attribute name, or the attribute with its BM25 and analyzer options. */
export type FtsFieldEntry = string | { field: string; k1?: number; b?: number; language?: 'english'; ascii_folding?: boolean; max_token_len?: number };

export interface TextClause {
  field: string;
  query: string;
  prefix?: boolean;
}

/** The text leg shared by /text-search and /hybrid-search. */
interface TextLegOptions {
  field?: string;
  prefix?: boolean;
  clauses?: TextClause[];
  combine?: 'Sum' | 'Max';
  explain?: boolean;
  highlight?: { max_fragments?: number; fragment_chars?: number };
}

export interface TextSearchRequest extends TextLegOptions, Omit<RankedOptions, 'exact'> {
  /** Re-scores the candidate window; `query` may be left out with the single field + query spelling. */
  rerank?: RerankOptions | null;
  query?: string;
}

export interface HybridSearchRequest extends TextLegOptions {
  vector: number[] | Float32Array;
  text?: string;
  scope?: string[];
  top_k?: number;
  offset?: number;
  filter?: Filter;
  include_attributes?: string[];
  exclude_attributes?: string[];
  limit_per?: LimitPer;
  diversity?: number;
  /** Applied to the fused ranking's page. */
  expand?: ExpandOptions | null;
  /** Re-scores the fused ranking's window; `query` is required. */
  rerank?: RerankOptions | null;
  rrf_k?: number;
  candidates?: number;
  vector_weight?: number;
  text_weight?: number;
  plan?: boolean;
}

export interface SuggestRequest {
  field: string;
  prefix: string;
  scope?: string[];
  filter?: Filter;
  limit?: number;
  fuzzy?: boolean;
}

export interface SuggestResult {
  suggestions: { term: string; df: number }[];
  matched: number;
}

export interface ListRequest {
  scope?: string[];
  filter?: Filter;
  offset?: number;
  limit?: number;
  include_attributes?: string[];
  exclude_attributes?: string[];
  order_by?: { field: string; descending?: boolean };
}

export interface AggregateRequest {
  scope?: string[];
  filter?: Filter;
  sum?: string[];
  group_by?: string;
}

export interface AggregateResult {
  count: number;
  sums: Record<string, Value>;
  groups?: { value: Value | null; count: number; sums: Record<string, Value> }[];
  groups_truncated?: boolean;
}

export interface Footprint {
  rows: number;
  dead_rows: number;
  dimension: number;
  vector_bytes: number;
  doc_count: number;
  /** Segments over all collections: sealed ones and those still in memory. */
  segments: number;
  /** Bytes of the sealed segments' quantized codes, of their HNSW graphs or IVF lists, and of their id indexes. */
  code_bytes: number;
  ann_index_bytes: number;
  id_index_bytes: number;
  /** The table of live ids that upserts and deletes are applied through (a Reader's too): 0 until the first of them since open maps it. */
  live_id_table_bytes: number;
  /** Of vector_bytes, the sealed rows a rescore reads from their files (pread) rather than a map: past `mappedVectorBytes`, outside the resident set. */
  vector_bytes_read_from_files: number;
}

export interface Stats {
  dimension: number;
  distance: Distance;
  /** null: exact brute-force search. */
  ann: AnnConfig | null;
  quantization: QuantizationConfig | null;
  query_threads: number;
  mmap: boolean;
  collections: string[];
  footprint: Footprint;
  /** Bytes of full-text postings (term dictionaries, postings, positions, lengths), in memory or mapped from their files. */
  text_index_bytes: number;
  /** SIMD kernel family in use: avx512-icl, avx512, avx2, neon-dotprod, neon or scalar. */
  kernels: string;
  /** Build features this package was built with (`memory`, `rerank`; `mcp` and `code` are not built yet). */
  features: string[];
}

/** GET /cluster: role and currency. */
export interface ClusterStatus {
  role: Role;
  /** Cluster mode; always false in a single-process store. */
  cluster: boolean;
  holds_writer_handle: boolean;
  fenced: boolean;
  lease_owner: string | null;
  /** Manifest commit counter being served. */
  commit_version: number;
  /** 0 for a writer; for a reader, seconds since it opened (it never refreshes). */
  staleness_secs: number;
  max_staleness_secs: number | null;
}

/** A GET /namespaces element (a --namespaced root): the last three are null while the namespace is still opening. */
export interface NamespaceEntry {
  name: string;
  bytes: number;
  role: Role | null;
  fenced: boolean | null;
  staleness_secs: number | null;
}

/** Store.replication(): what a copy of the store needs as of now (cluster mode ships it). */
export interface ReplicationPoint {
  /** Manifests this process wrote; the log's bytes below `log_bytes` stay as they are until it moves. */
  generation: number;
  /** MANIFEST's text. */
  manifest: string;
  /** HEADER and the segment files the manifest names, as they exist now; with history on, every segment and history file. */
  files: string[];
  /**
   * A writer holding some collections (`resident`): every name the segments of those it does not
   * hold may have, but those in the directory. A copy keeps those it shipped before.
   */
  cold: string[];
  /** wal.log's length. */
  log_bytes: number;
}

/** POST /backups: what a new backup holds and what it cost. */
export interface BackupCreated {
  name: string;
  commit_version: number;
  files: number;
  /** Bytes of every file it names. */
  bytes: number;
  /** Bytes it copied (the rest was in the target already). */
  new_bytes: number;
  seconds: number;
}

/** A GET /backups element. */
export interface BackupEntry {
  name: string;
  commit_version: number;
  created_at: string;
  files: number;
  bytes: number;
}

/** DELETE /backups/{name}: what went with it. */
export interface BackupDeleted {
  deleted: string;
  /** Files no other backup names, removed. */
  files: number;
  bytes: number;
}

/** GET /versions: the commit-version landscape. `readable` stays empty until history is recorded. */
export interface Versions {
  commit_version: number;
  oldest_readable: number | null;
  pinned: number | null;
  readable: number[];
}

// The feature routes' bodies (memory, code): the spec's "Memory routes" and "POST /code-search".

export type ChunkStrategy = 'Recursive' | 'Markdown' | 'Sentence';

export interface ChunkOptions {
  strategy?: ChunkStrategy;
  max_chars?: number;
  overlap_chars?: number;
}

export interface RememberRequest {
  id: string;
  text: string;
  /** `raw` embeds the text; `summarize` embeds a generated summary, stamped in svc.summary. */
  mode?: 'raw' | 'summarize';
  /** Caller metadata; reserved `svc.*` keys are dropped. */
  attrs?: Record<string, Value>;
  /** Seconds from the write until the entry expires (svc.expires_at); absent: never. */
  ttl_seconds?: number;
  /** Cosine floor above which the nearest existing entry is updated in place instead. */
  dedupe_threshold?: number;
  /** Split the text into chunk records `{id}#{index}` (README "Chunking"); absent: one record. */
  chunking?: ChunkOptions;
}

export interface RememberResponse {
  ok: true;
  upserted: number;
  /** The id written: the nearest entry's when dedupe matched. */
  id: string;
  deduped: boolean;
}

export interface RecallRequest {
  query: string;
  /** 0 means the default, 10. */
  top_k?: number;
  min_score?: number;
  filter?: Filter;
  diversity?: number;
  rank_by?: unknown;
  /** Stamp svc.access_count and svc.last_accessed on every returned entry (a write). */
  reinforce?: boolean;
  /** With reinforce: push an existing svc.expires_at forward to now plus this; never creates or shortens one. */
  extend_ttl_seconds?: number;
  /** At most per_parent hits per document (svc.parent_id; 0 reads as 1), each widened by `neighbours` chunks either side into `context`. */
  rollup?: { per_parent?: number; neighbours?: number };
  /** Re-score the candidates with the rerank provider; `query` defaults to the recall query. */
  rerank?: RerankOptions;
}

export interface CodeSearchRequest {
  collection: string;
  /** Natural-language text for vector search, or keywords for BM25. */
  query: string;
  /** Files answered at most (default 10). */
  limit?: number;
  filter?: Filter;
  /** true: vector search; false: BM25; absent: the store decides (README "Code search"). */
  vector?: boolean;
}

export interface CodeSymbolHit {
  symbol: string | null;
  kind: string | null;
  start_line: number;
  end_line: number;
  score: number;
}

export interface CodeSearchResponse {
  files: { path: string; language: string | null; symbols: CodeSymbolHit[] }[];
}
