// Metadata reads: /list and /aggregate.
import { jsonBytes } from '../http/reply';
import { type Route, route } from '../http/route';
import { ref } from './components';
import type { StoreSlot } from './slot';
import { cancellable } from './store_route';

/** Metadata-only reads: the body (filter, paging, grouping) goes to the core as raw bytes. */
export const metadataRoutes = (slot: StoreSlot): Route[] => [
  route({
    method: 'POST',
    path: '/list',
    access: 'read',
    body: 'raw',
    doc: {
      operationId: 'list',
      summary: 'Metadata-only listing: filtered records with score 0, optionally ordered, paged',
      request: ref('ListRequest'),
      requestOptional: true,
      responses: { 200: { description: 'The page', schema: ref('Hits') } },
    },
    handle: async (req) => jsonBytes(await cancellable(req, (o) => slot.get(req).listJson(req.bytes, o))),
  }),
  route({
    method: 'POST',
    path: '/aggregate',
    access: 'read',
    body: 'raw',
    doc: {
      operationId: 'aggregate',
      summary: 'Count, sums and groups over the filtered records',
      request: ref('AggregateRequest'),
      requestOptional: true,
      responses: { 200: { description: 'The aggregation', schema: ref('AggregateResult') } },
    },
    handle: async (req) => jsonBytes(await cancellable(req, (o) => slot.get(req).aggregateJson(req.bytes, o))),
  }),
];
