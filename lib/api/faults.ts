import { json } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './store';

/** Test-only fault injection; mounted only when TESSERA_TEST_FAULTS=1 (see ./index.ts). */
export const faultRoutes = (slot: StoreSlot): Route[] => [
  route({
    method: 'POST',
    path: '/_test/poison-next-write',
    access: 'write',
    handle: () => {
      slot.get()._injectFault('poison-next-write');
      return json({ ok: true });
    },
  }),
];
