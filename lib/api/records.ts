// GET /collections/{name}/records: every live record, possibly millions, streamed piece by piece at
// the pace the client reads.
import { jsonPieces } from '../http/reply';
import type { Route } from '../http/route';
import type { StoreSlot } from '../route_kit/slot';
import { callOptions } from '../route_kit/store_route';
import { tableRoute } from '../route_kit/table_route';

export const recordsRoute = (slot: StoreSlot): Route =>
  tableRoute('records', async (req) => jsonPieces(await slot.get(req).recordsCursor(req.param('name'), callOptions(req))));
