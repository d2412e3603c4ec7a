// Record routes: upsert, delete, and the streamed export of every live record.
import { jsonPieces } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './slot';
import { callOptions, storeRoute } from './store_route';

const COLLECTION = '/collections/{name}';

/** Upsert and delete bodies go to the core as raw bytes: it parses them (Int values stay exact). */
export const recordRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, {
    method: 'POST',
    path: `${COLLECTION}/upsert`,
    access: 'write',
    body: 'raw',
    call: (store, req, o) => store.upsert(req.param('name'), req.bytes, o),
  }),
  storeRoute(slot, {
    method: 'POST',
    path: `${COLLECTION}/delete`,
    access: 'write',
    body: 'raw',
    call: (store, req, o) => store.delete(req.param('name'), req.bytes, o),
  }),
  // Every live record, possibly millions: streamed piece by piece at the pace the client reads.
  route({
    method: 'GET',
    path: `${COLLECTION}/records`,
    access: 'read',
    handle: async (req) => jsonPieces(await slot.get().recordsCursor(req.param('name'), callOptions(req))),
  }),
];
