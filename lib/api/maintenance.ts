// Maintenance routes: /flush, /compact and /refresh (a read: a read-only instance refreshes too).
import type { Route } from '../http/route';
import { closed, BOOLEAN, ref } from '../route_kit/components';
import type { StoreSlot } from '../route_kit/slot';
import { storeRoute } from '../route_kit/store_route';

const OK = { 200: { description: 'Done', schema: ref('Ok') } };

export const maintenanceRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, {
    method: 'POST',
    path: '/flush',
    access: 'write',
    doc: { operationId: 'flush', summary: 'Force buffered writes to disk', responses: OK },
    call: (store, _req, o) => store.flush(o),
  }),
  storeRoute(slot, {
    method: 'POST',
    path: '/compact',
    access: 'write',
    body: 'raw',
    doc: {
      operationId: 'compact',
      summary: 'Reclaim dead rows (with expired: true, first delete expired entries)',
      request: ref('CompactRequest'),
      requestOptional: true,
      responses: OK,
    },
    call: (store, req, o) => store.compact(req.bytes, o),
  }),
  storeRoute(slot, {
    method: 'POST',
    path: '/refresh',
    access: 'read',
    doc: {
      operationId: 'refresh',
      summary: 'Adopt newer committed state (a read-only instance)',
      responses: { 200: { description: 'Whether the served state moved forward', schema: closed({ adopted: BOOLEAN }, ['adopted']) } },
    },
    call: (store, _req, o) => store.refresh(o),
  }),
];
