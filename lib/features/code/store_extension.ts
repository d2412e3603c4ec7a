// Feature `code` on the library: Store.codeSearch and Store.ingestCode, on a Code made for each
// store at open over its calls, its stamped upsert and the memory feature's embedder.
import { ExtensionState, type StoreInternals } from '../../store/extension';
import { requestBody } from '../../store/request_body';
import { installExtension, Store } from '../../store/store';
import type { CallOptions } from '../../store/cancellation';
import { hasFeature } from '../built';
import { memoryOf } from '../memory/store_extension';
import { Code } from './code';
import type { CodeStore } from './code_store';
import type { IngestCodeOptions, IngestCodeResult } from './ingest';
import type { CodeSearchRequest, CodeSearchResponse } from '../../types';
import { checkCodeSearch } from './requests';

declare module '../../store/store' {
  interface Store {
    /**
     * POST /code-search: the collection's code chunks ranked by BM25, by vector, or both fused (README
     * "Code search"), grouped by file: `{files: [{path, language, symbols}]}`, at most `limit` files.
     */
    codeSearch(body: CodeSearchRequest | Uint8Array, o?: CallOptions): Promise<CodeSearchResponse>;
    /**
     * Ingests the source tree at `dir` into `collection` as symbol chunks `{path}#{index}`, honouring
     * .gitignore files, embedding them when an embedder is configured; a re-ingest rewrites changed
     * files only and deletes the chunks of files gone from the tree (README "Code search").
     */
    ingestCode(collection: string, dir: string, options?: IngestCodeOptions, o?: CallOptions): Promise<IngestCodeResult>;
  }
}

const codes = new ExtensionState<Code>('code');

/** The store's calls code search and ingestion use: its public ones and the stamped upsert. */
const codeStore = (store: Store, internals: StoreInternals): CodeStore => ({
  dimension: store.dimension,
  writeRefusal: () => store.writeRefusal(),
  collections: (o) => store.collections(o),
  createCollection: (name, o) => store.createCollection(name, o),
  getMeta: (name, o) => store.getMeta(name, o),
  putMeta: (name, meta, o) => store.putMeta(name, meta, o),
  setFtsSchema: (name, fields, o) => store.setFtsSchema(name, fields, o),
  list: (body, o) => store.list(body, o),
  delete: (name, body, o) => store.delete(name, body, o),
  textSearch: (body, o) => store.textSearch(body, o),
  hybridSearch: (body, o) => store.hybridSearch(body, o),
  search: (body, o) => store.search(body, o),
  upsertStamped: (name, body, o) => internals.upsertStamped(name, body, o),
});

installExtension({
  name: 'code',
  feature: 'code',
  enabled: hasFeature('code') && hasFeature('memory'),
  open(store, internals) {
    if (hasFeature('code') && hasFeature('memory')) codes.set(store, new Code(codeStore(store, internals), memoryOf(store, 'ingestCode')));
  },
});

Store.prototype.codeSearch = async function (this: Store, body, o) {
  return codes.of(this, 'code-search').search(checkCodeSearch(requestBody(body)), o);
};
Store.prototype.ingestCode = async function (this: Store, collection, dir, options = {}, o) {
  return codes.of(this, 'ingestCode').ingest(collection, dir, options, o);
};
