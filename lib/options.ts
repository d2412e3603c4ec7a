// How a store is opened and the index it runs with: the open options and the settings the core
// validates. Their own module, importing nothing of lib, so the addon's declarations (native.ts)
// can name them without reaching the rest of the public types.

export type Distance = 'Cosine' | 'Euclidean' | 'DotProduct';

/**
 * The ANN index a store runs with (`/stats` `ann`, `Store.ann`): only the knobs of its kind.
 * `n_lists` 0 means chosen from each segment's rows.
 */
export type AnnConfig =
  | { kind: 'Hnsw'; m: number; ef_construction: number; ef_search: number; overscan: number; seed: number }
  | { kind: 'Ivf'; n_lists: number; n_probe: number; overscan: number; seed: number };

/** The quantized first pass (`/stats` `quantization`, `Store.quantization`); `rescore` is its overscan factor. */
export interface QuantizationConfig {
  kind: 'Int8' | 'Binary';
  rescore: number;
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
  /**
   * A Reader (or read-only handle) not refreshed within this many milliseconds is stale: `stale()`
   * turns true and the server's /ready answers 503 until a refresh succeeds (default: no bound).
   */
  maxStalenessMs?: number;
  /**
   * A read-only handle's refresh first runs this to bring the store directory up to date (a cluster
   * reader pulls what its writer published to the object store); then refresh adopts it.
   */
  pull?: () => Promise<void>;
  /**
   * A handle that holds only these collections' rows (a cluster node's bounded cache): the others
   * are listed, and a read (or a writer's upsert or delete) touching one fails with 503 unless
   * `fetchCollections` is given. A writer's open fails so too (`notResident` names them) when its
   * log changed rows of collections not named. Default: every collection. A reader's
   * `setResident()` changes it, a writer's `hold()` and `release()`. Not with `historyVersions`.
   */
  resident?: string[];
  /**
   * With `resident`: brings the files of the collections a call needs but the handle does not hold
   * into the store directory and makes them resident (a reader's `setResident()`, a writer's
   * `hold()`); the call then runs again.
   */
  fetchCollections?: (names: string[]) => Promise<void>;
  /** A writer keeps its last N commit versions readable for `atVersion` and `pin()` (default 0: no history). */
  historyVersions?: number;
  /** Serve this past commit version, read-only, without the writer lock (a pinned instance). */
  atVersion?: number;
  /**
   * The spec's `max_vector_bytes`: an upsert that would take the store's vector bytes
   * (`footprint.vector_bytes`, which counts superseded rows until compaction, plus named-vector
   * columns) past it fails with 507 and writes nothing. Default: no limit, since sealed vectors are
   * file-backed (mmap'd) and a store larger than memory still serves; set it to bound memory,
   * above all for `inMemory` or `mmap: false` stores, where every vector byte is resident.
   */
  maxVectorBytes?: number;
  /**
   * With quantization and `mmap`: the sealed segments' f32 rows stay mapped, rescored in place,
   * while they total at most this many bytes (default 256 MiB); past it a rescore reads each row
   * it needs from its file (about a microsecond a row from the page cache) and the maps are let go
   * of, so the resident set holds the codes, graphs and ids without the rows
   * (`footprint.vector_bytes_read_from_files`). README "Vector memory".
   */
  mappedVectorBytes?: number;
  /**
   * ANN index and quantization settings (README "Index settings" has the ranges). Unset means what
   * the store recorded, else the default; `'none'` turns a recorded kind off. A writer records what
   * it resolved. Integers may also be given as their decimal text, which is how the CLI hands its
   * flags over: the core alone parses and judges them.
   */
  ann?: 'none' | 'hnsw' | 'ivf';
  /** HNSW: links per node (default 16). */
  m?: number | string;
  /** HNSW: candidates kept while linking; at least `m` (default 200). */
  efConstruction?: number | string;
  /** HNSW: candidates kept while searching (default 64). */
  efSearch?: number | string;
  /** IVF: number of lists; 0 chooses from each segment's rows (default 0). */
  nLists?: number | string;
  /** IVF: lists probed per query (default 8). */
  nProbe?: number | string;
  /** HNSW and IVF: the walk keeps overscan x (offset + top_k) candidates (default 4). */
  overscan?: number | string;
  /** HNSW and IVF: seed of the index builder's randomness (default 0). */
  seed?: number | string;
  quantization?: 'none' | 'int8' | 'binary';
  /** The quantized pass keeps rescore x (offset + top_k) candidates for exact rescoring (default 4 for int8, 16 for binary). */
  rescore?: number | string;
  /** The embedder of the memory routes, as `--embed-provider` takes it (README "Providers"). */
  embedProvider?: string;
  /** The summarizer of remember's `summarize` mode, as `--summarize-provider` takes it. */
  summarizeProvider?: string;
  /** The cross-encoder of `rerank`, as `--rerank-provider` takes it. */
  rerankProvider?: string;
  /** Where `createBackup` (POST /backups) writes: a directory, or s3://BUCKET/PREFIX (README "Backups"). */
  backupTo?: string;
  /** The object store's URL (path-style, like cluster mode's) of a `backupTo` s3://BUCKET/PREFIX; credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. */
  backupEndpoint?: string;
  /** Epoch milliseconds for the memory routes' stamps and expiry checks (default Date.now; tests set it). */
  clock?: () => number;
}

/** One ANN or quantization setting of `OpenOptions`, as the core validates it (`Store.indexSettings()`). */
export interface IndexSettingInfo {
  /** The spec's name (`ef_search`), as in /stats and the store header. */
  name: string;
  /** The open option's name (`efSearch`). */
  option: string;
  /** `none|hnsw|ivf` for a kind; null for an integer, which runs from `min` to `max`. */
  choices: string | null;
  min: number;
  max: number;
  /** The kind it applies to (`ann hnsw`); empty for the kinds themselves. */
  needs: string;
  default: string;
}
