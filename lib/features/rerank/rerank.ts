// rerank (feature `rerank`; spec, `rerank` under POST /search): a ranked route's candidate window,
// (offset + top_k) x overscan deep, re-scored by a hosted cross-encoder. The core ranks the
// candidates as the request asks (filter, min_score, rank_by, diversity, expand) with every
// attribute, since the text and the limit_per value are read from the stored record; then here the
// candidates with usable text take the provider's scores and go first, the others follow in their
// original order, limit_per is applied again, the page is cut and projected.
import { COMPONENTS } from '../../route_kit/components';
import { parseExact, shown, stringifyExact } from '../../exact_json';
import { StoreError } from '../../store/errors';
import { hasFeature } from '../built';
import type { Hit, LimitPer, RerankOptions, Value } from '../../types';
import { provided, type Reranker } from '../memory/providers';

const MAX_DEPTH = 10_000;
/** The options rerank takes: the fields of its described shape. */
const RERANK_KEYS = Object.keys(COMPONENTS.Rerank.properties as object);
const bad = (message: string) => new StoreError(400, message);

/** The configured reranker, or the 400 a request for rerank gets without one (or without the feature). */
export function rerankerOrRefuse(reranker: Reranker | null): Reranker {
  if (!hasFeature('rerank')) throw bad('rerank is not in this build (feature rerank)');
  if (!reranker) throw bad('rerank needs a rerank provider: start the server with --rerank-provider SPEC (for example cohere:MODEL@URL or tei@URL)');
  return reranker;
}

const RERANK_KEY = Buffer.from('"rerank"');

/** Whether a body may ask for rerank: bodies that cannot go to the core untouched, unparsed. */
export const mayRerank = (body: Uint8Array): boolean =>
  (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)).includes(RERANK_KEY);

/** rerank's options, checked; `fallback` is the route's own query text where the spec lets `query` be omitted. */
export function checkRerank(value: unknown, fallback: string | undefined): Required<RerankOptions> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad('rerank must be an object: {"query": "...", "overscan"?: 10, "text_attr"?: "svc.text"}');
  const r = value as Record<string, unknown>;
  for (const key of Object.keys(r)) if (!RERANK_KEYS.includes(key)) throw bad(`unknown field 'rerank.${key}'; accepted: ${RERANK_KEYS.join(', ')}`);
  if (r.query !== undefined && r.query !== null && typeof r.query !== 'string') throw bad('rerank.query must be a string');
  const query = typeof r.query === 'string' && r.query !== '' ? r.query : fallback;
  if (query === undefined || query === '') throw bad('rerank.query is required here: the text the cross-encoder reads against each candidate');
  const overscan = r.overscan ?? 10;
  if (typeof overscan !== 'number' || !Number.isInteger(overscan) || overscan < 1 || overscan > MAX_DEPTH)
    throw bad(`rerank.overscan must be a whole number from 1 to ${MAX_DEPTH}, got ${shown(r.overscan)}`);
  const textAttr = r.text_attr ?? 'svc.text';
  if (typeof textAttr !== 'string' || textAttr === '') throw bad('rerank.text_attr must be a non-empty attribute name');
  return { query, overscan, text_attr: textAttr };
}

function wholeNumber(value: unknown, field: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw bad(`${field} must be a whole number from 0`);
  return value;
}

/** The candidates' attribute value of a limit_per field, as a grouping key (undefined: missing). */
function groupKey(hit: Hit, field: string): string | undefined {
  const v: Value | undefined = hit.attrs[field];
  return v === undefined ? undefined : stringifyExact(v).toString('utf8');
}

