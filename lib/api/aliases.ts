// Alias routes: list, point an alias at a collection, drop it.
import { annotated, object, string } from '../http/schema';
import type { Route } from '../http/route';
import { closed, STRING } from '../route_kit/components';
import type { StoreSlot } from '../route_kit/slot';
import { storeRoute } from '../route_kit/store_route';

const ALIAS = '/aliases/{name}';

const aliasBody = object({ target: annotated(string, { description: 'An existing concrete collection' }) });

export const aliasRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, {
    method: 'GET',
    path: '/aliases',
    access: 'read',
    doc: {
      operationId: 'aliases',
      summary: 'Every alias and its collection',
      responses: { 200: { description: 'Alias -> collection', schema: { type: 'object', additionalProperties: STRING } } },
    },
    call: (store, _req, o) => store.aliases(o),
  }),
  storeRoute(slot, {
    method: 'PUT',
    path: ALIAS,
    access: 'write',
    body: aliasBody,
    doc: {
      operationId: 'putAlias',
      summary: 'Point an alias at a collection',
      responses: { 200: { description: 'Pointed', schema: closed({ alias: STRING, target: STRING }, ['alias', 'target']) } },
    },
    call: (store, req, o) => store.putAlias(req.param('name'), req.body.target, o),
  }),
  storeRoute(slot, {
    method: 'DELETE',
    path: ALIAS,
    access: 'write',
    doc: {
      operationId: 'dropAlias',
      summary: 'Drop an alias (its collection stays)',
      responses: { 200: { description: 'Dropped', schema: closed({ dropped: STRING }, ['dropped']) } },
    },
    call: (store, req, o) => store.dropAlias(req.param('name'), o),
  }),
];
