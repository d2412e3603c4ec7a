// Loads the compiled core (a prebuild when one matches, else build/Release; or the file
// TESSERA_ADDON_PATH names, as npm run test:asan does for its sanitizer build) and types its surface.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setImmediate as timersSetImmediate } from 'node:timers';
import type { LibraryRoutes, PathArgs, RerankedRead, Routes } from './contract/routes';
import type { AnnConfig, IndexSettingInfo, OpenOptions, QuantizationConfig } from './options';
import type { HitArrays } from './types';

export interface NativeCancelToken {
  cancel(): void;
  /** The short plan (JSON) of the vector query that last ran under this token, or null. */
  planSummary(): string | null;
  clearPlanSummary(): void;
}

/** Phase one of a reranked read (native/include/tessera/rerank_window.h). */
export interface NativeRerankWindow {
  /** False when the body asked for no rerank: finish with no scores answers the plain read. */
  reranks(): boolean;
  query(): string;
  /** Each candidate's text, best first; null: none to score. */
  texts(): (string | null)[];
  /** The model's scores, one per text in order: the hits' JSON bytes. */
  finish(scores: Float64Array, token?: NativeCancelToken): Promise<Buffer>;
  close(): void;
}

export interface NativeRecordsCursor {
  next(maxBytes: number): Promise<Buffer | null>;
  close(): void;
}

export interface NativeInfo {
  role: 'Writer' | 'Reader' | 'InMemory';
  writerHolder: string | null;
  dimension: number;
  distance: 'Cosine' | 'Euclidean' | 'DotProduct';
  queryThreads: number;
  mmap: boolean;
  ann: AnnConfig | null;
  quantization: QuantizationConfig | null;
}

/**
 * A read's JSON bytes: the bytes themselves when the core ran it on the calling thread (a read
 * cheap enough, native/src/query/inline_estimate.h), else a promise of them. A failure is always
 * a rejected promise.
 */
export type ReadAnswer = Buffer | Promise<Buffer>;

/** The core's method of each `call` route in the table: the path's parameters, then the body's bytes when it has one. */
type RouteCalls = {
  [K in LibraryRoutes<'call'>]: (
    ...args: [...PathArgs<Routes[K]['path']>, ...(Routes[K] extends { body: string } ? [body: Uint8Array] : [])]
  ) => Promise<Buffer>;
};
/** The core's method of each raw read (the route table's `read` routes and /search). */
type RouteReads = { [K in LibraryRoutes<'read'> | 'search']: (body: Uint8Array, token?: NativeCancelToken) => ReadAnswer };

/** Every async method resolves JSON bytes produced by the core, or rejects with an Error carrying `status`. */
export interface NativeStore extends RouteCalls, RouteReads {
  /** An upsert keeping svc.* attributes (the memory routes' own writes). */
  upsertStamped(name: string, body: Uint8Array): Promise<Buffer>;
  /** {ids, now, extend_ttl_ms?} -> {reinforced}. */
  reinforce(name: string, body: Uint8Array): Promise<Buffer>;
  /** {ids} -> [{id, attrs}] of the live ones, in the order asked. */
  get(name: string, body: Uint8Array): Promise<Buffer>;
  records(name: string): Promise<NativeRecordsCursor>;
  /** Phase one of a reranked read of a ranked route. */
  rerankWindow(route: RerankedRead, body: Uint8Array, token?: NativeCancelToken): Promise<NativeRerankWindow>;
  /** /search with the query vector beside a body that leaves it out: no text for the floats. */
  searchVector(body: Uint8Array, query: Float32Array, token?: NativeCancelToken): ReadAnswer;
  /** /search run on the calling thread when the core's estimate bounds it (kSyncMaxBytes), else null; a failure throws. */
  searchSync(body: Uint8Array, query: Float32Array | undefined, arrays: true): HitArrays | null;
  searchSync(body: Uint8Array, query?: Float32Array, arrays?: boolean): Buffer | HitArrays | null;
  stats(): Promise<Buffer>;
  sweepExpired(): Promise<Buffer>;
  refresh(): Promise<Buffer>;
  replication(): Promise<Buffer>;
  backupPoint(): Promise<Buffer>;
  beginBackup(): Promise<Buffer>;
  endBackup(): Promise<Buffer>;
  pin(version: number): Promise<Buffer>;
  setResident(names: string[] | null): Promise<Buffer>;
  hold(names: string[]): Promise<Buffer>;
  release(names: string[]): Promise<Buffer>;
  collectionReads(): Promise<Buffer>;
  waitForIndexes(): Promise<Buffer>;
  waitForIndexBuilds(): Promise<Buffer>;
  close(): Promise<Buffer>;
  /** A number another JS thread of the process adopts this store by (NativeStore.adopt), until it closes. */
  share(): number;
  /** Lets the core store go without closing it (an adopted handle done with it); later calls throw. */
  drop(): void;
  info(): NativeInfo;
  poisoned(): string | null;
  commitVersion(): number;
  pinned(): number | null;
  /** The error every write would fail with now (a Reader: 409; pinned or read-only: 403), or null. */
  writeRefusal(): unknown;
  footprint(): NativeFootprint;
  injectWriteFault(kind: string): void;
  injectCompactionFault(where: 'before-switch' | 'at-switch' | 'held'): void;
}

