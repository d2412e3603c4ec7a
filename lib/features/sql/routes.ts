// POST /query: `{sql, compile_only?}` in, the answer of Store.queryJson out (docs/sql.md).
import type { QueryAccounting } from '../../api/search';
import type { StoreSlot } from '../../api/slot';
import { HttpError } from '../../http/errors';
import { type Route, route } from '../../http/route';
import type { Schema } from '../../http/schema';

interface QueryRequest {
  sql: string;
  compile_only: boolean;
}

const queryRequest: Schema<QueryRequest> = (v, at) => {
  const shape = 'send {"sql": "SELECT ...", "compile_only"?: true|false}';
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new HttpError(400, `${at} must be an object; ${shape}`);
  const body = v as Record<string, unknown>;
  for (const key of Object.keys(body))
    if (key !== 'sql' && key !== 'compile_only') throw new HttpError(400, `${at}.${key} is not a known field; ${shape}`);
  if (typeof body.sql !== 'string') throw new HttpError(400, `${at}.sql is required and must be a string; ${shape}`);
  if (body.compile_only !== undefined && typeof body.compile_only !== 'boolean') throw new HttpError(400, `${at}.compile_only must be true or false`);
  return { sql: body.sql, compile_only: body.compile_only === true };
};

/** A /query request counts as one search query and is logged when slow, like the typed routes. */
export const sqlRoutes = (slot: StoreSlot, queries: QueryAccounting): Route[] => [
  route({
    method: 'POST',
    path: '/query',
    access: 'read',
    body: queryRequest,
    handle: (req) => queries.run(req, (o) => slot.get().queryJson(req.body.sql, { compileOnly: req.body.compile_only }, o)),
  }),
];
