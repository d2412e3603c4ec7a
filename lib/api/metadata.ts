// Metadata reads: /list and /aggregate.
import { jsonBytes } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './slot';
import { cancellable } from './store_route';

/** Metadata-only reads: the body (filter, paging, grouping) goes to the core as raw bytes. */
export const metadataRoutes = (slot: StoreSlot): Route[] => [
  route({
    method: 'POST',
    path: '/list',
    access: 'read',
    body: 'raw',
    handle: async (req) => jsonBytes(await cancellable(req, (o) => slot.get().listJson(req.bytes, o))),
  }),
  route({
    method: 'POST',
    path: '/aggregate',
    access: 'read',
    body: 'raw',
    handle: async (req) => jsonBytes(await cancellable(req, (o) => slot.get().aggregateJson(req.bytes, o))),
  }),
];
