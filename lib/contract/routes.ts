// The route table: every route of the spec declared once, by operation id (the method's name in the
// library and the client): path, method, access, body, answers, and how the library reaches the
// core. From it come the Store's pass-through methods and their types (lib/store/store.ts), the
// typed client (lib/client/client.ts), the HTTP routes with their body validation
// (lib/route_kit/table_route.ts) and so /openapi.json. Pure data: the client loads it.
import type {
  AggregateRequest,
  BackupCreated,
  BackupDeleted,
  BackupEntry,
  AggregateResult,
  BatchRequest,
  BatchResponse,
  ClusterStatus,
  CodeSearchRequest,
  CodeSearchResponse,
  Filter,
  FilterIndexEntry,
  FtsFieldEntry,
  Hit,
  HybridSearchRequest,
  ListRequest,
  NamespaceEntry,
  PlannedHits,
  RecallRequest,
  RecordInput,
  RememberRequest,
  RememberResponse,
  SearchRequest,
  SimilarRequest,
  Stats,
  StoredRecord,
  SuggestRequest,
  SuggestResult,
  TextSearchRequest,
  Versions,
} from '../types';
import { BOOLEAN, closed, type JsonSchema, listOf, ref, STRING } from './schemas';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Access = 'probe' | 'read' | 'write';

/** One answer of a route: a JSON body's schema, or bodies of other content types by content type. */
export interface Answer {
  description: string;
  schema?: JsonSchema;
  content?: Record<string, JsonSchema>;
}

/**
 * How the library's Store method of a route reaches the core. `call`: the addon's method of the
 * same name, with the path's parameters, then the body's bytes; its JSON answer parsed. `read`: a
 * raw read through Store.readJson, answered with exact integers, beside an `<id>Json` form
 * answering the bytes. `own`: the Store, or the feature's extension, writes the method itself.
 * null: no library method (a probe, a route of the server itself).
 */
export type LibraryCall = 'call' | 'read' | 'own' | null;

export interface RouteSpec {
  method: Method;
  /** Template such as `/collections/{name}/meta`. */
  path: string;
  access: Access;
  summary: string;
  /**
   * `raw`: the bytes go to the core (or the feature) as they are, which parses and validates them
   * against `request` (test/http/schema_drift.test.ts holds the two together). `json`: parsed and
   * validated against `request` before any handler runs. Absent: any body is ignored.
   */
  body?: 'raw' | 'json';
  /** The body's schema: a reference to one of the components. */
  request?: JsonSchema;
  /** The body may be left out (it then reads as `{}`). */
  requestOptional?: true;
  /** The library and client take the body as this one field's value (`putAlias(name, target)` sends `{target}`). */
  wrap?: string;
  responses: Record<number, Answer>;
  /** Error statuses beyond the access class's (502: a provider it calls failed). */
  errors?: readonly number[];
  library: LibraryCall;
  /** `own`: the client writes the method itself; false: no client method. Absent: generated. */
  client?: 'own' | false;
  /** The answer is text (`ok`, the metrics exposition), not JSON. */
  text?: true;
  /** The build feature whose routes these are. */
  feature?: string;
  /** Answers for the whole process: a --namespaced server serves it without the tenant prefix. */
  global?: true;
}

declare const typed: unique symbol;
/** What a route's body and answer are in TypeScript, carried on its table entry for the generated methods. */
export interface Typed<Body, Result> {
  readonly [typed]?: { body: Body; result: Result };
}
/** The answer of a ranked route: the hits, or `{hits, plan}` when the body asked for the plan. */
export interface Ranked {
  readonly ranked: true;
}

const op =
  <Body = never, Result = unknown>() =>
  <const S extends RouteSpec>(spec: S): S & Typed<Body, Result> =>
    spec;

