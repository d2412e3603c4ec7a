// Maintenance routes: /flush, /compact and /refresh (a read: a read-only instance refreshes too).
import type { Route } from '../http/route';
import type { StoreSlot } from './slot';
import { storeRoute } from './store_route';

export const maintenanceRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, { method: 'POST', path: '/flush', access: 'write', call: (store, _req, o) => store.flush(o) }),
  storeRoute(slot, { method: 'POST', path: '/compact', access: 'write', body: 'raw', call: (store, req, o) => store.compact(req.bytes, o) }),
  storeRoute(slot, { method: 'POST', path: '/refresh', access: 'read', call: (store, _req, o) => store.refresh(o) }),
];
