// Alias routes: list, point an alias at a collection, drop it.
import { object, string } from '../http/schema';
import type { Route } from '../http/route';
import type { StoreSlot } from './slot';
import { storeRoute } from './store_route';

const ALIAS = '/aliases/{name}';

const aliasBody = object({ target: string });

export const aliasRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, { method: 'GET', path: '/aliases', access: 'read', call: (store, _req, o) => store.aliases(o) }),
  storeRoute(slot, {
    method: 'PUT',
    path: ALIAS,
    access: 'write',
    body: aliasBody,
    call: (store, req, o) => store.putAlias(req.param('name'), req.body.target, o),
  }),
  storeRoute(slot, { method: 'DELETE', path: ALIAS, access: 'write', call: (store, req, o) => store.dropAlias(req.param('name'), o) }),
];
