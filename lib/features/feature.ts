// What a route family is to the server: its name, whether this package has it, and the routes it
// adds. Its own module, so a family names the contract without importing the list of families.
import type { Route } from '../http/route';
import type { QueryAccounting } from '../route_kit/query_accounting';
import type { StoreSlot } from '../route_kit/slot';

/** What the server tells the families about itself. */
export interface FeatureOptions {
  /** `--read-only`: a family answering writes outside the route table (MCP tools) refuses them. */
  readOnly: boolean;
  /** The query counter and slow-query log every route running a query shares. */
  queries: QueryAccounting;
}

/** One route family: its name, whether this package has it (its build feature), and the routes it mounts. */
export interface Feature {
  name: string;
  enabled: boolean;
  routes(slot: StoreSlot, options: FeatureOptions): Route[];
}
