// The fault-injection routes the tests use: poison the store (a failure inside the write lock), run
// out of memory while a write is prepared or applied, make the next compaction fail before or
// inside its switch, or crash the HTTP thread that receives the request.
import { json } from '../http/reply';
import { type Route, route } from '../http/route';
import { FAULTS } from '../store/store';
import { ref } from '../contract/schemas';
import type { StoreSlot } from '../route_kit/slot';

/** Test-only fault injection, POST /_test/<fault>; mounted only when TESSERA_TEST_FAULTS=1 (see ./index.ts). */
export const faultRoutes = (slot: StoreSlot): Route[] => [
  ...FAULTS.map((kind) =>
    route({
      method: 'POST',
      path: `/_test/${kind}`,
      access: 'write',
      doc: {
        operationId: `injectFault_${kind.replaceAll('-', '_')}`,
        summary: `Test only (TESSERA_TEST_FAULTS=1): arm the fault ${kind}`,
        responses: { 200: { description: 'Armed', schema: ref('Ok') } },
      },
      handle: (req) => {
        slot.get(req)._injectFault(kind);
        return json({ ok: true });
      },
    }),
  ),
  route({
    method: 'POST',
    path: '/_test/crash-http-thread',
    access: 'write',
    doc: {
      operationId: 'injectFault_crash_http_thread',
      summary: 'Test only (TESSERA_TEST_FAULTS=1): throw an uncaught error on the HTTP thread that receives this, after answering',
      responses: { 200: { description: 'Armed', schema: ref('Ok') } },
    },
    handle: () => {
      setTimeout(() => {
        throw new Error('crash-http-thread: an injected fault');
      }, 50);
      return json({ ok: true });
    },
  }),
];
