// POST /query: `{sql, compile_only?}` in, the answer of Store.queryJson out (docs/sql.md).
import { closed, listOf, ref, STRING } from '../../route_kit/components';
import type { QueryAccounting } from '../../route_kit/query_accounting';
import type { StoreSlot } from '../../route_kit/slot';
import { type Route, route } from '../../http/route';
import { annotated, boolean, object, parseJson, string } from '../../http/schema';
import { malformedJson } from '../../json_syntax';
import { knownBody, rememberBody, runQuery } from './query';

const queryRequest = object(
  { sql: annotated(string, { description: "One or more ';'-separated SELECT statements (docs/sql.md)" }) },
  { compile_only: annotated(boolean, { default: false, description: 'Answer the compiled form instead of running the statements' }) },
);

/** What one statement answers: its typed route's answer, or with compile_only its compiled form (docs/sql.md §15). */
const STATEMENT_ANSWER = {
  anyOf: [
    ref('RankedHits'),
    ref('AggregateResult'),
    closed(
      {
        kind: { enum: ['search', 'text-search', 'hybrid-search', 'list', 'aggregate'] },
        route: { enum: ['/search', '/text-search', '/hybrid-search', '/list', '/aggregate'] },
        collections: listOf(STRING),
        options: { type: 'object', description: "The route's fields, defaults filled in" },
      },
      ['kind', 'route', 'collections', 'options'],
    ),
  ],
};

/**
 * A /query request counts as one search query and is logged when slow, like the typed routes. A
 * body that ran before runs its statements by its bytes alone: no JSON to read, no text to look up.
 */
export const sqlRoutes = (slot: StoreSlot, queries: QueryAccounting): Route[] => [
  route({
    method: 'POST',
    path: '/query',
    access: 'read',
    body: 'raw',
    doc: {
      operationId: 'query',
      summary: 'SQL-shaped reads compiled to the typed routes',
      request: queryRequest.json,
      // A statement's OPTIONS may rerank, calling the rerank provider.
      errors: [502],
      responses: {
        200: {
          description: "A single statement's answer (byte-identical to its typed route's), or a script's answers in order",
          schema: { anyOf: [STATEMENT_ANSWER, listOf(STATEMENT_ANSWER)] },
        },
      },
    },
    handle: (req) => {
      const known = knownBody(req.bytes);
      if (known !== undefined) return queries.run(req, (o) => runQuery(slot.get(req), known, false, o));
      const { sql, compile_only: compileOnly = false } = parseJson(req.bytes, queryRequest, malformedJson);
      if (!compileOnly) rememberBody(req.bytes, sql);
      return queries.run(req, (o) => slot.get(req).queryJson(sql, { compileOnly }, o));
    },
  }),
];
