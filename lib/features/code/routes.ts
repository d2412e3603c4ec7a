// The code route (feature `code`): POST /code-search, the answer of Store.codeSearch.
import type { Route } from '../../http/route';
import type { StoreSlot } from '../../route_kit/slot';
import { storeMethodRoute } from '../../route_kit/table_route';

export const codeRoutes = (slot: StoreSlot): Route[] => [storeMethodRoute(slot, 'codeSearch')];
