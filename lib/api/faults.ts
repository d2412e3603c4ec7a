// The fault-injection routes the tests use: poison the store (a failure inside the write lock), or
// make the next compaction fail before or inside its switch.
import { json } from '../http/reply';
import { type Route, route } from '../http/route';
import type { StoreSlot } from './slot';

const FAULTS = ['poison-next-write', 'compaction-before-switch', 'compaction-at-switch'] as const;

/** Test-only fault injection, POST /_test/<fault>; mounted only when TESSERA_TEST_FAULTS=1 (see ./index.ts). */
export const faultRoutes = (slot: StoreSlot): Route[] =>
  FAULTS.map((fault) =>
    route({
      method: 'POST',
      path: `/_test/${fault}`,
      access: 'write',
      handle: () => {
        slot.get()._injectFault(fault);
        return json({ ok: true });
      },
    }),
  );
