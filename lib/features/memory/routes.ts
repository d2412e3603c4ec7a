// The memory routes (feature `memory`): POST /collections/{name}/remember and /recall, each the
// answer of one Store method. A recall with `reinforce` is a write (spec): refused by --read-only
// and judged on --write-timeout.
import { BOOLEAN, closed, COUNT, NUMBER, orNull, ref, STRING } from '../../api/components';
import { cancellable, collectionWriteRoute } from '../../api/store_route';
import type { StoreSlot } from '../../api/slot';
import type { Request } from '../../http/request';
import { jsonBytes } from '../../http/reply';
import { type Route, route } from '../../http/route';

/** Whether a recall body asks to reinforce: a quick look, the Store judges the body itself. */
function reinforces(req: Request): boolean {
  if (!req.bytes.includes('"reinforce"')) return false;
  try {
    const body: unknown = JSON.parse(req.bytes.toString('utf8'));
    return typeof body === 'object' && body !== null && (body as { reinforce?: unknown }).reinforce === true;
  } catch {
    return false; // malformed: the Store answers 400
  }
}

const SECONDS = { type: 'number', exclusiveMinimum: 0, maximum: 1e11 };

/** The remember body, as checkRemember (./requests.ts) reads it; null reads as the field left out. */
const REMEMBER = closed(
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

/** The recall body, as checkRecall (./requests.ts) reads it. */
const RECALL = closed(
  {
    query: STRING,
    top_k: orNull({ ...COUNT, maximum: 10000, default: 10, description: '0 means the default' }),
    min_score: orNull(NUMBER),
    filter: orNull(ref('Filter')),
    diversity: orNull({ type: 'number', minimum: 0, maximum: 1 }),
    rollup: orNull(
      closed({ per_parent: orNull({ ...COUNT, maximum: 10000, default: 1, description: '0 reads as 1' }), neighbours: orNull({ ...COUNT, maximum: 100, default: 0 }) }),
    ),
    rerank: orNull(ref('Rerank')),
    reinforce: orNull({ ...BOOLEAN, default: false, description: 'Stamp svc.access_count and svc.last_accessed on the hits (a write)' }),
    extend_ttl_seconds: orNull(SECONDS),
    rank_by: orNull(ref('RankBy')),
  },
  ['query'],
);

export const memoryRoutes = (slot: StoreSlot): Route[] => [
  collectionWriteRoute(
    slot,
    'remember',
    {
      operationId: 'remember',
      summary: 'Embed text (optionally summarized or chunked) and upsert it',
      request: REMEMBER,
      errors: [502],
      responses: {
        200: { description: 'Written', schema: closed({ ok: { const: true }, upserted: COUNT, id: STRING, deduped: BOOLEAN }, ['ok', 'upserted', 'id', 'deduped']) },
      },
    },
    (store, name, body, o) => store.remember(name, body, o),
  ),
  route({
    method: 'POST',
    path: '/collections/{name}/recall',
    access: 'read',
    body: 'raw',
    writeWhen: reinforces,
    doc: {
      operationId: 'recall',
      summary: 'Embed a query and search the collection (never an expired entry)',
      request: RECALL,
      errors: [502],
      responses: { 200: { description: 'The hits (with context when rollup is set)', schema: ref('Hits') } },
    },
    handle: async (req: Request) => jsonBytes(await cancellable(req, (o) => slot.get().recallJson(req.param('name'), req.bytes, o))),
  }),
];
