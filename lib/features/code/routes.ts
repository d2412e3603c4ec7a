// The code route (feature `code`): POST /code-search, the answer of Store.codeSearch.
import { storeRoute } from '../../api/store_route';
import type { StoreSlot } from '../../api/slot';
import type { Route } from '../../http/route';

export const codeRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, { method: 'POST', path: '/code-search', access: 'read', body: 'raw', call: (store, req, o) => store.codeSearch(req.bytes, o) }),
];
