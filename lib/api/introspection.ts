// Introspection routes: /stats, /cluster and /versions, each the answer of one Store method, and
// /namespaces, which only a --namespaced root serves.
import { HttpError } from '../http/errors';
import { json } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './slot';
import { listOf, ref } from './components';
import { storeRoute } from './store_route';

export const introspectionRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, {
    method: 'GET',
    path: '/stats',
    access: 'read',
    doc: { operationId: 'stats', summary: 'Store statistics', responses: { 200: { description: 'The statistics', schema: ref('Stats') } } },
    call: (store, _req, o) => store.stats(o),
  }),
  storeRoute(slot, {
    method: 'GET',
    path: '/versions',
    access: 'read',
    doc: { operationId: 'versions', summary: 'The commit-version landscape', responses: { 200: { description: 'The versions', schema: ref('Versions') } } },
    call: (store, _req, o) => store.versions(o),
  }),
  // Reads memory only, so no call options (and no cancel handle) are made for it.
  route({
    method: 'GET',
    path: '/cluster',
    access: 'read',
    doc: { operationId: 'cluster', summary: 'Role and currency', responses: { 200: { description: 'The cluster status', schema: ref('ClusterStatus') } } },
    handle: (req) => json(slot.status(req)),
  }),
  route({
    method: 'GET',
    path: '/namespaces',
    access: 'read',
    global: true,
    doc: {
      operationId: 'namespaces',
      summary: 'The tenant stores of a --namespaced root; any other server answers 404',
      responses: { 200: { description: 'The namespaces open now', schema: listOf(ref('NamespaceEntry')) } },
    },
    handle: () => {
      if (!slot.namespaces) throw new HttpError(404, '/namespaces exists only on a server started with --namespaced');
      return json(slot.namespaces());
    },
  }),
];
