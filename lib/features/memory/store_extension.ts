// Feature `memory` on the library: Store.remember, recall, recallJson and embed, on a Memory made
// for each store at open from its providers (embedProvider, summarizeProvider; the reranker is
// rerank's), reading and writing through the store's own calls and its internals.
import { parseExact } from '../../exact_json';
import { StoreError } from '../../store/errors';
import { ExtensionState, type StoreInternals } from '../../store/extension';
import { requestBody } from '../../store/request_body';
import { installExtension, Store } from '../../store/store';
import type { CallOptions } from '../../store/cancellation';
import type { Hit, OpenOptions } from '../../types';
import { hasFeature } from '../built';
import { rerankerOf } from '../rerank/rerankers';
import { Memory, type MemoryStore } from './memory';
import { createEmbedder, createSummarizer, fromSpecs } from './providers';
import type { RecallRequest, RememberRequest, RememberResponse } from '../../types';
import { checkRecall, checkRemember } from './requests';

declare module '../../store/store' {
  interface Store {
    /**
     * POST /collections/{name}/remember: embeds the text (or, in `summarize` mode, its summary) with
     * the store's embedder and upserts it with the svc.* stamps; `chunking` splits it into records
     * `{id}#{index}`, and `dedupe_threshold` updates the nearest entry in place instead.
     */
    remember(name: string, body: RememberRequest | Uint8Array, o?: CallOptions): Promise<RememberResponse>;
    /**
     * POST /collections/{name}/recall: embeds the query and searches the collection, never returning
     * an expired entry; `reinforce` then stamps svc.access_count and svc.last_accessed on the hits (on
     * a read-only handle it is skipped with a process warning).
     */
    recall(name: string, body: RecallRequest | Uint8Array, o?: CallOptions): Promise<Hit[]>;
    /** recall answering the hit array as JSON bytes (what the HTTP route sends). */
    recallJson(name: string, body: RecallRequest | Uint8Array, o?: CallOptions): Promise<Buffer>;
    /**
     * Embeds one text with the store's embedder (feature memory); without one it is 400 naming
     * --embed-provider. With `scope` (the collections the vector is for; [] for all), a collection
     * embedded by another provider is refused as recall refuses it.
     */
    embed(text: string, o?: CallOptions, scope?: string[]): Promise<Float32Array>;
  }
}

const memories = new ExtensionState<Memory>('memory');

/** The store's Memory (the code feature embeds through it); 404 in a build without feature memory. */
export const memoryOf = (store: Store, method: string): Memory => memories.of(store, method);

/** The store's calls memory reads and writes through: its public ones and its internals. */
const memoryStore = (store: Store, internals: StoreInternals): MemoryStore => ({
  dimension: store.dimension,
  writeRefusal: () => store.writeRefusal(),
  commitVersion: () => store.commitVersion(),
  getMeta: (name, o) => store.getMeta(name, o),
  putMeta: (name, meta, o) => store.putMeta(name, meta, o),
  collections: (o) => store.collections(o),
  search: (body, o) => store.search(body, o),
  searchJson: ({ query, ...rest }, o) => internals.searchVectorJson(rest, query, o),
  rerankWindow: (body, o) => internals.rerankWindow('search', body, o),
  delete: (name, body, o) => store.delete(name, body, o),
  get: (name, ids, o) => store.get(name, ids, o),
  upsertStamped: (name, body, o) => internals.upsertStamped(name, body, o),
  reinforce: (name, body, o) => internals.reinforce(name, body, o),
});

/** The embedder and summarizer their specs name; a bad spec is a 400. */
const providers = (o: OpenOptions, dimension: number | undefined) =>
  fromSpecs(() => ({
    embedder: o.embedProvider ? createEmbedder(o.embedProvider, dimension === undefined ? {} : { dimension }) : null,
    summarizer: o.summarizeProvider ? createSummarizer(o.summarizeProvider) : null,
  }));

installExtension({
  name: 'memory',
  feature: 'memory',
  enabled: hasFeature('memory'),
  options: ['embedProvider', 'summarizeProvider', 'clock'],
  check(options, dimension) {
    if (!hasFeature('memory') && (options.embedProvider || options.summarizeProvider))
      throw new StoreError(400, 'embedProvider and summarizeProvider need a build with feature memory');
    providers(options, dimension);
  },
  open(store, internals, options) {
    if (!hasFeature('memory')) return;
    const made = providers(options, store.dimension);
    // rerank's provider, read when a recall asks for it (its extension may open after this one).
    const withReranker = {
      ...made,
      get reranker() {
        return rerankerOf(store);
      },
    };
    memories.set(store, new Memory(memoryStore(store, internals), withReranker, options.clock ?? Date.now));
  },
});

Store.prototype.remember = async function (this: Store, name, body, o) {
  return memoryOf(this, 'remember').remember(name, checkRemember(requestBody(body)), o);
};
Store.prototype.recallJson = async function (this: Store, name, body, o) {
  return memoryOf(this, 'recall').recall(name, checkRecall(requestBody(body)), o);
};
Store.prototype.recall = async function (this: Store, name, body, o) {
  return parseExact(await this.recallJson(name, body, o));
};
Store.prototype.embed = async function (this: Store, text, o, scope) {
  return memoryOf(this, 'embed').embed(text, o, scope);
};
