// The spec's wire shapes as JSON Schema (2020-12), written once: the API description's
// `components.schemas`, which the route descriptions reference with $ref. They describe the bodies
// the core (and the library's memory, code and rerank features) parse and write; the bodies
// TypeScript checks itself describe themselves (lib/http/schema.ts). Int64 values are JSON
// integers (`format: int64`).
/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), as a plain JSON object. */
export type JsonSchema = { [keyword: string]: unknown };

/** A reference to one of COMPONENTS. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** An object with exactly these properties, the `required` ones among them. */
export const closed = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: false,
});

/** The schema, or JSON null (which the parsers read as the field left out). */
export const orNull = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

export const listOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

export const STRING: JsonSchema = { type: 'string' };
export const BOOLEAN: JsonSchema = { type: 'boolean' };
export const NUMBER: JsonSchema = { type: 'number' };
/** A count or size that fits a double exactly. */
export const COUNT: JsonSchema = { type: 'integer', minimum: 0 };
const INT64: JsonSchema = { type: 'integer', format: 'int64' };
const STRINGS = listOf(STRING);
/** A positive number of seconds, at most 1e11 (about 3,000 years). */
const SECONDS: JsonSchema = { type: 'number', exclusiveMinimum: 0, maximum: 1e11 };
const VECTOR: JsonSchema = { ...listOf(NUMBER), description: 'As many numbers as the store dimension' };

const noted = (schema: JsonSchema, annotations: JsonSchema): JsonSchema => ({ ...schema, ...annotations });

/** A single-key object `{name: value}`, the spec's spelling of a tagged variant. */
const tagged = (name: string, value: JsonSchema): JsonSchema => closed({ [name]: value }, [name]);

/** A fixed-length argument array. */
const args = (...items: JsonSchema[]): JsonSchema => ({ type: 'array', prefixItems: items, items: false, minItems: items.length });

const VALUE_ARG = args(STRING, ref('Value'));
const VALUES_ARG = args(STRING, listOf(ref('Value')));
const TEXT_ARG = args(STRING, STRING);

const PREDICATES: [string, JsonSchema][] = [
  ...['Eq', 'Ne', 'Lt', 'Le', 'Gt', 'Ge', 'Contains', 'NotContains'].map((n): [string, JsonSchema] => [n, VALUE_ARG]),
  ...['In', 'NotIn', 'ContainsAny'].map((n): [string, JsonSchema] => [n, VALUES_ARG]),
  ...['Glob', 'IGlob', 'Regex', 'ContainsAllTokens', 'ContainsAnyToken', 'ContainsTokenSequence'].map((n): [string, JsonSchema] => [n, TEXT_ARG]),
  ['Fuzzy', args(STRING, STRING, { type: 'integer', minimum: 0, maximum: 8 })],
  ['All', listOf(ref('Predicate'))],
  ['Any', listOf(ref('Predicate'))],
  ['Not', ref('Predicate')],
];

/** Fields every ranked route (/search, /search/similar, /text-search, /hybrid-search) takes. */
const RANKED = {
  scope: noted(STRINGS, { description: 'Collections (or aliases) searched; empty or absent: every collection' }),
  top_k: noted(COUNT, { maximum: 10000, default: 10 }),
  offset: noted(COUNT, { maximum: 10000, default: 0, description: 'offset + top_k is at most 10000' }),
  filter: ref('Filter'),
  include_attributes: STRINGS,
  exclude_attributes: STRINGS,
  limit_per: orNull(ref('LimitPer')),
  diversity: orNull(noted(NUMBER, { minimum: 0, maximum: 1, description: 'MMR lambda: 1.0 pure relevance, 0.0 pure variety' })),
  expand: orNull(ref('Expand')),
};
/** /search, /search/similar and /text-search also take these. */
const SCORED = { min_score: orNull(NUMBER), rank_by: orNull(ref('RankBy')) };
const EXACT = { exact: noted(BOOLEAN, { default: false, description: 'Bypass ANN, per-segment indexes and the quantized pass' }) };
const PLAN = { plan: noted(BOOLEAN, { default: false, description: 'Answer {hits, plan} instead of the bare hit array' }) };
const RERANK = { rerank: orNull(ref('Rerank')) };
const NAMED_VECTORS = {
  names: noted(STRINGS, { description: 'Named vectors to score (declared with vector-names); empty: the default vector' }),
  name_weights: { type: 'object', additionalProperties: NUMBER },
  pool: { enum: ['Max', 'Sum'], default: 'Max' },
};
/** The text leg of /text-search and /hybrid-search (its query field is `query` or `text`). */
const textLeg = (queryField: string) => ({
  field: STRING,
  [queryField]: STRING,
  prefix: noted(BOOLEAN, { default: false }),
  clauses: { ...listOf(ref('TextClause')), minItems: 1 },
  combine: { enum: ['Sum', 'Max'], default: 'Sum' },
  explain: noted(BOOLEAN, { default: false }),
  highlight: orNull(ref('Highlight')),
});