const answers = (description: string, schema: JsonSchema) => ({ 200: { description, schema } });
const OK = answers('Done', ref('Ok'));
const COLLECTION = '/collections/{name}';
const OK_TEXT = { 'text/plain; charset=utf-8': { const: 'ok' } };
const POISONED = {
  description: 'The store lock was poisoned by a failure during a write; a restart is required',
  schema: closed({ status: { const: 'poisoned' }, error: STRING }, ['status', 'error']),
};
/** Prometheus text format 0.0.4, as the spec names it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4';
const ERROR = ref('Error');
const RPC_FAILURE = { description: 'Refused by the MCP transport', schema: ref('RpcError') };
const UNKNOWN_SESSION = { description: 'Unknown session (a build without feature mcp: no such route)', schema: { anyOf: [ref('RpcError'), ERROR] } };

/** A ranked read (/search and its kin): a raw body the core reads; `rerank` calls the rerank provider, whose failure is a 502. */
const rankedRead = <Body, Result = Ranked, L extends 'read' | 'own' = 'read'>(
  path: string,
  summary: string,
  request: string,
  { answer = 'RankedHits', rerank = true, library }: { answer?: string; rerank?: boolean; library?: L } = {},
) =>
  op<Body, Result>()({
    method: 'POST',
    path,
    access: 'read',
    summary,
    body: 'raw',
    request: ref(request),
    responses: answers('Hits by score descending, then collection, then id', ref(answer)),
    ...(rerank ? { errors: [502] as const } : {}),
    library: (library ?? 'read') as L,
  });

