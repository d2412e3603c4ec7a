// Record routes: upsert, delete, and the streamed export of every live record.
import { jsonPieces } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './slot';
import { callOptions, collectionWriteRoute } from './store_route';

/** Upsert and delete bodies go to the core as raw bytes: it parses them (Int values stay exact). */
export const recordRoutes = (slot: StoreSlot): Route[] => [
  collectionWriteRoute(slot, 'upsert', (store, name, body, o) => store.upsert(name, body, o)),
  collectionWriteRoute(slot, 'delete', (store, name, body, o) => store.delete(name, body, o)),
  // Every live record, possibly millions: streamed piece by piece at the pace the client reads.
  route({
    method: 'GET',
    path: '/collections/{name}/records',
    access: 'read',
    handle: async (req) => jsonPieces(await slot.get().recordsCursor(req.param('name'), callOptions(req))),
  }),
];