function checkLimitPer(value: unknown): LimitPer {
  const lp = value as Partial<LimitPer>;
  if (typeof value !== 'object' || value === null || typeof lp.field !== 'string' || lp.field === '')
    throw bad('limit_per.field is required: the attribute whose values are capped');
  if (typeof lp.max !== 'number' || !Number.isInteger(lp.max) || lp.max < 1) throw bad('limit_per.max must be a whole number of at least 1');
  if (lp.missing !== undefined && lp.missing !== 'shared' && lp.missing !== 'own')
    throw bad('limit_per.missing must be "shared" (one group) or "own" (a group each)');
  for (const key of Object.keys(value))
    if (!['field', 'max', 'missing'].includes(key)) throw bad(`unknown field 'limit_per.${key}'; accepted: field, max, missing`);
  return { field: lp.field, max: lp.max, missing: lp.missing };
}

function capPerValue(hits: Hit[], lp: LimitPer): Hit[] {
  const seen = new Map<string, number>();
  return hits.filter((h) => {
    const key = groupKey(h, lp.field);
    if (key === undefined && lp.missing === 'own') return true;
    const n = (seen.get(key ?? '') ?? 0) + 1;
    seen.set(key ?? '', n);
    return n <= lp.max;
  });
}

function project(hit: Hit, include: string[] | undefined, exclude: string[] | undefined): Hit {
  const keep = include ? (k: string) => include.includes(k) : exclude ? (k: string) => !exclude.includes(k) : null;
  return keep ? { ...hit, attrs: Object.fromEntries(Object.entries(hit.attrs).filter(([k]) => keep(k))) } : hit;
}

/** The spec's order: score descending, then collection, then id. */
const byScore = (a: Hit, b: Hit) =>
  b.score - a.score || (a.collection < b.collection ? -1 : a.collection > b.collection ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Answers `body` (a parsed ranked-route request carrying `rerank`) through `run`, which ranks a
 * body in the core and answers its JSON bytes. `fallback`: the route's own query text, where the
 * spec lets rerank.query be omitted.
 */
export async function reranked(
  body: Record<string, unknown>,
  run: (candidates: Record<string, unknown>) => Promise<Buffer>,
  reranker: Reranker,
  fallback: string | undefined,
  signal: AbortSignal | undefined,
): Promise<Buffer> {
  const options = checkRerank(body.rerank, fallback);
  const offset = wholeNumber(body.offset, 'offset', 0);
  const topK = wholeNumber(body.top_k, 'top_k', 10);
  if (offset + topK > MAX_DEPTH) throw bad(`offset + top_k must be at most ${MAX_DEPTH}, got ${offset + topK}`);
  // limit_per applies to the reranked order: capping the candidates first would keep each value's
  // best by the first ranking, and reranking could then never change which one that is.
  const { rerank: _r, offset: _o, top_k: _k, include_attributes, exclude_attributes, limit_per, ...rest } = body;
  const limitPer = limit_per === undefined || limit_per === null ? undefined : checkLimitPer(limit_per);
  if (include_attributes && exclude_attributes) throw bad('include_attributes and exclude_attributes cannot both be sent; pick one');
  const depth = Math.min(MAX_DEPTH, (offset + topK) * options.overscan);
  const answer = parseExact<Hit[] | { hits: Hit[]; plan: unknown }>(await run({ ...rest, offset: 0, top_k: depth }));
  const candidates = Array.isArray(answer) ? answer : answer.hits;

  const textOf = (h: Hit): string | null => {
    const v = h.attrs[options.text_attr];
    return typeof v === 'object' && v !== null && 'Str' in v && v.Str !== '' ? v.Str : null;
  };
  const readable = candidates.filter((h) => textOf(h) !== null);
  const scores =
    readable.length === 0
      ? []
      : await provided(
          reranker.rerank(
            options.query,
            readable.map((h) => textOf(h) as string),
            signal,
          ),
        );
  const rescored = readable.map((h, i) => ({ ...h, score: scores[i] })).sort(byScore);
  let ordered = [...rescored, ...candidates.filter((h) => textOf(h) === null)];
  if (limitPer) ordered = capPerValue(ordered, limitPer);
  const page = ordered
    .slice(offset, offset + topK)
    .map((h) => project(h, include_attributes as string[] | undefined, exclude_attributes as string[] | undefined));
  return stringifyExact(Array.isArray(answer) ? page : { hits: page, plan: answer.plan });
}
