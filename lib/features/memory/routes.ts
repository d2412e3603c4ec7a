// The memory routes (feature `memory`): POST /collections/{name}/remember and /recall, each the
// answer of one Store method. A recall with `reinforce` is a write (spec): refused by --read-only
// and judged on --write-timeout.
import { cancellable, collectionWriteRoute } from '../../api/store_route';
import type { StoreSlot } from '../../api/slot';
import type { Request } from '../../http/request';
import { jsonBytes } from '../../http/reply';
import { type Route, route } from '../../http/route';

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
  collectionWriteRoute(slot, 'remember', (store, name, body, o) => store.remember(name, body, o)),
  route({
    method: 'POST',
    path: '/collections/{name}/recall',
    access: 'read',
    body: 'raw',
    writeWhen: reinforces,
    handle: async (req: Request) => jsonBytes(await cancellable(req, (o) => slot.get().recallJson(req.param('name'), req.bytes, o))),
  }),
];
