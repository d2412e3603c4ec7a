// Metadata reads: /list and /aggregate.
import { jsonBytes } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './slot';
import { callOptions } from './store_route';

/** Metadata-only reads: the body (filter, paging, grouping) goes to the core as raw bytes. */
export const metadataRoutes = (slot: StoreSlot): Route[] => [
  route({
    method: 'POST',
    path: '/list',
    access: 'read',
    body: 'raw',
    handle: async (req) => jsonBytes(await slot.get().listJson(req.bytes, callOptions(req))),
  }),
  route({
    method: 'POST',
    path: '/aggregate',
    access: 'read',
    body: 'raw',
    handle: async (req) => jsonBytes(await slot.get().aggregateJson(req.bytes, callOptions(req))),
  }),
];
