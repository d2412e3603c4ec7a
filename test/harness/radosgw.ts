import test, { type ExecutionContext, type ImplementationFn } from 'ava';
import { randomBytes } from 'node:crypto';
import type { ObjectStore } from '../../lib/features/cluster/object_store';
import { planFor, testNeedingTools } from './optional_tools';
import { type Radosgw, radosgwTools, startRadosgw } from './radosgw_boot';

// A radosgw per test file (radosgw_boot.ts boots it; kept apart so that benches can boot one
// without AVA).

let buckets = 0;

/**
 * One radosgw shared by the tests of a file: booted before them when its tools are installed,
 * stopped after them even when one fails. `test` declares a test that needs it (skipped with a
 * notice without the tools, failed under CI), `serial` one that runs alone among the file's tests
 * (timings two at once would distort); `bucket(t)` gives that test its own new bucket.
 */
export function radosgwForFile(): {
  gateway(): Radosgw;
  test(title: string, implementation: ImplementationFn<[]>): void;
  serial(title: string, implementation: ImplementationFn<[]>): void;
  bucket(t: ExecutionContext): Promise<ObjectStore>;
} {
  let gateway: Radosgw | undefined;
  if (planFor(radosgwTools, process.env).action === 'run') {
    test.before(async () => {
      gateway = await startRadosgw();
    });
    test.after.always(() => gateway?.stop());
  }
  const gw = () => {
    if (!gateway) throw new Error('radosgw is not running');
    return gateway;
  };
  return {
    gateway: gw,
    test: (title, implementation) => testNeedingTools(radosgwTools, title, implementation),
    serial: (title, implementation) => testNeedingTools(radosgwTools, title, implementation, { serial: true }),
    bucket: async (t) => {
      const store = gw().store(`t-${process.pid}-${++buckets}-${randomBytes(3).toString('hex')}`);
      t.teardown(() => store.close());
      await store.createBucket();
      return store;
    },
  };
}
