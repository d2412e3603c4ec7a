// The fault-injection route the tests use to poison the store (a failure inside the write lock).
import { json } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './slot';

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