export const ROUTES = {
  health: op<never, string>()({
    method: 'GET',
    path: '/health',
    access: 'probe',
    summary: 'Liveness (no token ever)',
    responses: { 200: { description: 'Live', content: OK_TEXT }, 503: POISONED },
    library: null,
    text: true,
  }),
  ready: op<never, string>()({
    method: 'GET',
    path: '/ready',
    access: 'probe',
    summary: 'Readiness: whether the instance can serve (no token ever)',
    responses: {
      200: { description: 'Ready', content: OK_TEXT },
      503: { ...POISONED, description: 'Not ready: no store yet, stale past --max-staleness, or poisoned', schema: { anyOf: [ERROR, POISONED.schema] } },
    },
    library: null,
    text: true,
  }),
  metrics: op<never, string>()({
    method: 'GET',
    path: '/metrics',
    access: 'probe',
    summary: 'Prometheus scrape (no token ever)',
    responses: { 200: { description: 'Text exposition format 0.0.4', content: { [METRICS_CONTENT_TYPE]: STRING } } },
    library: null,
    text: true,
  }),
  openApi: op<never, Record<string, unknown>>()({
    method: 'GET',
    path: '/openapi.json',
    access: 'read',
    summary: 'This API description (OpenAPI 3.1)',
    responses: answers('The OpenAPI document', {
      type: 'object',
      properties: { openapi: { const: '3.1.0' }, paths: { type: 'object' } },
      required: ['openapi', 'paths'],
    }),
    library: null,
    global: true,
  }),
  namespaces: op<never, NamespaceEntry[]>()({
    method: 'GET',
    path: '/namespaces',
    access: 'read',
    summary: 'The tenant stores of a --namespaced root (mounted on no other server)',
    responses: answers('The namespaces open now', listOf(ref('NamespaceEntry'))),
    library: null,
    global: true,
  }),
  stats: op<never, Stats>()({
    method: 'GET',
    path: '/stats',
    access: 'read',
    summary: 'Store statistics',
    responses: answers('The statistics', ref('Stats')),
    library: 'own',
  }),
  cluster: op<never, ClusterStatus>()({
    method: 'GET',
    path: '/cluster',
    access: 'read',
    summary: 'Role and currency',
    responses: answers('The cluster status', ref('ClusterStatus')),
    library: 'own',
  }),
  versions: op<never, Versions>()({
    method: 'GET',
    path: '/versions',
    access: 'read',
    summary: 'The commit-version landscape',
    responses: answers('The versions', ref('Versions')),
    library: 'call',
  }),
  // Backups read the store only: a --read-only server makes them too. Judged on --write-timeout, as long work.
  createBackup: op<{ name?: string }, BackupCreated>()({
    method: 'POST',
    path: '/backups',
    access: 'read',
    summary: 'Back up the state at the current commit version to the --backup-to target, copying only what it lacks',
    body: 'raw',
    request: ref('BackupRequest'),
    requestOptional: true,
    errors: [409, 502, 503, 507],
    responses: answers('The backup, complete', ref('BackupCreated')),
    library: 'own',
  }),
  listBackups: op<never, BackupEntry[]>()({
    method: 'GET',
    path: '/backups',
    access: 'read',
    summary: 'The complete backups in the --backup-to target, oldest first',
    errors: [502],
    responses: answers('The backups', listOf(ref('BackupEntry'))),
    library: 'own',
  }),
  deleteBackup: op<never, BackupDeleted>()({
    method: 'DELETE',
    path: '/backups/{name}',
    access: 'read',
    summary: 'Delete a backup and every file no other backup names',
    errors: [409, 502],
    responses: answers('Deleted', ref('BackupDeleted')),
    library: 'own',
  }),
  collections: op<never, string[]>()({
    method: 'GET',
    path: '/collections',
    access: 'read',
    summary: 'Names of the concrete collections (aliases excluded)',
    responses: answers('The names', listOf(STRING)),
    library: 'call',
  }),
  createCollection: op<never, { created: string }>()({
    method: 'POST',
    path: COLLECTION,
    access: 'write',
    summary: 'Create an empty collection (upsert also creates one)',
    responses: answers('Created', closed({ created: STRING }, ['created'])),
    library: 'call',
  }),
  dropCollection: op<never, { dropped: string }>()({
    method: 'DELETE',
    path: COLLECTION,
    access: 'write',
    summary: 'Drop a collection',
    responses: answers('Dropped', closed({ dropped: STRING }, ['dropped'])),
    library: 'call',
  }),
  getMeta: op<never, Record<string, string>>()({
    method: 'GET',
    path: `${COLLECTION}/meta`,
    access: 'read',
    summary: "A collection's metadata",
    responses: answers('The metadata', ref('Metadata')),
    library: 'call',
  }),
  putMeta: op<Record<string, string>, { ok: true }>()({
    method: 'PUT',
    path: `${COLLECTION}/meta`,
    access: 'write',
    summary: "Replace a collection's metadata wholesale",
    body: 'json',
    request: ref('Metadata'),
    responses: OK,
    library: 'call',
  }),
  setVectorNames: op<string[], { ok: true }>()({
    method: 'POST',
    path: `${COLLECTION}/vector-names`,
    access: 'write',
    summary: "Declare a collection's named vectors, replacing the set",
    body: 'json',
    request: ref('VectorNamesRequest'),
    wrap: 'names',
    responses: OK,
    library: 'call',
  }),
  setFilterIndex: op<FilterIndexEntry[], { ok: true }>()({
    method: 'POST',
    path: `${COLLECTION}/filter-index`,
    access: 'write',
    summary: "Declare a collection's filter-indexed fields (speed only, never results)",
    body: 'raw',
    request: ref('FilterIndexRequest'),
    wrap: 'fields',
    responses: OK,
    library: 'call',
  }),
  setFtsSchema: op<FtsFieldEntry[], { ok: true }>()({
    method: 'POST',
    path: `${COLLECTION}/fts-schema`,
    access: 'write',
    summary: "Declare a collection's full-text fields (stored documents are indexed at once)",
    body: 'raw',
    request: ref('FtsSchemaRequest'),
    wrap: 'fields',
    responses: OK,
    library: 'call',
  }),
  aliases: op<never, Record<string, string>>()({
    method: 'GET',
    path: '/aliases',
    access: 'read',
    summary: 'Every alias and its collection',
    responses: answers('Alias -> collection', { type: 'object', additionalProperties: STRING }),
    library: 'call',
  }),
  putAlias: op<string, { alias: string; target: string }>()({
    method: 'PUT',
    path: '/aliases/{name}',
    access: 'write',
    summary: 'Point an alias at a collection',
    body: 'json',
    request: ref('AliasRequest'),
    wrap: 'target',
    responses: answers('Pointed', closed({ alias: STRING, target: STRING }, ['alias', 'target'])),
    library: 'call',
  }),
  dropAlias: op<never, { dropped: string }>()({
    method: 'DELETE',
    path: '/aliases/{name}',
    access: 'write',
    summary: 'Drop an alias (its collection stays)',
    responses: answers('Dropped', closed({ dropped: STRING }, ['dropped'])),
    library: 'call',
  }),
  upsert: op<{ records: RecordInput[] }, { upserted: number }>()({
    method: 'POST',
    path: `${COLLECTION}/upsert`,
    access: 'write',
    summary: 'Insert or overwrite records by id (all or nothing; creates the collection; durable when answered)',
    body: 'raw',
    request: ref('UpsertRequest'),
    responses: answers('Rows written', closed({ upserted: { type: 'integer', minimum: 0 } }, ['upserted'])),
    library: 'call',
  }),
  delete: op<{ ids?: string[]; filter?: Filter }, { deleted: number }>()({
    method: 'POST',
    path: `${COLLECTION}/delete`,
    access: 'write',
    summary: 'Delete records by ids or by filter (the filter wins when both are sent)',
    body: 'raw',
    request: ref('DeleteRequest'),
    responses: answers('Rows deleted', closed({ deleted: { type: 'integer', minimum: 0 } }, ['deleted'])),
    library: 'call',
  }),
  records: op<never, StoredRecord[]>()({
    method: 'GET',
    path: `${COLLECTION}/records`,
    access: 'read',
    summary: 'Every live record of a collection (no paging; /list pages)',
    responses: answers('The records', listOf(ref('StoredRecord'))),
    library: 'own',
  }),
  // A Float32Array query travels beside the body as floats: the Store writes this one itself.
  search: rankedRead<SearchRequest, Ranked, 'own'>('/search', 'Nearest-neighbour search', 'SearchRequest', { library: 'own' }),
  searchSimilar: rankedRead<SimilarRequest>('/search/similar', "Search with a stored record's vector (the record itself excluded)", 'SimilarRequest', {
    rerank: false,
  }),
  searchBatch: op<BatchRequest, BatchResponse>()({
    method: 'POST',
    path: '/search/batch',
    access: 'read',
    summary: '1 to 16 searches validated together, optionally fused with RRF',
    body: 'raw',
    request: ref('BatchRequest'),
    responses: answers('One ranking per query in order, or the fused ranking', ref('BatchResponse')),
    library: 'read',
  }),
  textSearch: rankedRead<TextSearchRequest, Hit[]>('/text-search', 'BM25 search of declared full-text fields', 'TextSearchRequest', { answer: 'Hits' }),
  hybridSearch: rankedRead<HybridSearchRequest>('/hybrid-search', 'A vector and a BM25 query fused with RRF', 'HybridSearchRequest'),
  suggest: op<SuggestRequest, SuggestResult>()({
    method: 'POST',
    path: '/suggest',
    access: 'read',
    summary: "Ranked completions from one field's full-text vocabulary",
    body: 'raw',
    request: ref('SuggestRequest'),
    responses: answers('Completions by df descending, then term', ref('SuggestResult')),
    library: 'read',
  }),
  list: op<ListRequest, Hit[]>()({
    method: 'POST',
    path: '/list',
    access: 'read',
    summary: 'Metadata-only listing: filtered records with score 0, optionally ordered, paged',
    body: 'raw',
    request: ref('ListRequest'),
    requestOptional: true,
    responses: answers('The page', ref('Hits')),
    library: 'read',
  }),
  aggregate: op<AggregateRequest, AggregateResult>()({
    method: 'POST',
    path: '/aggregate',
    access: 'read',
    summary: 'Count, sums and groups over the filtered records',
    body: 'raw',
    request: ref('AggregateRequest'),
    requestOptional: true,
    responses: answers('The aggregation', ref('AggregateResult')),
    library: 'read',
  }),
  flush: op<never, { ok: true }>()({
    method: 'POST',
    path: '/flush',
    access: 'write',
    summary: 'Seal buffered writes into segment files and empty the write-ahead log',
    responses: OK,
    library: 'call',
  }),
  compact: op<{ expired?: boolean }, { ok: true }>()({
    method: 'POST',
    path: '/compact',
    access: 'write',
    summary: 'Reclaim dead rows (with expired: true, first delete expired entries)',
    body: 'raw',
    request: ref('CompactRequest'),
    requestOptional: true,
    responses: OK,
    library: 'call',
  }),
  refresh: op<never, { adopted: boolean }>()({
    method: 'POST',
    path: '/refresh',
    access: 'read',
    summary: 'Adopt newer committed state (a read-only instance)',
    responses: answers('Whether the served state moved forward', closed({ adopted: BOOLEAN }, ['adopted'])),
    library: 'own',
  }),
  query: op<never, unknown>()({
    method: 'POST',
    path: '/query',
    access: 'read',
    summary: 'SQL-shaped reads compiled to the typed routes',
    body: 'raw',
    request: ref('QueryRequest'),
    // A statement's OPTIONS may rerank, calling the rerank provider.
    errors: [502],
    responses: answers("A single statement's answer (byte-identical to its typed route's), or a script's answers in order", {
      anyOf: [ref('StatementAnswer'), listOf(ref('StatementAnswer'))],
    }),
    library: 'own',
    client: 'own',
  }),
  codeSearch: op<CodeSearchRequest, CodeSearchResponse>()({
    method: 'POST',
    path: '/code-search',
    access: 'read',
    summary: 'Search a code corpus, grouped by file',
    body: 'raw',
    request: ref('CodeSearchRequest'),
    errors: [502],
    responses: answers('Files and their symbols by descending best score', ref('CodeSearchResult')),
    library: 'own',
    feature: 'code',
  }),
  remember: op<RememberRequest, RememberResponse>()({
    method: 'POST',
    path: `${COLLECTION}/remember`,
    access: 'write',
    summary: 'Embed text (optionally summarized or chunked) and upsert it',
    body: 'raw',
    request: ref('RememberRequest'),
    errors: [502],
    responses: answers('Written', ref('Remembered')),
    library: 'own',
    feature: 'memory',
  }),
  recall: op<RecallRequest, Hit[]>()({
    method: 'POST',
    path: `${COLLECTION}/recall`,
    // A reinforced recall is a write (the route says so once its body is read).
    access: 'read',
    summary: 'Embed a query and search the collection (never an expired entry)',
    body: 'raw',
    request: ref('RecallRequest'),
    errors: [502],
    responses: answers('The hits (with context when rollup is set)', ref('Hits')),
    library: 'own',
    feature: 'memory',
  }),
  mcpPost: {
    method: 'POST',
    path: '/mcp',
    access: 'read',
    summary: 'Send an MCP JSON-RPC message (initialize first; then Mcp-Session-Id)',
    body: 'raw',
    request: ref('RpcMessages'),
    responses: {
      200: { description: 'The answer, as JSON or as an event stream', schema: ref('RpcMessages'), content: { 'text/event-stream': STRING } },
      202: { description: 'A notification or response accepted' },
      400: { description: 'Refused by the MCP transport, or by the server', schema: { anyOf: [ref('RpcError'), ERROR] } },
      404: UNKNOWN_SESSION,
      406: RPC_FAILURE,
      415: RPC_FAILURE,
    },
    library: null,
    client: false,
    feature: 'mcp',
  },
  mcpGet: {
    method: 'GET',
    path: '/mcp',
    access: 'read',
    summary: "The session's server-to-client event stream",
    responses: {
      200: { description: 'Server-sent events', content: { 'text/event-stream': STRING } },
      400: { description: 'No session id', schema: ref('RpcError') },
      404: UNKNOWN_SESSION,
      406: RPC_FAILURE,
      409: { description: 'The session already has a stream open', schema: ref('RpcError') },
    },
    library: null,
    client: false,
    feature: 'mcp',
  },
  mcpDelete: {
    method: 'DELETE',
    path: '/mcp',
    access: 'read',
    summary: 'End the session',
    responses: { 200: { description: 'Ended' }, 400: { description: 'No session id', schema: ref('RpcError') }, 404: UNKNOWN_SESSION },
    library: null,
    client: false,
    feature: 'mcp',
  },
} as const satisfies Record<string, RouteSpec>;

