// The memory routes' request bodies (spec, "Memory routes"): checked by the schemas /openapi.json
// publishes for them (RememberRequest, RecallRequest), then by the rules between their fields.
// Nothing is written or embedded before a body passed.
import { StoreError } from '../../store/errors';
import { checkedBody } from '../../store/request_body';
import type { RecallRequest, RememberRequest } from '../../types';
import { ChunkingError, parseChunkOptions } from './chunking';

const bad = (message: string) => new StoreError(400, message);

export function checkRemember(raw: unknown): RememberRequest {
  const req = checkedBody<RememberRequest>('RememberRequest', raw);
  if (req.chunking !== undefined) {
    if (req.dedupe_threshold !== undefined) throw bad('dedupe_threshold cannot be combined with chunking: a chunk has no single nearest entry to update');
    if (req.mode === 'summarize') throw bad('mode "summarize" cannot be combined with chunking: send the whole text, or chunk it in raw mode');
    try {
      req.chunking = parseChunkOptions(req.chunking);
    } catch (e) {
      throw e instanceof ChunkingError ? bad(e.message) : e;
    }
  }
  return req;
}

export function checkRecall(raw: unknown): RecallRequest {
  const req = checkedBody<RecallRequest>('RecallRequest', raw);
  if (req.rollup !== undefined) req.rollup = { per_parent: req.rollup.per_parent || 1, neighbours: req.rollup.neighbours ?? 0 };
  // rerank.query defaults to the recall query.
  if (req.rerank !== undefined) req.rerank = { ...req.rerank, query: req.rerank.query || req.query };
  if (req.extend_ttl_seconds !== undefined && !req.reinforce) throw bad('extend_ttl_seconds needs reinforce: true (only a reinforced recall extends expiries)');
  return req;
}
