// What an optional route family is to the server: its build feature's name and the routes it adds.
// Its own module, so a family names the contract without importing the list of families.
import type { StoreSlot } from '../route_kit/slot';
import type { Route } from '../http/route';
import type { FeatureName } from './built';

/** What the server tells the families about itself. */
export interface FeatureOptions {
  /** `--read-only`: a family answering writes outside the route table (MCP tools) refuses them. */
  readOnly: boolean;
}

/** One optional route family: its build feature's name and the routes it adds. */
export interface Feature {
  name: FeatureName;
  routes(slot: StoreSlot, options: FeatureOptions): Route[];
}
