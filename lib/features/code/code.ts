// The code feature (spec, "POST /code-search"): a source tree ingested as symbol chunks, searched
// grouped by file. It runs on the library's ordinary calls plus the stamped upsert the store keeps
// to itself, and on the memory feature's embedder and its checks.
import type { CallOptions } from '../../store/cancellation';
import type { Memory } from '../memory/memory';
import type { CodeStore } from './code_store';
import { type IngestCodeOptions, type IngestCodeResult, ingestTree } from './ingest';
import type { CodeSearchRequest, CodeSearchResponse } from '../../types';
import { searchCode } from './search';

export type { CodeStore } from './code_store';

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
