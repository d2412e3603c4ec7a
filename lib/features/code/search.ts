// /code-search: chunks ranked by BM25 over the declared fields, by vector, or both fused, then
// grouped by file. `limit` counts files, so the chunk window grows until it holds that many files
// or the ranking runs out.
//
// Mode: `vector: false` is BM25; `vector: true` embeds the query and searches vectors (no embedder:
// 400 naming --embed-provider); left out, the store fuses both with RRF (/hybrid-search) when it has
// an embedder, a dimension, and the collection's vectors were embedded by that embedder; otherwise
// BM25 (a dimension-0 store, no embedder, or a collection ingested without vectors).
import { StoreError } from '../../store/errors';
import type { CallOptions } from '../../store/cancellation';
import type { Hit } from '../../types';
import { EMBEDDER_KEY, type Memory } from '../memory/memory';
import { provided, signalOf } from '../memory/providers';
import type { CodeStore } from './code_store';
import { FTS_FIELDS, HIT_ATTRS, int, str } from './records';
import type { CodeSearchRequest, CodeSearchResponse, CodeSymbolHit } from '../../types';

const DEFAULT_LIMIT = 10;
/** The ranked routes' bound on offset + top_k. */
const MAX_WINDOW = 10_000;

type Ranker = (topK: number) => Promise<Hit[]>;

export async function searchCode(store: CodeStore, memory: Memory, req: CodeSearchRequest, o?: CallOptions): Promise<CodeSearchResponse> {
  const limit = req.limit ?? DEFAULT_LIMIT;
  if (req.vector === true) memory.embedder(); // 400 naming --embed-provider before anything runs
  if (limit === 0) return { files: [] };
  const rank = await ranker(store, memory, req, o);
  let topK = Math.min(MAX_WINDOW, Math.max(50, limit * 10));
  for (;;) {
    const hits = await rank(topK);
    const files = grouped(hits);
    if (files.length >= limit || hits.length < topK || topK === MAX_WINDOW) return { files: files.slice(0, limit) };
    topK = Math.min(MAX_WINDOW, topK * 4);
  }
}

async function ranker(store: CodeStore, memory: Memory, req: CodeSearchRequest, o?: CallOptions): Promise<Ranker> {
  const common = { scope: [req.collection], filter: req.filter, include_attributes: HIT_ATTRS };
  const clauses = FTS_FIELDS.map((field) => ({ field, query: req.query }));
  const bm25: Ranker = (topK) => store.textSearch({ ...common, clauses, combine: 'Sum', top_k: topK }, o);
  if (req.vector === false || (req.vector === undefined && !(await vectorsUsable(store, memory, req.collection, o)))) return bm25;
  const embedder = memory.embedder();
  if (store.dimension === 0)
    throw new StoreError(400, 'vector search needs a store with a dimension; this store is keyword-only (dimension 0): send vector: false');
  await memory.checkEmbedder(req.collection, embedder, o);
  const [vector] = await provided(embedder.embed([req.query], signalOf(o)));
  if (req.vector === true) return (topK) => store.search({ ...common, query: vector, top_k: topK }, o);
  return (topK) => store.hybridSearch({ ...common, vector, clauses, combine: 'Sum', top_k: topK, candidates: topK }, o);
}

/** Whether an omitted `vector` fuses in vectors: an embedder, a dimension, and the collection embedded by it. */
async function vectorsUsable(store: CodeStore, memory: Memory, collection: string, o?: CallOptions): Promise<boolean> {
  const embedder = memory.configuredEmbedder;
  if (!embedder || store.dimension === 0 || !(await store.collections(o)).includes(collection)) return false;
  return (await store.getMeta(collection, o))[EMBEDDER_KEY] === embedder.identity;
}

/** Hits (best first) grouped by path: files in order of their best hit, symbols in hit order. */
function grouped(hits: Hit[]): CodeSearchResponse['files'] {
  const files = new Map<string, CodeSearchResponse['files'][number]>();
  for (const h of hits) {
    const path = str(h.attrs.path);
    if (path === null) continue; // not a code chunk
    let file = files.get(path);
    if (!file) {
      file = { path, language: str(h.attrs.language), symbols: [] };
      files.set(path, file);
    }
    const symbol: CodeSymbolHit = {
      symbol: str(h.attrs.symbol),
      kind: str(h.attrs.kind),
      start_line: int(h.attrs.start_line),
      end_line: int(h.attrs.end_line),
      score: h.score,
    };
    file.symbols.push(symbol);
  }
  return [...files.values()];
}