const RANK_PAIR = closed({ rank: COUNT, score: NUMBER }, ['rank', 'score']);
const IDS = noted(STRINGS, { description: 'Record ids' });

/** Every shared schema, by name. */
export const COMPONENTS: Record<string, JsonSchema> = {
  Value: {
    description: 'A tagged attribute value; Int and DateTime are signed 64-bit integers (DateTime: UTC epoch milliseconds)',
    oneOf: [
      tagged('Str', STRING),
      tagged('Int', INT64),
      tagged('Bool', BOOLEAN),
      tagged('List', STRINGS),
      tagged('Float', NUMBER),
      tagged('DateTime', INT64),
      { const: 'Null' },
    ],
  },
  Attrs: { type: 'object', additionalProperties: ref('Value') },
  Predicate: {
    description: 'A single-key object naming the variant, its arguments as an array (key first)',
    oneOf: PREDICATES.map(([name, a]) => tagged(name, a)),
  },
  Filter: noted(listOf(ref('Predicate')), { description: 'Predicates, AND-combined; empty matches everything' }),

  RecordInput: closed(
    { id: { type: 'string', minLength: 1 }, vector: orNull(VECTOR), vectors: { type: 'object', additionalProperties: VECTOR }, attrs: ref('Attrs') },
    ['id'],
  ),
  StoredRecord: closed({ id: STRING, vector: orNull(listOf(NUMBER)), vectors: { type: 'object', additionalProperties: listOf(NUMBER) }, attrs: ref('Attrs') }, [
    'id',
    'vector',
    'attrs',
  ]),
  Hit: closed(
    {
      collection: STRING,
      id: STRING,
      score: noted(NUMBER, { description: 'Higher is more relevant; 0 on /list' }),
      attrs: ref('Attrs'),
      annotations: ref('Annotations'),
      context: noted(STRING, { description: 'Only with expand or rollup' }),
    },
    ['collection', 'id', 'score', 'attrs'],
  ),
  Hits: listOf(ref('Hit')),
  Annotations: closed({
    vector: RANK_PAIR,
    text: RANK_PAIR,
    clauses: listOf(closed({ field: STRING, score: NUMBER, expansion: closed({ matched: COUNT, scored: COUNT }, ['matched', 'scored']) }, ['field', 'score'])),
    highlights: listOf(
      closed(
        {
          field: STRING,
          fragments: listOf(
            closed({ text: STRING, spans: listOf({ ...args(COUNT, COUNT), description: '[start, end) byte offsets into text' }) }, ['text', 'spans']),
          ),
        },
        ['field', 'fragments'],
      ),
    ),
  }),
  QueryPlan: closed(
    {
      path: { enum: ['ann', 'ann_prefilter_fallback', 'segmented', 'quantized', 'exact'] },
      rows_scanned: COUNT,
      rows_rescored: noted(COUNT, { description: 'Rows a quantized pass or walk read in f32 to rescore; present when one ran' }),
      candidates: closed(
        Object.fromEntries(['surfaced', 'survived', 'dropped_out_of_scope', 'dropped_stale', 'dropped_filtered', 'dropped_min_score'].map((k) => [k, COUNT])),
        ['surfaced', 'survived', 'dropped_out_of_scope', 'dropped_stale', 'dropped_filtered', 'dropped_min_score'],
      ),
      narrowing: closed({ state: { enum: ['inactive', 'declined', 'narrowed'] }, candidates: COUNT }, ['state']),
      timings: noted(
        closed(
          Object.fromEntries(['narrow_us', 'gather_us', 'walk_us', 'resolve_us', 'first_pass_us', 'rescore_us', 'score_us', 'total_us'].map((k) => [k, COUNT])),
          ['total_us'],
        ),
        { description: 'Microseconds per phase the path ran' },
      ),
    },
    ['path', 'narrowing', 'timings'],
  ),
  PlannedHits: closed({ hits: ref('Hits'), plan: ref('QueryPlan') }, ['hits', 'plan']),
  RankedHits: { description: 'The hits, or {hits, plan} when the request sent plan: true', anyOf: [ref('Hits'), ref('PlannedHits')] },

  LimitPer: closed({ field: { type: 'string', minLength: 1 }, max: { type: 'integer', minimum: 1 }, missing: { enum: ['shared', 'own'], default: 'shared' } }, [
    'field',
    'max',
  ]),
  RankBy: tagged(
    'Decay',
    closed(
      {
        field: noted(STRING, { description: 'DateTime or Int attribute (epoch ms); may be empty when only the count term is wanted' }),
        origin: noted(INT64, { description: '"Now" in epoch milliseconds' }),
        scale: noted(NUMBER, { exclusiveMinimum: 0, default: 604800000 }),
        decay: noted(NUMBER, { exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.5 }),
        lambda: noted(NUMBER, { minimum: 0, default: 1 }),
        missing: noted(NUMBER, { minimum: 0, maximum: 1, default: 1 }),
        count_field: STRING,
        count_scale: noted(NUMBER, { default: 10 }),
        count_lambda: noted(NUMBER, { minimum: 0, default: 1 }),
      },
      ['field', 'origin'],
    ),
  ),
  Expand: closed({
    radius: noted(COUNT, { maximum: 100, default: 0 }),
    parent_field: { type: 'string', minLength: 1, default: 'svc.parent_id' },
    index_field: { type: 'string', minLength: 1, default: 'svc.chunk_index' },
    text_field: { type: 'string', minLength: 1, default: 'svc.text' },
  }),
  Rerank: closed({
    query: noted(STRING, { description: 'Required on /search, /hybrid-search and /text-search with clauses' }),
    overscan: { type: 'integer', minimum: 1, maximum: 10000, default: 10 },
    text_attr: { type: 'string', minLength: 1, default: 'svc.text' },
  }),
  Highlight: closed({
    max_fragments: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
    fragment_chars: { type: 'integer', minimum: 1, maximum: 10000, default: 160 },
  }),
  TextClause: closed({ field: { type: 'string', minLength: 1 }, query: STRING, prefix: noted(BOOLEAN, { default: false }) }, ['field', 'query']),

  SearchRequest: closed({ query: VECTOR, ...RANKED, ...SCORED, ...EXACT, ...PLAN, ...RERANK, ...NAMED_VECTORS }, ['query']),
  SimilarRequest: closed({ collection: { type: 'string', minLength: 1 }, id: { type: 'string', minLength: 1 }, ...RANKED, ...SCORED, ...EXACT, ...PLAN }, [
    'collection',
    'id',
  ]),
  BatchRequest: closed(
    {
      queries: { type: 'array', items: closed({ query: VECTOR, ...RANKED, ...SCORED, ...EXACT, ...NAMED_VECTORS }, ['query']), minItems: 1, maxItems: 16 },
      fuse: orNull(
        closed({
          rrf_k: noted(NUMBER, { minimum: 0, default: 60 }),
          weights: noted(listOf({ type: 'number', minimum: 0 }), { description: 'Empty, or one weight per query' }),
          top_k: noted(COUNT, { maximum: 10000, default: 10 }),
        }),
      ),
    },
    ['queries'],
  ),
  BatchResponse: { anyOf: [closed({ results: listOf(ref('Hits')) }, ['results']), closed({ fused: ref('Hits') }, ['fused'])] },
  TextSearchRequest: closed({ ...textLeg('query'), ...RANKED, ...SCORED, ...RERANK }),
  HybridSearchRequest: closed(
    {
      vector: VECTOR,
      ...textLeg('text'),
      ...RANKED,
      ...PLAN,
      ...RERANK,
      rrf_k: noted(NUMBER, { minimum: 0, default: 60 }),
      candidates: { type: 'integer', minimum: 1, maximum: 10000, default: 100 },
      vector_weight: noted(NUMBER, { minimum: 0, default: 1 }),
      text_weight: noted(NUMBER, { minimum: 0, default: 1 }),
    },
    ['vector'],
  ),
  SuggestRequest: closed(
    {
      field: { type: 'string', minLength: 1 },
      prefix: STRING,
      scope: STRINGS,
      filter: ref('Filter'),
      limit: noted(COUNT, { maximum: 10000, default: 10 }),
      fuzzy: noted(BOOLEAN, { default: true }),
    },
    ['field', 'prefix'],
  ),
  SuggestResult: closed({ suggestions: listOf(closed({ term: STRING, df: COUNT }, ['term', 'df'])), matched: COUNT }, ['suggestions', 'matched']),
  ListRequest: closed({
    scope: STRINGS,
    filter: ref('Filter'),
    offset: noted(COUNT, { default: 0 }),
    limit: noted(COUNT, { maximum: 10000, default: 100 }),
    include_attributes: STRINGS,
    exclude_attributes: STRINGS,
    order_by: orNull(closed({ field: { type: 'string', minLength: 1 }, descending: noted(BOOLEAN, { default: false }) }, ['field'])),
  }),
  AggregateRequest: closed({ scope: STRINGS, filter: ref('Filter'), sum: STRINGS, group_by: orNull(STRING) }),
  AggregateResult: closed(
    {
      count: COUNT,
      sums: ref('Attrs'),
      groups: listOf(
        closed({ value: noted(orNull(ref('Value')), { description: 'null: the records missing the attribute' }), count: COUNT, sums: ref('Attrs') }, [
          'value',
          'count',
          'sums',
        ]),
      ),
      groups_truncated: BOOLEAN,
    },
    ['count', 'sums'],
  ),

  UpsertRequest: closed({ records: listOf(ref('RecordInput')) }, ['records']),
  DeleteRequest: {
    ...closed({ ids: IDS, filter: orNull(ref('Filter')) }),
    minProperties: 1,
    description: 'By ids or by filter; the filter wins when both are sent',
  },
  FtsField: {
    anyOf: [
      STRING,
      closed(
        {
          field: { type: 'string', minLength: 1 },
          k1: { type: 'number', minimum: 0, maximum: 1000, default: 1.2 },
          b: { type: 'number', minimum: 0, maximum: 1, default: 0.75 },
          language: { const: 'english', default: 'english' },
          ascii_folding: noted(BOOLEAN, { default: false }),
          max_token_len: orNull({ type: 'integer', minimum: 1 }),
        },
        ['field'],
      ),
    ],
  },
  FtsSchemaRequest: closed({ fields: noted(listOf(ref('FtsField')), { description: 'Empty drops the schema' }) }, ['fields']),
  FilterIndexEntry: {
    anyOf: [
      STRING,
      closed({ field: { type: 'string', minLength: 1 }, tokens: noted(BOOLEAN, { default: true }), trigrams: noted(BOOLEAN, { default: true }) }, ['field']),
    ],
  },
  FilterIndexRequest: closed({ fields: noted(listOf(ref('FilterIndexEntry')), { description: 'Empty drops the declaration' }) }, ['fields']),
  CompactRequest: closed({ expired: noted(BOOLEAN, { default: false, description: 'First delete every entry whose svc.expires_at has passed' }) }),

  AnnConfig: {
    oneOf: [
      closed({ kind: { const: 'Hnsw' }, m: COUNT, ef_construction: COUNT, ef_search: COUNT, overscan: COUNT, seed: COUNT }, [
        'kind',
        'm',
        'ef_construction',
        'ef_search',
        'overscan',
        'seed',
      ]),
      closed({ kind: { const: 'Ivf' }, n_lists: COUNT, n_probe: COUNT, overscan: COUNT, seed: COUNT }, ['kind', 'n_lists', 'n_probe', 'overscan', 'seed']),
    ],
  },
  Stats: closed(
    {
      dimension: COUNT,
      distance: { enum: ['Cosine', 'Euclidean', 'DotProduct'] },
      ann: noted(orNull(ref('AnnConfig')), {
        description: 'null: exact brute-force search. A new store on disk gets Hnsw (m 16, ef_construction 200, ef_search 64) unless started with --ann none',
      }),
      quantization: noted(orNull(closed({ kind: { enum: ['Int8', 'Binary'] }, rescore: COUNT }, ['kind', 'rescore'])), {
        description: 'null: no quantized first pass. A new store on disk gets Int8 with rescore 4 unless started with --quantization none',
      }),
      query_threads: COUNT,
      mmap: BOOLEAN,
      collections: STRINGS,
      footprint: closed(
        {
          rows: COUNT,
          dead_rows: COUNT,
          dimension: COUNT,
          vector_bytes: COUNT,
          doc_count: COUNT,
          segments: COUNT,
          code_bytes: noted(COUNT, { description: 'Quantized codes of the sealed segments (the first pass and the walk read them)' }),
          ann_index_bytes: noted(COUNT, { description: 'HNSW graphs or IVF lists of the sealed segments' }),
          id_index_bytes: noted(COUNT, { description: "Id indexes of the sealed segments (memory segments' ids are in the heap)" }),
          live_id_table_bytes: noted(COUNT, {
            description:
              "The table of live ids that upserts and deletes are applied through (a writer's, or a Reader's replaying the writer's log): 0 until the first of them since open maps it (16 bytes a slot, 32-64 a live id)",
          }),
          vector_bytes_read_from_files: noted(COUNT, {
            description:
              'Of vector_bytes, the sealed rows a rescore reads from their files rather than a map (past --mapped-vector-bytes): outside the resident set',
          }),
        },
        [
          'rows',
          'dead_rows',
          'dimension',
          'vector_bytes',
          'doc_count',
          'segments',
          'code_bytes',
          'ann_index_bytes',
          'id_index_bytes',
          'live_id_table_bytes',
          'vector_bytes_read_from_files',
        ],
      ),
      text_index_bytes: COUNT,
      kernels: noted(STRING, { description: 'SIMD kernel family in use' }),
      features: noted(STRINGS, { description: 'Build features of this package' }),
    },
    ['dimension', 'distance', 'ann', 'quantization', 'query_threads', 'mmap', 'collections', 'footprint', 'text_index_bytes', 'kernels', 'features'],
  ),
  Role: { enum: ['Writer', 'Reader', 'ClusterWriter', 'ClusterReader', 'InMemory'] },
  ClusterStatus: closed(
    {
      role: ref('Role'),
      cluster: BOOLEAN,
      holds_writer_handle: BOOLEAN,
      fenced: BOOLEAN,
      lease_owner: orNull(STRING),
      commit_version: COUNT,
      staleness_secs: COUNT,
      max_staleness_secs: orNull(COUNT),
    },
    ['role', 'cluster', 'holds_writer_handle', 'fenced', 'lease_owner', 'commit_version', 'staleness_secs', 'max_staleness_secs'],
  ),
  Versions: closed({ commit_version: COUNT, oldest_readable: orNull(COUNT), pinned: orNull(COUNT), readable: listOf(COUNT) }, [
    'commit_version',
    'oldest_readable',
    'pinned',
    'readable',
  ]),
  NamespaceEntry: closed({ name: STRING, bytes: COUNT, role: orNull(ref('Role')), fenced: orNull(BOOLEAN), staleness_secs: orNull(COUNT) }, [
    'name',
    'bytes',
    'role',
    'fenced',
    'staleness_secs',
  ]),

  RememberRequest: closed(
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
  ),
  Remembered: closed({ ok: { const: true }, upserted: COUNT, id: STRING, deduped: BOOLEAN }, ['ok', 'upserted', 'id', 'deduped']),
  RecallRequest: closed(
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
  ),
  CodeSearchRequest: closed(
    {
      collection: { type: 'string', minLength: 1 },
      query: { ...STRING, description: 'Natural-language text for vector search, or keywords for BM25' },
      limit: orNull({ ...COUNT, maximum: 10000, default: 10, description: 'Files at most' }),
      filter: orNull(ref('Filter')),
      vector: orNull({ ...BOOLEAN, description: 'true forces vector search, false BM25; absent lets the store decide' }),
    },
    ['collection', 'query'],
  ),
  CodeSearchResult: closed(
    {
      files: listOf(
        closed(
          {
            path: STRING,
            language: { ...orNull(STRING), description: 'null for markdown or generically chunked files' },
            symbols: listOf(
              closed({ symbol: orNull(STRING), kind: orNull(STRING), start_line: COUNT, end_line: COUNT, score: NUMBER }, [
                'symbol',
                'kind',
                'start_line',
                'end_line',
                'score',
              ]),
            ),
          },
          ['path', 'language', 'symbols'],
        ),
      ),
    },
    ['files'],
  ),
  QueryRequest: closed(
    {
      sql: noted(STRING, { description: "One or more ';'-separated SELECT statements (docs/sql.md)" }),
      compile_only: noted(BOOLEAN, { default: false, description: 'Answer the compiled form instead of running the statements' }),
    },
    ['sql'],
  ),
  /** What one statement answers: its typed route's answer, or with compile_only its compiled form (docs/sql.md §15). */
  StatementAnswer: {
    anyOf: [
      ref('RankedHits'),
      ref('AggregateResult'),
      closed(
        {
          kind: { enum: ['search', 'text-search', 'hybrid-search', 'list', 'aggregate'] },
          route: { enum: ['/search', '/text-search', '/hybrid-search', '/list', '/aggregate'] },
          collections: STRINGS,
          options: { type: 'object', description: "The route's fields, defaults filled in" },
        },
        ['kind', 'route', 'collections', 'options'],
      ),
    ],
  },
  /** A JSON-RPC error the MCP transport answers (tool schemas and the protocol itself: see the MCP specification). */
  RpcError: closed(
    {
      jsonrpc: { const: '2.0' },
      error: { type: 'object', properties: { code: { type: 'integer' }, message: STRING }, required: ['code', 'message'] },
      id: { type: ['string', 'integer', 'null'] },
    },
    ['jsonrpc', 'error'],
  ),
  RpcMessages: { type: ['object', 'array'], description: 'A JSON-RPC message, or a batch of them' },

  VectorNamesRequest: closed({ names: noted(STRINGS, { description: "Named vector fields; 'default' is refused; replaces the set" }) }, ['names']),
  AliasRequest: closed({ target: noted(STRING, { description: 'An existing concrete collection' }) }, ['target']),
  Ok: closed({ ok: { const: true } }, ['ok']),
  BackupRequest: closed({
    name: noted(STRING, {
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$',
      description: "The backup's name, unique in the target (default: the time and commit version)",
    }),
  }),
  BackupCreated: closed(
    {
      name: STRING,
      commit_version: COUNT,
      files: COUNT,
      bytes: noted(COUNT, { description: 'Bytes of every file the backup names' }),
      new_bytes: noted(COUNT, { description: 'Bytes this backup copied (the rest was in the target already)' }),
      seconds: NUMBER,
    },
    ['name', 'commit_version', 'files', 'bytes', 'new_bytes', 'seconds'],
  ),
  BackupEntry: closed({ name: STRING, commit_version: COUNT, created_at: noted(STRING, { format: 'date-time' }), files: COUNT, bytes: COUNT }, [
    'name',
    'commit_version',
    'created_at',
    'files',
    'bytes',
  ]),
  BackupDeleted: closed({ deleted: STRING, files: noted(COUNT, { description: 'Files no other backup names, removed' }), bytes: COUNT }, [
    'deleted',
    'files',
    'bytes',
  ]),
  Metadata: { type: 'object', additionalProperties: STRING, description: 'Free-form string keys and values' },
};
