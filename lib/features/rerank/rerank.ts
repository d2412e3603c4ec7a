// rerank (feature `rerank`; spec, `rerank` under POST /search): a ranked route's candidate window,
// (offset + top_k) x overscan deep, re-scored by a hosted cross-encoder. The core ranks the window
// and reads each candidate's text (phase one), the provider scores the texts here, and the core
// orders the window by those scores, applies limit_per, cuts and writes the page (phase two): no
// ranking happens in TypeScript (native/include/tessera/rerank_window.h).
import type { CallOptions } from '../../store/cancellation';
import { StoreError } from '../../store/errors';
import type { RerankWindow } from '../../store/extension';
import { hasFeature } from '../built';
import { provided, type Reranker, signalOf } from '../memory/providers';

const bad = (message: string) => new StoreError(400, message);

/** The configured reranker, or the 400 a request for rerank gets without one (or without the feature). */
export function rerankerOrRefuse(reranker: Reranker | null): Reranker {
  if (!hasFeature('rerank')) throw bad('rerank is not in this build (feature rerank)');
  if (!reranker) throw bad('rerank needs a rerank provider: start the server with --rerank-provider SPEC (for example cohere:MODEL@URL or tei@URL)');
  return reranker;
}

const RERANK_KEY = Buffer.from('"rerank"');

/** Whether a body may ask for rerank: the others go to the core's plain read, untouched. */
export const mayRerank = (body: Uint8Array): boolean =>
  (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)).includes(RERANK_KEY);

/** The hits of a window the core ranked (phase one), once `reranker()` scored its texts. */
export async function reranked(window: RerankWindow, reranker: () => Reranker | null, o?: CallOptions): Promise<Buffer> {
  try {
    if (!window.reranks) return await window.finish([], o);
    const model = rerankerOrRefuse(reranker());
    const texts = window.texts.filter((t): t is string => t !== null);
    const scores = texts.length === 0 ? [] : await provided(model.rerank(window.query, texts, signalOf(o)));
    return await window.finish(scores, o);
  } finally {
    window.close();
  }
}