/** Counters the core keeps current as of the last commit; read without a store lock. */
export interface NativeFootprint {
  rows: number;
  dead_rows: number;
  doc_count: number;
  collections: number;
  segments: number;
  index_builds_pending: number;
  /** Compactions installed since open, and the bytes they wrote. */
  compactions: number;
  compactions_running: number;
  compaction_bytes: number;
  /** Rows of merged segments whose HNSW links came from their first input's graph. */
  graph_rows_reused: number;
  /** Rows inserted into HNSW graphs by builds (seals', merges', a reopen's); taken-over rows are not. */
  graph_rows_inserted: number;
  reads_inline: number;
  reads_queued: number;
  /** Full-text postings, filter indexes and id indexes of sealed segments served from their saved files. */
  derived_mapped: number;
  /** Those this process built from rows (files missing, damaged or of another declaration; a new seal or merge); the writer saves them. */
  derived_built: number;
  /** Sealed segments whose attributes are read column by column (their column file opened). */
  column_segments: number;
}

export interface NativeAddon {
  NativeStore: {
    /** Index settings are read by the names `indexSettings()` gives as `option`. */
    open(options: OpenOptions): Promise<NativeStore>;
    /** Refuses what open() would (rejecting like it), without creating or writing anything. */
    check(options: OpenOptions): Promise<void>;
    indexSettings(): IndexSettingInfo[];
    /** The store another JS thread shared (share()): the same core store, settling on this thread. */
    adopt(handle: number): NativeStore;
  };
  CancelToken: new () => NativeCancelToken;
  supportedKernels(): string[];
  activeKernels(): string;
  /**
   * One turn of the JS thread's polling for core reads: gives its CPU to another runnable thread, if
   * one waits for it, then settles the calls finished so far. While `keepPolling`, finishing calls
   * leave their settling to the next such turn; false hands it back to the completion signal.
   */
  /** The reads this JS thread runs itself when they arrive: 'sync' up to searchSync's bound, else (the default) only those cheaper than a handoff. */
  inlineReads(bound: 'sync' | 'handoff'): void;
  pollCompletions(keepPolling: boolean): void;
  /**
   * Core calls handed to the core's threads and not yet settled (a read run inline is never one).
   * When there are any, the caller promises to poll for them (`pollCompletions`) until it passes
   * `keepPolling` false: until then they finish without signalling.
   */
  beginPolling(): number;
  /** The setImmediate that schedules the settling of finished calls. */
  scheduleWith(setImmediate: (callback: () => void) => unknown): void;
  runKernel(family: string, op: 'dot' | 'l2sq', a: Float32Array, b: Float32Array): number;
  runKernel(family: string, op: 'dot_rows' | 'l2sq_rows' | 'dot_rows_at' | 'l2sq_rows_at', q: Float32Array, rows: Float32Array): Float32Array;
  /** CRC32C of a file's first `length` bytes (all of it when absent), read on a libuv worker; a missing file rejects with status 404. */
  checksumFile(path: string, length?: number): Promise<{ crc32c: number; bytes: number }>;
  /** Copies a file's first `length` bytes (all of it when absent) into `to` in one checksumming pass and starts its write-back (`syncFile` waits for it); ENOSPC rejects with status 507. */
  copyFileChecksummed(from: string, to: string, length?: number): Promise<{ crc32c: number; bytes: number }>;
  /** fdatasync of a file, on a libuv worker. */
  syncFile(path: string): Promise<Buffer>;
  /** Where a JSON text first breaks the grammar, as the core's 400 says it ("malformed JSON at byte ..."), or null when it holds. */
  jsonSyntaxError(text: string): string | null;
}

function packageRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'CMakeLists.txt'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`tessera: cannot find the package root from ${__dirname}`);
  }
}

export const root = packageRoot();
const addonPath = process.env.TESSERA_ADDON_PATH;
export const native: NativeAddon = addonPath ? require(path.resolve(addonPath)) : loadAddon();
// Finished calls settle from an immediate: node:timers' own, which fake timers (a test suite's
// jest.useFakeTimers replacing the global one) leave alone, so no call waits for a fake clock.
native.scheduleWith(timersSetImmediate);

/** The addon node-gyp-build picks (build/Release, else the matching prebuild); when none loads, how to build one. */
function loadAddon(): NativeAddon {
  try {
    return require('node-gyp-build')(root);
  } catch (e) {
    throw new Error(
      `tessera: cannot load the native addon for ${process.platform}-${process.arch}: ${(e as Error).message}\n` +
        'Build it from source with `TESSERA_BUILD_FROM_SOURCE=1 npm rebuild tessera` (needs CMake 3.20+, make or Ninja and a C++20 compiler; see the README, "Install").',
      { cause: e },
    );
  }
}
