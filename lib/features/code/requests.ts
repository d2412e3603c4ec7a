// The /code-search body (spec, "POST /code-search"), checked field by field: every error names the
// field.
import { BOOLEAN, closed, COUNT, orNull, ref, STRING } from '../../route_kit/components';
import { shown } from '../../exact_json';
import { StoreError } from '../../store/errors';
import type { Filter } from '../../types';

export interface CodeSearchRequest {
  collection: string;
  /** Natural-language text for vector search, or keywords for BM25. */
  query: string;
  /** Files answered at most (default 10). */
  limit?: number;
  filter?: Filter;
  /** true: vector search; false: BM25; absent: the store decides (README "Code search"). */
  vector?: boolean;
}

export interface CodeSymbolHit {
  symbol: string | null;
  kind: string | null;
  start_line: number;
  end_line: number;
  score: number;
}

export interface CodeSearchResponse {
  files: { path: string; language: string | null; symbols: CodeSymbolHit[] }[];
}

/** The /code-search body as checkCodeSearch reads it (its fields are the ones it accepts), for the API description; null reads as the field left out. */
export const CODE_SEARCH_BODY = closed(
  {
    collection: { type: 'string', minLength: 1 },
    query: { ...STRING, description: 'Natural-language text for vector search, or keywords for BM25' },
    limit: orNull({ ...COUNT, maximum: 10000, default: 10, description: 'Files at most' }),
    filter: orNull(ref('Filter')),
    vector: orNull({ ...BOOLEAN, description: 'true forces vector search, false BM25; absent lets the store decide' }),
  },
  ['collection', 'query'],
);

const KEYS = Object.keys(CODE_SEARCH_BODY.properties as object);
/** The most files one search answers: the read routes' bound. */
export const MAX_LIMIT = 10_000;

const bad = (message: string) => new StoreError(400, message);

export function checkCodeSearch(raw: unknown): CodeSearchRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('the code-search body must be a JSON object');
  const body = raw as Record<string, unknown>;
  for (const key of Object.keys(body)) if (!KEYS.includes(key)) throw bad(`unknown field '${key}' in the code-search body; accepted: ${KEYS.join(', ')}`);
  if (typeof body.collection !== 'string' || body.collection === '') throw bad('collection is required and must be a non-empty string');
  if (typeof body.query !== 'string') throw bad('query is required and must be a string');
  const req: CodeSearchRequest = { collection: body.collection, query: body.query };
  if (body.limit !== undefined && body.limit !== null) {
    const l = body.limit;
    if (typeof l !== 'number' || !Number.isInteger(l) || l < 0 || l > MAX_LIMIT)
      throw bad(`limit must be a whole number of files from 0 to ${MAX_LIMIT}, got ${shown(l)}`);
    req.limit = l;
  }
  if (body.filter !== undefined && body.filter !== null) {
    if (!Array.isArray(body.filter)) throw bad('filter must be an array of predicates');
    req.filter = body.filter as Filter;
  }
  if (body.vector !== undefined && body.vector !== null) {
    if (typeof body.vector !== 'boolean') throw bad('vector must be true (vector search), false (BM25) or left out');
    req.vector = body.vector;
  }
  return req;
}
