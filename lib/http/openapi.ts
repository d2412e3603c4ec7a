// The OpenAPI 3.1 description of a route table: each route's own description (RouteDoc), its
// schema body's JSON Schema, and the answers this layer gives on every route of an access class
// (token, body limit, shedding, deadlines, read-only refusal), with the {"error"} body they share.
import type { Access, Answer, Method, RouteHead } from './route';
import { paramNames } from './route';
import type { JsonSchema } from './schema';

export interface ApiInfo {
  title: string;
  version: string;
  description: string;
}

/** The body of every error answer (spec, Errors); `retryable` rides on 503s a retry can cure and on 504s. */
const ERROR_BODY: JsonSchema = {
  type: 'object',
  properties: {
    error: { type: 'string', description: 'What went wrong, naming the field or flag and the fix' },
    retryable: {
      type: 'boolean',
      description:
        'true on a 503 a retry can cure (shed, store not open yet, an object store failure in cluster mode; retry after Retry-After), false on a 504 and on a fenced writer',
    },
  },
  required: ['error'],
  additionalProperties: false,
};

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** The error statuses of the spec's table, as every route of a class may answer them. */
const ERRORS: Record<number, string> = {
  400: 'Malformed JSON or an invalid parameter, named in the message; nothing changed',
  401: 'Missing or wrong bearer token (only when the server was started with --token)',
  403: 'A write against a --read-only or pinned server',
  404: 'A collection or alias that does not exist, or a route absent in this build or mode',
  409: "The store's writer lock is held by another process",
  413: 'The body exceeds --max-body-bytes',
  500: 'An internal fault; the message carries the request id to find it in the log',
  502: 'A provider the route calls (embedder, summarizer, reranker) failed, answered wrongly or could not be reached',
  503: 'Shed at --max-concurrent-requests, the store not open yet, the server shutting down, or in cluster mode an object store failure (each with Retry-After: 1, retryable: true); a fenced cluster writer (retryable: false)',
  504: 'Past --read-timeout or --write-timeout (retryable: false); the work was cancelled (a write that had already committed stays)',
  507: 'An allocation guard (max_vector_bytes) or out-of-memory tripped',
};

const READ_ERRORS = [400, 401, 404, 413, 500, 503, 504];
const WRITE_ERRORS = [...READ_ERRORS, 403, 409, 507];

const REQUEST_ID = { $ref: '#/components/headers/X-Request-Id' };

function response(answer: Answer): JsonSchema {
  const content: Record<string, { schema: JsonSchema }> = {};
  if (answer.schema) content['application/json'] = { schema: answer.schema };
  for (const [type, schema] of Object.entries(answer.content ?? {})) content[type] = { schema };
  return { description: answer.description, headers: { 'X-Request-Id': REQUEST_ID }, ...(Object.keys(content).length > 0 ? { content } : {}) };
}

const errorResponse = (status: number): JsonSchema => ({
  ...response({ description: ERRORS[status], schema: ERROR_REF }),
  ...(status === 503 ? { headers: { 'X-Request-Id': REQUEST_ID, 'Retry-After': { $ref: '#/components/headers/Retry-After' } } } : {}),
});

/** A route that may turn into a write (a reinforced recall) answers what writes answer. */
const errorsOf = (access: Access, mayWrite: boolean): number[] => (access === 'probe' ? [] : access === 'write' || mayWrite ? WRITE_ERRORS : READ_ERRORS);

function operation(route: RouteHead): JsonSchema {
  const { doc } = route;
  const responses: Record<string, JsonSchema> = {};
  for (const status of [...errorsOf(route.access, route.writeWhen !== undefined), ...(doc.errors ?? [])])
    responses[status] = { $ref: `#/components/responses/${status}` };
  for (const [status, answer] of Object.entries(doc.responses)) responses[status] = response(answer);
  const request = route.body === 'raw' ? doc.request : route.body?.json;
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(route.access === 'probe' ? { security: [] } : {}),
    ...(paramNames(route.path).length > 0
      ? { parameters: paramNames(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })) }
      : {}),
    ...(request ? { requestBody: { required: doc.requestOptional !== true, content: { 'application/json': { schema: request } } } } : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
}

const VERBS: Record<Method, string> = { GET: 'get', POST: 'post', PUT: 'put', DELETE: 'delete' };

/** The OpenAPI 3.1 document of `routes`; their descriptions $ref into `schemas`. */
export function openApiDocument(routes: readonly RouteHead[], info: ApiInfo, schemas: Record<string, JsonSchema>): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path][VERBS[route.method]] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearer: [] }, {}],
    paths,
    components: {
      schemas: { ...schemas, Error: ERROR_BODY },
      responses: Object.fromEntries(Object.keys(ERRORS).map((status) => [status, errorResponse(Number(status))])),
      headers: {
        'X-Request-Id': { description: "The request's id: the X-Request-Id the request sent, else a fresh one", schema: { type: 'string' } },
        'Retry-After': { description: 'Seconds to wait before retrying a shed request', schema: { type: 'integer' } },
      },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Required on every route but the probes when the server was started with --token' },
      },
    },
  };
}
