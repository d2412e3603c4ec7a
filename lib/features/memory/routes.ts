// The memory routes (feature `memory`): POST /collections/{name}/remember and /recall, each the
// answer of one Store method. A recall with `reinforce` is a write (spec): refused by --read-only
// and judged on --write-timeout.
import { jsonBytes } from '../../http/reply';
import type { Request } from '../../http/request';
import type { Route } from '../../http/route';
import type { StoreSlot } from '../../route_kit/slot';
import { cancellable } from '../../route_kit/store_route';
import { storeMethodRoute, tableRoute } from '../../route_kit/table_route';

/** Whether a recall body asks to reinforce: a quick look, the Store judges the body itself. */
function reinforces(req: Request): boolean {
  if (!req.bytes.includes('"reinforce"')) return false;
  try {
    const body: unknown = JSON.parse(req.bytes.toString('utf8'));
    return typeof body === 'object' && body !== null && (body as { reinforce?: unknown }).reinforce === true;
  } catch {
    return false; // malformed: the Store answers 400
  }
}

export const memoryRoutes = (slot: StoreSlot): Route[] => [
  storeMethodRoute(slot, 'remember'),
  tableRoute('recall', async (req) => jsonBytes(await cancellable(req, (o) => slot.get(req).recallJson(req.param('name'), req.bytes, o))), {
    writeWhen: reinforces,
  }),
];
