// The memory routes (feature `memory`): POST /collections/{name}/remember and /recall, each the
// answer of one Store method. A recall with `reinforce` is a write (spec): refused by --read-only
// and judged on --write-timeout.
import { BOOLEAN, closed, COUNT, ref, STRING } from '../../route_kit/components';
import { cancellable, collectionWriteRoute } from '../../route_kit/store_route';
import type { StoreSlot } from '../../route_kit/slot';
import type { Request } from '../../http/request';
import { jsonBytes } from '../../http/reply';
import { type Route, route } from '../../http/route';
import { RECALL_BODY, REMEMBER_BODY } from './requests';

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

export const memoryRoutes = (slot: StoreSlot): Route[] => [
  collectionWriteRoute(
    slot,
    'remember',
    {
      operationId: 'remember',
      summary: 'Embed text (optionally summarized or chunked) and upsert it',
      request: REMEMBER_BODY,
      errors: [502],
      responses: {
        200: {
          description: 'Written',
          schema: closed({ ok: { const: true }, upserted: COUNT, id: STRING, deduped: BOOLEAN }, ['ok', 'upserted', 'id', 'deduped']),
        },
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
      request: RECALL_BODY,
      errors: [502],
      responses: { 200: { description: 'The hits (with context when rollup is set)', schema: ref('Hits') } },
    },
    handle: async (req: Request) => jsonBytes(await cancellable(req, (o) => slot.get(req).recallJson(req.param('name'), req.bytes, o))),
  }),
];
