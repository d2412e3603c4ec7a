// POST /query: `{sql, compile_only?}` in, the answer of Store.queryJson out (docs/sql.md).
import type { QueryAccounting } from '../../route_kit/query_accounting';
import type { StoreSlot } from '../../route_kit/slot';
import type { Route } from '../../http/route';
import { bodySchema, tableRoute } from '../../route_kit/table_route';
import { parseJson } from '../../http/schema';
import { malformedJson } from '../../json_syntax';
import { knownBody, rememberBody, runQuery } from './query';

interface QueryRequest {
  sql: string;
  compile_only?: boolean;
}

/** The /query body, checked by the schema /openapi.json publishes for it. */
const queryRequest = bodySchema<QueryRequest>('query');

/**
 * A /query request counts as one search query and is logged when slow, like the typed routes. A
 * body that ran before runs its statements by its bytes alone: no JSON to read, no text to look up.
 */
export const sqlRoutes = (slot: StoreSlot, queries: QueryAccounting): Route[] => [
  tableRoute('query', (req) => {
    const known = knownBody(req.bytes);
    if (known !== undefined) return queries.run(req, (o) => runQuery(slot.get(req), known, false, o));
    const { sql, compile_only: compileOnly = false } = parseJson(req.bytes, queryRequest, malformedJson);
    if (!compileOnly) rememberBody(req.bytes, sql);
    return queries.run(req, (o) => slot.get(req).queryJson(sql, { compileOnly }, o));
  }),
];
