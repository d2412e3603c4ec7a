// Introspection routes: /stats, /cluster and /versions, each the answer of one Store method, and
// /namespaces, mounted only on a --namespaced root (elsewhere no route: 404).
import { json } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from '../route_kit/slot';
import { listOf, ref } from '../route_kit/components';
import { storeRoute } from '../route_kit/store_route';

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
  ...(slot.namespaces ? [namespacesRoute(slot.namespaces.bind(slot))] : []),
];

const namespacesRoute = (namespaces: () => unknown): Route =>
  route({
    method: 'GET',
    path: '/namespaces',
    access: 'read',
    global: true,
    doc: {
      operationId: 'namespaces',
      summary: 'The tenant stores of a --namespaced root (mounted on no other server)',
      responses: { 200: { description: 'The namespaces open now', schema: listOf(ref('NamespaceEntry')) } },
    },
    handle: () => json(namespaces()),
  });
