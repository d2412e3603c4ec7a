// The code feature (spec, "POST /code-search"): a source tree ingested as symbol chunks, searched
// grouped by file. It runs on the library's ordinary calls plus the stamped upsert the store keeps
// to itself, and on the memory feature's embedder and its checks.
import type { CallOptions, FtsFieldEntry, Hit, HybridSearchRequest, ListRequest, TextSearchRequest } from '../../types';
import type { Memory, MemoryStore, SearchBody } from '../memory/memory';
import { type IngestCodeOptions, type IngestCodeResult, ingestTree } from './ingest';
import type { CodeSearchRequest, CodeSearchResponse } from './requests';
import { searchCode } from './search';

/** What the code feature needs from the store; `Store` provides it. */
export interface CodeStore extends Pick<MemoryStore, 'dimension' | 'writeRefusal' | 'collections' | 'getMeta' | 'putMeta' | 'upsertStamped'> {
  createCollection(name: string, o?: CallOptions): Promise<unknown>;
  setFtsSchema(name: string, fields: FtsFieldEntry[], o?: CallOptions): Promise<unknown>;
  list(body: ListRequest, o?: CallOptions): Promise<Hit[]>;
  delete(name: string, body: { ids: string[] }, o?: CallOptions): Promise<{ deleted: number }>;
  textSearch(body: TextSearchRequest, o?: CallOptions): Promise<Hit[]>;
  hybridSearch(body: HybridSearchRequest, o?: CallOptions): Promise<Hit[]>;
  search(body: SearchBody, o?: CallOptions): Promise<Hit[]>;
}

export class Code {
  constructor(
    private readonly store: CodeStore,
    private readonly memory: Memory,
  ) {}

  ingest(collection: string, dir: string, options: IngestCodeOptions, o?: CallOptions): Promise<IngestCodeResult> {
    return ingestTree(this.store, this.memory, collection, dir, options, o);
  }

  search(req: CodeSearchRequest, o?: CallOptions): Promise<CodeSearchResponse> {
    return searchCode(this.store, this.memory, req, o);
  }
}
