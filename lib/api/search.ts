// The raw reads: the request bytes go to the core as they are (Store.readJson) and its JSON comes
// back as bytes. The query routes (/search and its kin) are counted and timed by the
// QueryAccounting they share with /query; /list and /aggregate read metadata only.
import type { LibraryRoutes } from '../contract/routes';
import { jsonBytes } from '../http/reply';
import type { Route } from '../http/route';
import type { QueryAccounting } from '../route_kit/query_accounting';
import type { StoreSlot } from '../route_kit/slot';
import { cancellable, whenReady } from '../route_kit/store_route';
import { tableRoute } from '../route_kit/table_route';
import type { RawRead } from '../store/store';

const QUERIES: readonly RawRead[] = ['search', 'searchSimilar', 'searchBatch', 'textSearch', 'hybridSearch', 'suggest'];
const METADATA_READS: readonly LibraryRoutes<'read'>[] = ['list', 'aggregate'];

export const readRoutes = (slot: StoreSlot, accounting: QueryAccounting): Route[] => [
  ...QUERIES.map((id) => tableRoute(id, (req) => accounting.run(req, (o) => slot.get(req).readJson(id, req.bytes, o)))),
  ...METADATA_READS.map((id) =>
    tableRoute(id, (req) =>
      whenReady(
        cancellable(req, (o) => slot.get(req).readJson(id, req.bytes, o)),
        jsonBytes,
      ),
    ),
  ),
];
