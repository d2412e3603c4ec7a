// The memory routes' request bodies (spec, "Memory routes"), checked field by field: every error
// names the field and the fix, and nothing is written or embedded before a body passed.
import { BOOLEAN, closed, COUNT, NUMBER, orNull, ref, STRING } from '../../route_kit/components';
import { shown } from '../../exact_json';
import { StoreError } from '../../store/errors';
import type { Filter, RerankOptions, Value } from '../../types';
import { checkRerank } from '../rerank/rerank';
import { ChunkingError, type ChunkOptions, parseChunkOptions } from './chunking';

export interface RememberRequest {
  id: string;
  text: string;
  /** `raw` embeds the text; `summarize` embeds a generated summary, stamped in svc.summary. */
  mode?: 'raw' | 'summarize';
  /** Caller metadata; reserved `svc.*` keys are dropped. */
  attrs?: Record<string, Value>;
  /** Seconds from the write until the entry expires (svc.expires_at); absent: never. */
  ttl_seconds?: number;
  /** Cosine floor above which the nearest existing entry is updated in place instead. */
  dedupe_threshold?: number;
  /** Split the text into chunk records `{id}#{index}` (README "Chunking"); absent: one record. */
  chunking?: ChunkOptions;
}

export interface RememberResponse {
  ok: true;
  upserted: number;
  /** The id written: the nearest entry's when dedupe matched. */
  id: string;
  deduped: boolean;
}

export interface RecallRequest {
  query: string;
  /** 0 means the default, 10. */
  top_k?: number;
  min_score?: number;
  filter?: Filter;
  diversity?: number;
  rank_by?: unknown;
  /** Stamp svc.access_count and svc.last_accessed on every returned entry (a write). */
  reinforce?: boolean;
  /** With reinforce: push an existing svc.expires_at forward to now plus this; never creates or shortens one. */
  extend_ttl_seconds?: number;
  /** At most per_parent hits per document (svc.parent_id; 0 reads as 1), each widened by `neighbours` chunks either side into `context`. */
  rollup?: { per_parent?: number; neighbours?: number };
  /** Re-score the candidates with the rerank provider; `query` defaults to the recall query. */
  rerank?: RerankOptions;
}

const SECONDS = { type: 'number', exclusiveMinimum: 0, maximum: 1e11 };

/** The remember body as checkRemember reads it (its fields are the ones it accepts), for the API description; null reads as the field left out. */
export const REMEMBER_BODY = closed(
  {
    id: { type: 'string', minLength: 1 },
    text: STRING,
    mode: orNull({ enum: ['raw', 'summarize'], default: 'raw' }),
    attrs: orNull(ref('Attrs')),
    ttl_seconds: orNull({ ...SECONDS, description: 'Seconds until expiry from write time; absent: never expires' }),
    dedupe_threshold: orNull({ type: 'number', minimum: -1, maximum: 1, description: 'Cosine floor above which the nearest entry is updated in place' }),
    chunking: orNull(
      closed({
        strategy: { enum: ['Recursive', 'Markdown', 'Sentence'], default: 'Recursive' },
        max_chars: { type: 'integer', minimum: 1, default: 1000 },
        overlap_chars: { type: 'integer', minimum: 0, default: 100 },
      }),
    ),
  },
  ['id', 'text'],
);

/** The recall body as checkRecall reads it. */
export const RECALL_BODY = closed(
  {
    query: STRING,
    top_k: orNull({ ...COUNT, maximum: 10000, default: 10, description: '0 means the default' }),
    min_score: orNull(NUMBER),
    filter: orNull(ref('Filter')),
    diversity: orNull({ type: 'number', minimum: 0, maximum: 1 }),
    rollup: orNull(
      closed({
        per_parent: orNull({ ...COUNT, maximum: 10000, default: 1, description: '0 reads as 1' }),
        neighbours: orNull({ ...COUNT, maximum: 100, default: 0 }),
      }),
    ),
    rerank: orNull(ref('Rerank')),
    reinforce: orNull({ ...BOOLEAN, default: false, description: 'Stamp svc.access_count and svc.last_accessed on the hits (a write)' }),
    extend_ttl_seconds: orNull(SECONDS),
    rank_by: orNull(ref('RankBy')),
  },
  ['query'],
);

const bad = (message: string) => new StoreError(400, message);

function objectBody(body: unknown, route: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad(`the ${route} body must be a JSON object`);
  return body as Record<string, unknown>;
}

function onlyKeys(body: Record<string, unknown>, route: string, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) if (!allowed.includes(key)) throw bad(`unknown field '${key}' in the ${route} body; accepted: ${allowed.join(', ')}`);
}

function positiveSeconds(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1e11)
    throw bad(`${field} must be a positive number of seconds (at most 1e11), got ${shown(value)}`);
  return value;
}

