import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { build, buildNativeTools, nativeTools } from './build';

// The C++ self-tests: kernels against a double reference, checksums (shared over threads too),
// every predicate rule, filter indexes never losing a match (saved and opened too), column files
// reading back as their blobs, the structures derived from segments and saved beside them, the HNSW
// graph's and the IVF index's recall against brute force, compaction's switch carrying over what
// happened while it ran, expand's stitching of chunks byte for byte, the query threads keeping off
// the submitter's CPU, request bodies parsed in place and the log's pipeline keeping version order.
const targets = nativeTools.filter((tool) => tool.endsWith('_test'));

test.before(buildNativeTools);

for (const target of targets) {
  test(`native ${target} passes`, (t) => {
    const out = execFileSync(path.join(build, target), { encoding: 'utf8', maxBuffer: 64 << 20 });
    t.regex(out, /^\d+ passed, 0 failed$/m);
  });
}
