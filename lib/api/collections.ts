// Collection routes: create, drop, list, metadata, and the declarations of named vectors,
// filter-indexed fields and full-text fields.
import { arrayOf, mapOf, object, string } from '../http/schema';
import type { Route } from '../http/route';
import type { StoreSlot } from './slot';
import { collectionWriteRoute, storeRoute } from './store_route';

const COLLECTION = '/collections/{name}';

const metaBody = mapOf(string, 'an object mapping keys to string values');
const vectorNamesBody = object({ names: arrayOf(string) });

/** Collections, their metadata, their declared vector names, filter-indexed and full-text fields. */
export const collectionRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, { method: 'GET', path: '/collections', access: 'read', call: (store, _req, o) => store.collections(o) }),
  storeRoute(slot, { method: 'POST', path: COLLECTION, access: 'write', call: (store, req, o) => store.createCollection(req.param('name'), o) }),
  storeRoute(slot, { method: 'DELETE', path: COLLECTION, access: 'write', call: (store, req, o) => store.dropCollection(req.param('name'), o) }),
  storeRoute(slot, { method: 'GET', path: `${COLLECTION}/meta`, access: 'read', call: (store, req, o) => store.getMeta(req.param('name'), o) }),
  storeRoute(slot, {
    method: 'PUT',
    path: `${COLLECTION}/meta`,
    access: 'write',
    body: metaBody,
    call: (store, req, o) => store.putMeta(req.param('name'), req.body, o),
  }),
  storeRoute(slot, {
    method: 'POST',
    path: `${COLLECTION}/vector-names`,
    access: 'write',
    body: vectorNamesBody,
    call: (store, req, o) => store.setVectorNames(req.param('name'), req.body.names, o),
  }),
  // Entries are names or {field, tokens, trigrams}: the core validates them and names the entry.
  collectionWriteRoute(slot, 'filter-index', (store, name, body, o) => store.setFilterIndex(name, body, o)),
  collectionWriteRoute(slot, 'fts-schema', (store, name, body, o) => store.setFtsSchema(name, body, o)),
];
