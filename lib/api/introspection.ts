// Introspection routes: /stats, /cluster and /versions, each the answer of one Store method, and
// /namespaces, which only a --namespaced root serves.
import { HttpError } from '../http/errors';
import { json } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './slot';
import { storeRoute } from './store_route';

export const introspectionRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, { method: 'GET', path: '/stats', access: 'read', call: (store, _req, o) => store.stats(o) }),
  storeRoute(slot, { method: 'GET', path: '/versions', access: 'read', call: (store, _req, o) => store.versions(o) }),
  // Reads memory only, so no call options (and no cancel handle) are made for it.
  route({ method: 'GET', path: '/cluster', access: 'read', handle: () => json(slot.get().cluster()) }),
  route({
    method: 'GET',
    path: '/namespaces',
    access: 'read',
    handle: () => {
      throw new HttpError(404, '/namespaces exists only on a server started with --namespaced');
    },
  }),
];
