// Record routes: upsert, delete, and the streamed export of every live record.
import { jsonPieces } from '../http/reply';
import { type Route, route } from '../http/route';
import { closed, COUNT, listOf, ref } from '../route_kit/components';
import type { StoreSlot } from '../route_kit/slot';
import { callOptions, collectionWriteRoute } from '../route_kit/store_route';

/** Upsert and delete bodies go to the core as raw bytes: it parses them (Int values stay exact). */
export const recordRoutes = (slot: StoreSlot): Route[] => [
  collectionWriteRoute(
    slot,
    'upsert',
    {
      operationId: 'upsert',
      summary: 'Insert or overwrite records by id (all or nothing; creates the collection)',
      request: ref('UpsertRequest'),
      responses: { 200: { description: 'Rows written', schema: closed({ upserted: COUNT }, ['upserted']) } },
    },
    (store, name, body, o) => store.upsert(name, body, o),
  ),
  collectionWriteRoute(
    slot,
    'delete',
    {
      operationId: 'delete',
      summary: 'Delete records by ids or by filter',
      request: ref('DeleteRequest'),
      responses: { 200: { description: 'Rows deleted', schema: closed({ deleted: COUNT }, ['deleted']) } },
    },
    (store, name, body, o) => store.delete(name, body, o),
  ),
  // Every live record, possibly millions: streamed piece by piece at the pace the client reads.
  route({
    method: 'GET',
    path: '/collections/{name}/records',
    access: 'read',
    doc: {
      operationId: 'records',
      summary: 'Every live record of a collection (no paging; /list pages)',
      responses: { 200: { description: 'The records', schema: listOf(ref('StoredRecord')) } },
    },
    handle: async (req) => jsonPieces(await slot.get(req).recordsCursor(req.param('name'), callOptions(req))),
  }),
];
