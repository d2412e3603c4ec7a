// A source tree into a collection (issue 13), incrementally: the collection mirrors the tree. Each
// chunk carries its file's hash (of the content and the chunking settings); a file whose chunks
// all carry its current hash is left alone, a changed one is re-chunked and rewritten and its
// chunks the new version no longer has are deleted, and the chunks of files no longer in the tree
// (deleted, now ignored, now binary or too large) are deleted. Writes go in batches: new chunks
// first, deletions last, so a crash in between leaves old chunks whose hash marks them stale for
// the next run.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { StoreError } from '../../store/errors';
import type { CallOptions } from '../../store/cancellation';
import type { Memory, StampedRecord } from '../memory/memory';
import { provided, signalOf } from '../memory/providers';
import { ChunkingError, parseChunkOptions } from '../memory/chunking';
import { type CodeChunk, type CodeChunkOptions, chunkFile } from './chunker';
import type { CodeStore } from './code_store';
import { chunkAttrs, embeddedText, FTS_FIELDS, str } from './records';
import { isBinary, walkTree } from './walk';

export interface IngestCodeOptions {
  /** Files larger than this are skipped (default 1 MiB). */
  max_file_bytes?: number;
  /** Markdown and generic chunk size, and the cut of long code between symbols (default 1000). */
  max_chars?: number;
  /** Overlap of Markdown and generic chunks (default 100). */
  overlap_chars?: number;
  /** Called after each file. */
  onProgress?: (p: { done: number; total: number; chunks: number }) => void;
}

export interface IngestCodeResult {
  /** Files in the tree that were ingested (text, within the size bound). */
  files: number;
  /** Of those, files written (new or changed). */
  written: number;
  unchanged: number;
  /** Files whose chunks were deleted: gone from the tree, or now ignored, binary or too large. */
  removed: number;
  /** Chunk records written. */
  chunks: number;
  skipped: { binary: number; too_large: number };
}

const DEFAULT_MAX_FILE_BYTES = 1 << 20;
/** Records per write: embedding requests overlap within one, and each write is one commit. */
const BATCH = 512;
/** Bump when chunking changes, so the next ingest rewrites every file. */
const CHUNKER_VERSION = 1;
/** Collection metadata recording the full-text schema declared, so it is declared once. */
const FTS_KEY = 'svc.code_fts';
const LIST_PAGE = 10_000;
const utf8 = new TextDecoder('utf-8');

interface Stored {
  ids: string[];
  hashes: Set<string>;
}

