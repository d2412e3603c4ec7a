// What a store extension (Store.ts's StoreExtension: how a feature adds to the library without the
// core Store knowing it) works with: the store's internals, a reranked read's window, per-store state.
import type { RerankedRead } from '../contract/routes';
import type { CallOptions } from './cancellation';
import { StoreError } from './errors';

/** What only extensions get of a store: the writes kept off the public surface, and raw runs. */
export interface StoreInternals {
  /** An upsert that keeps svc.* attributes: a feature's own stamped writes, never a caller's body. */
  upsertStamped(name: string, body: object, o?: CallOptions): Promise<{ upserted: number }>;
  /** A recall's access stamps on the live records among `ids`. */
  reinforce(name: string, body: { ids: string[]; now: number; extend_ttl_ms?: number }, o?: CallOptions): Promise<{ reinforced: number }>;
  /** /search with the query vector as floats beside the rest of the body: the hit array's bytes. */
  searchVectorJson(body: Record<string, unknown>, query: Float32Array, o?: CallOptions): Promise<Buffer>;
  /** Phase one of a reranked read: the core ranks the candidate window and reads their texts. */
  rerankWindow(route: RerankedRead, body: object | Uint8Array, o?: CallOptions): Promise<RerankWindow>;
  /** Resolves once no vector index build or derived-file save is queued or running (a writer's); rejects cancelled when `o` fires while builds run. */
  indexesBuilt(o?: CallOptions): Promise<void>;
  /** What a backup copies of the state served now (the core's BackupPoint): 400 in memory, 409 pinned. */
  backupPoint(o?: CallOptions): Promise<BackupPoint>;
  /** Runs `work` holding the store's backup turn (one at a time over every thread serving the store); 409 while another holds it. */
  inBackupTurn<T>(work: () => Promise<T>): Promise<T>;
}

/** A backup's view of the state served: its files copied meanwhile are of it while `current` stays true and `manifest` the same. */
export interface BackupPoint {
  commit_version: number;
  /** MANIFEST's text ('' before the first checkpoint a reader loaded). */
  manifest: string;
  /** HEADER and the files the manifest names (a writer keeping history: every segment and history file). */
  files: string[];
  /** The log's bytes the state read. */
  log_bytes: number;
  /** Whether MANIFEST on disk still is this one (a reader's may be behind: refresh, then ask again). */
  current: boolean;
}

/**
 * A ranked read's candidate window, ranked by the core, for a model the library calls: its texts,
 * then `finish` with the model's scores, and the core orders, caps, pages and writes the hits.
 */
export interface RerankWindow {
  /** False when the body asked for no rerank: `finish([])` answers the plain read. */
  readonly reranks: boolean;
  /** What the model reads each text against: rerank.query, or the route's own text. */
  readonly query: string;
  /** Each candidate's text, best first; null: none to score (it follows the scored ones). */
  readonly texts: readonly (string | null)[];
  /** The model's scores, one per text in order: the hits' JSON bytes. The window closes. */
  finish(scores: readonly number[], o?: CallOptions): Promise<Buffer>;
  /** Releases the snapshot the window holds, when it will not be finished (the model failed). */
  close(): void;
}

/** Per-store state of one extension, dropped with the store. */
export class ExtensionState<S> {
  private readonly states = new WeakMap<object, S>();

  /** `feature`: the build feature without which no store has the state. */
  constructor(private readonly feature: string) {}

  set(store: object, state: S): void {
    this.states.set(store, state);
  }

  /** The store's state for `method`, or its 404 when it has none (a build without the feature). */
  of(store: object, method: string): S {
    const state = this.states.get(store);
    if (state === undefined) throw new StoreError(404, `${method} is not in this build (feature ${this.feature})`);
    return state;
  }

  find(store: object): S | undefined {
    return this.states.get(store);
  }
}
