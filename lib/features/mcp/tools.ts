// The MCP tools (spec, "/mcp"): each is one Store call, text in and JSON text out, never a vector.
// The zod schemas give types and descriptions; whether a required field is present, and every
// value rule, is judged by the Store, so a tool error carries exactly the message the HTTP route
// would answer.
import { z } from 'zod';
import { stringifyExact } from '../../exact_json';
import type { Store } from '../../store/store';
import { hasFeature } from '../built';
import type { CallOptions } from '../../store/cancellation';

/** JSON with Int values exact (the Store reads them as bigint). */
const json = (value: unknown): Uint8Array => stringifyExact(value);

const filter = z
  .array(z.record(z.string(), z.unknown()))
  .describe(
    'AND-combined predicates, each a single-key object with its arguments as an array, key first; values are tagged: ' +
      '[{"Eq": ["topic", {"Str": "billing"}]}, {"Gt": ["n", {"Int": 2}]}, {"ContainsAllTokens": ["svc.text", "refund"]}]. ' +
      'Variants: Eq Ne In NotIn Lt Le Gt Ge Glob IGlob Regex Contains NotContains ContainsAny Fuzzy ContainsAllTokens ContainsAnyToken ContainsTokenSequence All Any Not',
  );
const scope = z.array(z.string()).describe('collections (or aliases) to read; omitted: all collections');
const collection = z.string().describe('the collection name');
const topK = z.number().int().describe('hits to return (default 10)');
const attributes = z.array(z.string());
const projection = {
  include_attributes: attributes.describe('return only these attributes').optional(),
  exclude_attributes: attributes.describe('return every attribute but these (not with include_attributes)').optional(),
};
const rerank = z
  .object({
    query: z.string().optional(),
    overscan: z.number().int().optional(),
    text_attr: z.string().optional(),
  })
  .describe(
    're-score the best top_k x overscan (default 10) candidates with the server\'s cross-encoder (needs --rerank-provider); text read from text_attr (default "svc.text")',
  );
const expand = z
  .object({ radius: z.number().int().optional(), parent_field: z.string().optional(), index_field: z.string().optional(), text_field: z.string().optional() })
  .describe("add each chunk hit's text and `radius` neighbouring chunks as `context`");
const textLeg = {
  field: z.string().describe('the full-text field to search (with the query text); or send clauses').optional(),
  clauses: z
    .array(z.object({ field: z.string(), query: z.string(), prefix: z.boolean().optional() }))
    .describe('one {field, query, prefix?} per field searched, instead of field')
    .optional(),
  combine: z.enum(['Sum', 'Max']).describe('how matched clauses add up (default Sum)').optional(),
  prefix: z.boolean().describe('complete the last word as a prefix (default false)').optional(),
  explain: z.boolean().describe("report each clause's BM25 score in annotations").optional(),
  highlight: z
    .object({ max_fragments: z.number().int().optional(), fragment_chars: z.number().int().optional() })
    .describe('{} for highlighted fragments in annotations')
    .optional(),
};
const ranking = {
  offset: z.number().int().describe('hits to skip (paging)').optional(),
  filter: filter.optional(),
  expand: expand.optional(),
  limit_per: z.object({ field: z.string(), max: z.number().int() }).describe('at most `max` hits per value of `field`').optional(),
  diversity: z.number().describe('MMR lambda from 0 (diverse) to 1 (relevant)').optional(),
  rerank: rerank.optional(),
};

/** How a tool's call is answered: JSON bytes (the core's, exact) or a value stringified here. */
export interface Tool {
  name: string;
  description: string;
  input: z.ZodRawShape;
  /** Whether this call writes: refused on a --read-only server with the HTTP layer's 403. */
  writes(args: Record<string, unknown>): boolean;
  /** True when no call of it writes (MCP's readOnlyHint). */
  readOnly: boolean;
  run(store: Store, args: Record<string, unknown>, o: CallOptions): Promise<Uint8Array>;
}

/** Types the tool's own arguments from its schema while the table holds them untyped. */
const tool = <S extends z.ZodRawShape>(t: {
  name: string;
  description: string;
  input: S;
  writes?: (args: z.infer<z.ZodObject<S>>) => boolean;
  run(store: Store, args: z.infer<z.ZodObject<S>>, o: CallOptions): Promise<Uint8Array>;
}): Tool => ({ writes: () => false, ...t, readOnly: t.writes === undefined }) as unknown as Tool;