const REMEMBER_KEYS = Object.keys(REMEMBER_BODY.properties as object);

export function checkRemember(raw: unknown): RememberRequest {
  const body = objectBody(raw, 'remember');
  onlyKeys(body, 'remember', REMEMBER_KEYS);
  if (body.id === undefined || body.id === null) throw bad('id is required: the record id to remember the text under');
  if (typeof body.id !== 'string' || body.id === '') throw bad('id must be a non-empty string');
  if (typeof body.text !== 'string') throw bad('text is required and must be a string');
  const req: RememberRequest = { id: body.id, text: body.text };
  if (body.mode !== undefined && body.mode !== null) {
    if (body.mode !== 'raw' && body.mode !== 'summarize') throw bad(`mode must be "raw" or "summarize", got ${shown(body.mode)}`);
    req.mode = body.mode;
  }
  if (body.attrs !== undefined && body.attrs !== null) req.attrs = objectBody(body.attrs, 'attrs') as Record<string, Value>;
  if (body.ttl_seconds !== undefined && body.ttl_seconds !== null) req.ttl_seconds = positiveSeconds(body.ttl_seconds, 'ttl_seconds');
  if (body.dedupe_threshold !== undefined && body.dedupe_threshold !== null) {
    const t = body.dedupe_threshold;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < -1 || t > 1)
      throw bad(`dedupe_threshold must be a cosine similarity from -1.0 to 1.0, got ${shown(t)}`);
    req.dedupe_threshold = t;
  }
  if (body.chunking !== undefined && body.chunking !== null) {
    if (req.dedupe_threshold !== undefined) throw bad('dedupe_threshold cannot be combined with chunking: a chunk has no single nearest entry to update');
    if (req.mode === 'summarize') throw bad('mode "summarize" cannot be combined with chunking: send the whole text, or chunk it in raw mode');
    try {
      req.chunking = parseChunkOptions(body.chunking);
    } catch (e) {
      throw e instanceof ChunkingError ? bad(e.message) : e;
    }
  }
  return req;
}

function wholeNumber(value: unknown, field: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max)
    throw bad(`${field} must be a whole number from 0 to ${max}, got ${shown(value)}`);
  return value;
}

function checkRollup(value: unknown): { per_parent: number; neighbours: number } {
  const rollup = objectBody(value, 'rollup');
  onlyKeys(rollup, 'rollup', ['per_parent', 'neighbours']);
  const perParent = rollup.per_parent === undefined || rollup.per_parent === null ? 1 : wholeNumber(rollup.per_parent, 'rollup.per_parent', 10_000);
  const neighbours = rollup.neighbours === undefined || rollup.neighbours === null ? 0 : wholeNumber(rollup.neighbours, 'rollup.neighbours', 100);
  return { per_parent: perParent || 1, neighbours };
}

const RECALL_KEYS = Object.keys(RECALL_BODY.properties as object);

export function checkRecall(raw: unknown): RecallRequest {
  const body = objectBody(raw, 'recall');
  onlyKeys(body, 'recall', RECALL_KEYS);
  if (typeof body.query !== 'string') throw bad('query is required and must be a string: the text to recall by');
  const req: RecallRequest = { query: body.query };
  if (body.rollup !== undefined && body.rollup !== null) req.rollup = checkRollup(body.rollup);
  if (body.rerank !== undefined && body.rerank !== null) req.rerank = checkRerank(body.rerank, body.query);
  if (body.top_k !== undefined && body.top_k !== null) req.top_k = wholeNumber(body.top_k, 'top_k (0 means 10)', 10_000);
  if (body.min_score !== undefined && body.min_score !== null) {
    if (typeof body.min_score !== 'number' || !Number.isFinite(body.min_score)) throw bad('min_score must be a finite number');
    req.min_score = body.min_score;
  }
  if (body.filter !== undefined && body.filter !== null) {
    if (!Array.isArray(body.filter)) throw bad('filter must be an array of predicates');
    req.filter = body.filter as Filter;
  }
  if (body.diversity !== undefined && body.diversity !== null) req.diversity = body.diversity as number; // the core judges it
  if (body.rank_by !== undefined && body.rank_by !== null) req.rank_by = body.rank_by;
  if (body.reinforce !== undefined && body.reinforce !== null) {
    if (typeof body.reinforce !== 'boolean') throw bad('reinforce must be true or false');
    req.reinforce = body.reinforce;
  }
  if (body.extend_ttl_seconds !== undefined && body.extend_ttl_seconds !== null) {
    if (!req.reinforce) throw bad('extend_ttl_seconds needs reinforce: true (only a reinforced recall extends expiries)');
    req.extend_ttl_seconds = positiveSeconds(body.extend_ttl_seconds, 'extend_ttl_seconds');
  }
  return req;
}