export type Routes = typeof ROUTES;
export type OperationId = keyof Routes;

/** The routes whose library method the Store generates (`call`), or reads through readJson (`read`). */
export type LibraryRoutes<Kind extends LibraryCall> = { [K in OperationId]: Routes[K]['library'] extends Kind ? K : never }[OperationId];

/** The ranked reads that take `rerank` (read in two phases: lib/features/rerank). */
export type RerankedRead = 'search' | 'textSearch' | 'hybridSearch';

/** The names of a path's `{param}` segments, in order. */
export const paramNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** A generated method's arguments: the path's parameters, then the body when the route takes one, then the options. */
export interface RouteArgs<O> {
  params: string[];
  /** Bytes as they are; a value in its wrapping field when the route has one; `{}` for an optional body left out. */
  body: object | Uint8Array | undefined;
  options: O | undefined;
}

/** Each template's count of `{param}` segments, counted once. */
const paramCounts = new Map<string, number>();

/** A generated method's arguments (the Store's, the client's) told apart by the route's entry. */
export function routeArgs<O>(spec: RouteSpec, args: readonly unknown[]): RouteArgs<O> {
  let count = paramCounts.get(spec.path);
  if (count === undefined) {
    count = paramNames(spec.path).length;
    paramCounts.set(spec.path, count);
  }
  const takesBody = spec.body !== undefined;
  let body = takesBody ? args[count] : undefined;
  if (body === undefined && spec.requestOptional) body = {};
  else if (body !== undefined && !(body instanceof Uint8Array) && spec.wrap) body = { [spec.wrap]: body };
  return {
    params: args.slice(0, count) as string[],
    body: body as object | Uint8Array | undefined,
    options: args[count + (takesBody ? 1 : 0)] as O | undefined,
  };
}