/** A route body from the tool's arguments, for the Store to judge as the route would. */
const body = (args: Record<string, unknown>): Uint8Array => json(args);

const STORE_TOOLS: readonly Tool[] = [
  tool({
    name: 'remember',
    description:
      'Store a piece of text as a memory: the server embeds it and upserts it under `id` in `collection`, stamping svc.text, svc.created_at and svc.updated_at. ' +
      'Remembering the same id again overwrites it. Answers {ok, upserted, id, deduped}.',
    input: {
      collection,
      id: z.string().describe('required: the record id to remember the text under').optional(),
      text: z.string().describe('required: the text to remember').optional(),
      attrs: z
        .record(z.string(), z.record(z.string(), z.unknown()))
        .describe('your metadata, values tagged: {"topic": {"Str": "billing"}, "n": {"Int": 3}}')
        .optional(),
      ttl_seconds: z.number().describe('forget it this many seconds after the write (default never)').optional(),
      dedupe_threshold: z
        .number()
        .describe('cosine floor: when an existing memory is at least this similar, update it instead of adding a near-duplicate')
        .optional(),
      mode: z.enum(['raw', 'summarize']).describe('raw embeds the text; summarize embeds a generated summary (needs --summarize-provider)').optional(),
      chunking: z
        .object({
          strategy: z.enum(['Recursive', 'Markdown', 'Sentence']).optional(),
          max_chars: z.number().int().optional(),
          overlap_chars: z.number().int().optional(),
        })
        .describe('split long text into chunk records {id}#{index} (defaults 1000 / 100 characters)')
        .optional(),
    },
    writes: () => true,
    run: async (store, { collection: name, ...rest }, o) => json(await store.remember(name, body(rest), o)),
  }),
  tool({
    name: 'recall',
    description:
      'Find the memories in `collection` closest in meaning to `query` (embedded by the server); expired memories never come back. ' +
      'Answers hits [{collection, id, score, attrs}], the text in attrs["svc.text"].',
    input: {
      collection,
      query: z.string().describe('required: what to recall, in words').optional(),
      top_k: topK.optional(),
      filter: filter.optional(),
      min_score: z.number().describe('cosine floor for a hit').optional(),
      rollup: z
        .object({ per_parent: z.number().int().optional(), neighbours: z.number().int().optional() })
        .describe('at most per_parent (default 1) hits per chunked document, each with `neighbours` chunks either side stitched into `context`')
        .optional(),
      rerank: rerank.optional(),
      reinforce: z.boolean().describe('count this recall on each returned memory (svc.access_count, svc.last_accessed); a write').optional(),
    },
    writes: (args) => args.reinforce === true,
    run: (store, { collection: name, ...rest }, o) => store.recallJson(name, body(rest), o),
  }),
  tool({
    name: 'text_search',
    description:
      'BM25 keyword search over declared full-text fields (e.g. "svc.text" once declared). Send `field` + `query`, or `clauses`. Answers hits [{collection, id, score, attrs}].',
    input: {
      query: z.string().describe('the keywords (with field)').optional(),
      ...textLeg,
      scope: scope.optional(),
      top_k: topK.optional(),
      min_score: z.number().describe('raw BM25 floor').optional(),
      rank_by: z
        .object({ Decay: z.record(z.string(), z.unknown()) })
        .describe(
          '{"Decay": {field, origin, scale?, decay?, lambda?, missing?, count_field?, count_scale?, count_lambda?}}: subtract a recency penalty (age of the epoch-ms `field` before `origin`) and optionally a reinforcement-count penalty from each score',
        )
        .optional(),
      ...ranking,
      ...projection,
    },
    run: (store, args, o) => store.textSearchJson(body(args), o),
  }),
  tool({
    name: 'hybrid_search',
    description:
      'Search by meaning and keywords at once: `text` is embedded by the server for the vector leg and, with `field`, is also the BM25 query; the legs are fused with reciprocal rank fusion. ' +
      'Answers hits [{collection, id, score, attrs}].',
    input: {
      text: z.string().describe('required: the query text'),
      ...textLeg,
      scope: scope.optional(),
      top_k: topK.optional(),
      rrf_k: z.number().describe('RRF constant (default 60)').optional(),
      candidates: z.number().int().describe('depth pulled per leg before fusing (default 100)').optional(),
      vector_weight: z.number().describe('weight of the meaning leg (default 1)').optional(),
      text_weight: z.number().describe('weight of the keyword leg (default 1)').optional(),
      ...ranking,
    },
    run: async (store, { text, ...rest }, o) => {
      const vector = Array.from(await store.embed(text, o, rest.scope ?? []));
      // With clauses the keyword leg is spelled by them; the text is then the vector leg's alone.
      return store.hybridSearchJson(body(rest.clauses ? { ...rest, vector } : { ...rest, text, vector }), o);
    },
  }),
  tool({
    name: 'list_collections',
    description: 'The names of every collection in the store.',
    input: {},
    run: async (store, _args, o) => json(await store.collections(o)),
  }),
  tool({
    name: 'stats',
    description: 'Store statistics: dimension, distance, record and collection counts, footprint, build features.',
    input: {},
    run: async (store, _args, o) => json(await store.stats(o)),
  }),
  tool({
    name: 'forget',
    description: 'Delete records from `collection` by `ids`, or every record matching `filter` (the filter wins when both are sent). Answers {deleted}.',
    input: {
      collection,
      ids: z.array(z.string()).describe('the record ids to delete').optional(),
      filter: filter.optional(),
    },
    writes: () => true,
    run: async (store, { collection: name, ...rest }, o) => json(await store.delete(name, body(rest), o)),
  }),
  tool({
    name: 'get',
    description: 'The stored records of `ids` in `collection`, as [{id, attrs}] in the order asked; ids not stored are left out.',
    input: { collection, ids: z.array(z.string()).describe('the record ids to read') },
    run: async (store, { collection: name, ids }, o) => json(await store.get(name, ids, o)),
  }),
  tool({
    name: 'browse',
    description: 'List records without scoring: filter, order and page them. Answers [{collection, id, score: 0, attrs}].',
    input: {
      scope: scope.optional(),
      filter: filter.optional(),
      offset: z.number().int().describe('records to skip (default 0)').optional(),
      limit: z.number().int().describe('records to return (default 100, at most 10000)').optional(),
      order_by: z.object({ field: z.string(), descending: z.boolean().optional() }).describe('sort by an attribute (default storage order)').optional(),
      ...projection,
    },
    run: (store, args, o) => store.listJson(body(args), o),
  }),
  tool({
    name: 'related',
    description:
      'Records similar in meaning to a stored record (`collection`, `id`), the record itself excluded. Answers hits [{collection, id, score, attrs}].',
    input: {
      collection,
      id: z.string().describe('the stored record to start from'),
      top_k: topK.optional(),
      scope: scope.describe("collections to search (default: the record's own)").optional(),
      filter: filter.optional(),
      min_score: z.number().describe('similarity floor for a hit').optional(),
    },
    run: (store, args, o) => store.searchSimilarJson(body(args), o),
  }),
  tool({
    name: 'suggest',
    description:
      'Complete the last word of `prefix` from the words of a full-text field, most common first, with typo tolerance. Answers {suggestions: [{term, df}], matched}.',
    input: {
      field: z.string().describe('the full-text field'),
      prefix: z.string().describe('the phrase typed so far'),
      scope: scope.optional(),
      filter: filter.optional(),
      limit: z.number().int().describe('completions to return (default 10)').optional(),
      fuzzy: z.boolean().describe('retry with typo tolerance when nothing matches (default true)').optional(),
    },
    run: (store, args, o) => store.suggestJson(body(args), o),
  }),
];

/** In a build with feature code: the code corpus search (an ingested source tree, grouped by file). */
const CODE_SEARCH = tool({
  name: 'code_search',
  description:
    'Search a code corpus ingested with `tessera ingest --code` by keywords or meaning. Answers {files: [{path, language, symbols: [{symbol, kind, start_line, end_line, score}]}]}, ' +
    'best file first; never source text: read the lines from the files.',
  input: {
    collection,
    query: z.string().describe('required: keywords (matched against code, paths, symbol names and doc comments) or a description').optional(),
    limit: z.number().int().describe('files to return (default 10)').optional(),
    filter: filter.optional(),
    vector: z.boolean().describe('true: search by meaning (needs an embedder); false: keywords only; omitted: the server decides').optional(),
  },
  run: async (store, args, o) => json(await store.codeSearch(body(args), o)),
});

export const TOOLS: readonly Tool[] = hasFeature('code') ? [...STORE_TOOLS, CODE_SEARCH] : STORE_TOOLS;
