// What the code feature needs of the store: the library's ordinary calls plus the stamped upsert
// the store keeps to itself. `Store` provides it.
import type { CallOptions } from '../../store/cancellation';
import type { FtsFieldEntry, Hit, HybridSearchRequest, ListRequest, TextSearchRequest } from '../../types';
import type { MemoryStore, SearchBody } from '../memory/memory';

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
