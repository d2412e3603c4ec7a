// Metadata reads: /list and /aggregate.
import { jsonBytes } from '../http/reply';
import { type Route, route } from '../http/route';
import { ref } from '../route_kit/components';
import type { StoreSlot } from '../route_kit/slot';
import { cancellable, whenReady } from '../route_kit/store_route';

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
    handle: (req) =>
      whenReady(
        cancellable(req, (o) => slot.get(req).readJson('list', req.bytes, o)),
        jsonBytes,
      ),
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
    handle: (req) =>
      whenReady(
        cancellable(req, (o) => slot.get(req).readJson('aggregate', req.bytes, o)),
        jsonBytes,
      ),
  }),
];