/** The table's entries, each with its operation id. */
export const routeEntries = (): [OperationId, RouteSpec][] => Object.entries(ROUTES) as [OperationId, RouteSpec][];

// What the generated methods take and answer, by a route's table entry.

/** A string for each `{param}` of a path template. */
export type PathArgs<P extends string> = P extends `${string}{${string}}${infer Rest}` ? [string, ...PathArgs<Rest>] : [];
type BodyOf<S> = S extends Typed<infer B, unknown> ? B : never;
type ResultOf<S, B> = S extends Typed<unknown, infer R> ? (R extends Ranked ? (B extends { plan: true } ? PlannedHits : Hit[]) : R) : never;

/** The method a route's table entry makes: the path's parameters, the body when it has one (or its bytes), then `O`. */
export type RouteMethod<S extends RouteSpec, O> = S extends { body: 'raw' | 'json' }
  ? S extends { requestOptional: true }
    ? <B extends BodyOf<S>>(...args: [...PathArgs<S['path']>, body?: B | Uint8Array, options?: O]) => Promise<ResultOf<S, B>>
    : <B extends BodyOf<S>>(...args: [...PathArgs<S['path']>, body: B | Uint8Array, options?: O]) => Promise<ResultOf<S, B>>
  : (...args: [...PathArgs<S['path']>, options?: O]) => Promise<ResultOf<S, never>>;
