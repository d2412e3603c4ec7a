// GET /cluster: from memory, so no call options (and no cancel handle) are made for it.
import { json } from '../http/reply';
import type { Route } from '../http/route';
import type { StoreSlot } from '../route_kit/slot';
import { tableRoute } from '../route_kit/table_route';

export const clusterRoute = (slot: StoreSlot): Route => tableRoute('cluster', (req) => json(slot.status(req)));