export async function ingestTree(
  store: CodeStore,
  memory: Memory,
  collection: string,
  dir: string,
  options: IngestCodeOptions,
  o?: CallOptions,
): Promise<IngestCodeResult> {
  const refusal = store.writeRefusal();
  if (refusal) throw refusal;
  const embedder = store.dimension > 0 ? memory.configuredEmbedder : null;
  if (embedder) await memory.checkEmbedder(collection, embedder, o);
  let chunking: CodeChunkOptions;
  try {
    const { max_chars, overlap_chars } = parseChunkOptions({ max_chars: options.max_chars, overlap_chars: options.overlap_chars });
    chunking = { max_chars, overlap_chars };
  } catch (e) {
    throw e instanceof ChunkingError ? new StoreError(400, e.message) : e;
  }
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new StoreError(400, `${dir} is not a directory: ingestCode takes the root of a source tree`);
  const walk = walkTree(dir, options.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES);
  await prepare(store, collection, o);
  const stored = await storedFiles(store, collection, o);
  const settings = `${CHUNKER_VERSION}:${chunking.max_chars}:${chunking.overlap_chars}\n`;
  const result: IngestCodeResult = { files: 0, written: 0, unchanged: 0, removed: 0, chunks: 0, skipped: { binary: 0, too_large: walk.tooLarge } };
  const stale: string[] = [];
  /** Files chunked and not yet handed to a write, with their hashes. */
  let pending: { chunks: CodeChunk[]; hash: string }[] = [];
  let pendingCount = 0;
  /** Chunks made so far (result.chunks counts those written). */
  let chunked = 0;
  // One write in flight while the next files are parsed: the core writes on its own thread.
  let writing: Promise<void> = Promise.resolve();
  const write = async (files: typeof pending) => {
    const chunks = files.flatMap((f) => f.chunks.map((chunk) => ({ chunk, hash: f.hash })));
    const vectors = embedder
      ? await provided(
          embedder.embed(
            chunks.map((c) => embeddedText(c.chunk)),
            signalOf(o),
          ),
        )
      : null;
    const records: StampedRecord[] = chunks.map(({ chunk, hash }, i) => ({
      id: `${chunk.path}#${chunk.index}`,
      ...(vectors ? { vector: vectors[i] } : {}),
      attrs: chunkAttrs(chunk, hash),
    }));
    if (records.length > 0) result.chunks += (await store.upsertStamped(collection, { records }, o)).upserted;
  };
  const flush = async () => {
    const files = pending;
    pending = [];
    pendingCount = 0;
    await writing;
    writing = write(files);
    writing.catch(() => undefined); // awaited by the next flush; handled meanwhile
  };
  for (const [n, file] of walk.files.entries()) {
    const content = readFileSync(file.absolute);
    if (isBinary(content)) {
      result.skipped.binary++;
    } else {
      result.files++;
      const text = utf8.decode(content);
      const hash = createHash('sha256').update(settings).update(content).digest('hex');
      const before = stored.get(file.path);
      stored.delete(file.path); // what is left at the end is gone from the tree
      if (before && before.hashes.size === 1 && before.hashes.has(hash)) {
        result.unchanged++;
      } else {
        const chunks = await chunkFile(file.path, text, chunking);
        const ids = new Set(chunks.map((c) => `${c.path}#${c.index}`));
        if (before) stale.push(...before.ids.filter((id) => !ids.has(id)));
        pending.push({ chunks, hash });
        pendingCount += chunks.length;
        chunked += chunks.length;
        result.written++;
        if (pendingCount >= BATCH) await flush();
      }
    }
    options.onProgress?.({ done: n + 1, total: walk.files.length, chunks: chunked });
  }
  await flush();
  await writing;
  for (const gone of stored.values()) stale.push(...gone.ids);
  result.removed = stored.size;
  for (let i = 0; i < stale.length; i += LIST_PAGE) await store.delete(collection, { ids: stale.slice(i, i + LIST_PAGE) }, o);
  if (embedder && result.chunks > 0) await memory.recordEmbedder(collection, embedder, o);
  return result;
}

/** The collection, with the full-text schema over the chunk fields (declared once: redeclaring reindexes). */
async function prepare(store: CodeStore, collection: string, o?: CallOptions): Promise<void> {
  if (!(await store.collections(o)).includes(collection)) await store.createCollection(collection, o);
  const meta = await store.getMeta(collection, o);
  const schema = FTS_FIELDS.join(',');
  if (meta[FTS_KEY] === schema) return;
  await store.setFtsSchema(collection, [...FTS_FIELDS], o);
  await store.putMeta(collection, { ...meta, [FTS_KEY]: schema }, o);
}

/** Every file's chunk ids and the hashes they carry, from the chunk records of the collection. */
async function storedFiles(store: CodeStore, collection: string, o?: CallOptions): Promise<Map<string, Stored>> {
  const files = new Map<string, Stored>();
  for (let offset = 0; ; offset += LIST_PAGE) {
    const page = await store.list({ scope: [collection], offset, limit: LIST_PAGE, include_attributes: ['svc.parent_id', 'file_hash'] }, o);
    for (const h of page) {
      const parent = str(h.attrs['svc.parent_id']);
      if (parent === null) continue;
      let file = files.get(parent);
      if (!file) {
        file = { ids: [], hashes: new Set() };
        files.set(parent, file);
      }
      file.ids.push(h.id);
      file.hashes.add(str(h.attrs.file_hash) ?? '');
    }
    if (page.length < LIST_PAGE) return files;
  }
}
