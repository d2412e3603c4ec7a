// Collection routes: create, drop, list, metadata, and the declarations of named vectors,
// filter-indexed fields and full-text fields.
import { annotated, arrayOf, mapOf, object, string } from '../http/schema';
import type { Route } from '../http/route';
import { closed, listOf, ref, STRING } from '../route_kit/components';
import type { StoreSlot } from '../route_kit/slot';
import { collectionWriteRoute, storeRoute } from '../route_kit/store_route';

const COLLECTION = '/collections/{name}';

const metaBody = annotated(mapOf(string, 'an object mapping keys to string values'), { description: 'Replaces the metadata wholesale' });
const vectorNamesBody = object({ names: annotated(arrayOf(string), { description: "Named vector fields; 'default' is refused; replaces the set" }) });

const OK = { 200: { description: 'Done', schema: ref('Ok') } };

/** Collections, their metadata, their declared vector names, filter-indexed and full-text fields. */
export const collectionRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, {
    method: 'GET',
    path: '/collections',
    access: 'read',
    doc: {
      operationId: 'collections',
      summary: 'Names of the concrete collections (aliases excluded)',
      responses: { 200: { description: 'The names', schema: listOf(STRING) } },
    },
    call: (store, _req, o) => store.collections(o),
  }),
  storeRoute(slot, {
    method: 'POST',
    path: COLLECTION,
    access: 'write',
    doc: {
      operationId: 'createCollection',
      summary: 'Create an empty collection (upsert also creates one)',
      responses: { 200: { description: 'Created', schema: closed({ created: STRING }, ['created']) } },
    },
    call: (store, req, o) => store.createCollection(req.param('name'), o),
  }),
  storeRoute(slot, {
    method: 'DELETE',
    path: COLLECTION,
    access: 'write',
    doc: {
      operationId: 'dropCollection',
      summary: 'Drop a collection',
      responses: { 200: { description: 'Dropped', schema: closed({ dropped: STRING }, ['dropped']) } },
    },
    call: (store, req, o) => store.dropCollection(req.param('name'), o),
  }),
  storeRoute(slot, {
    method: 'GET',
    path: `${COLLECTION}/meta`,
    access: 'read',
    doc: { operationId: 'getMeta', summary: "A collection's metadata", responses: { 200: { description: 'The metadata', schema: ref('Metadata') } } },
    call: (store, req, o) => store.getMeta(req.param('name'), o),
  }),
  storeRoute(slot, {
    method: 'PUT',
    path: `${COLLECTION}/meta`,
    access: 'write',
    body: metaBody,
    doc: { operationId: 'putMeta', summary: "Replace a collection's metadata", responses: OK },
    call: (store, req, o) => store.putMeta(req.param('name'), req.body, o),
  }),
  storeRoute(slot, {
    method: 'POST',
    path: `${COLLECTION}/vector-names`,
    access: 'write',
    body: vectorNamesBody,
    doc: { operationId: 'setVectorNames', summary: "Declare a collection's named vectors", responses: OK },
    call: (store, req, o) => store.setVectorNames(req.param('name'), req.body.names, o),
  }),
  // Entries are names or {field, tokens, trigrams}: the core validates them and names the entry.
  collectionWriteRoute(
    slot,
    'filter-index',
    {
      operationId: 'setFilterIndex',
      summary: "Declare a collection's filter-indexed fields (speed only, never results)",
      request: ref('FilterIndexRequest'),
      responses: OK,
    },
    (store, name, body, o) => store.setFilterIndex(name, body, o),
  ),
  collectionWriteRoute(
    slot,
    'fts-schema',
    { operationId: 'setFtsSchema', summary: "Declare a collection's full-text fields", request: ref('FtsSchemaRequest'), responses: OK },
    (store, name, body, o) => store.setFtsSchema(name, body, o),
  ),
];
