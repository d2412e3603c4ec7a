import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { root } from '../../lib/native';

// The NEON kernels cannot run on an x86 host directly: scripts/test-neon.sh cross-builds the
// kernel self-test for arm64 and runs it under qemu (CI installs both tools).
test('NEON kernels match the double-precision reference (arm64 build under qemu)', (t) => {
  const out = execFileSync('bash', [path.join(root, 'scripts/test-neon.sh')], { encoding: 'utf8' });
  t.regex(out, /family neon checked/);
  t.regex(out, /^\d+ passed, 0 failed$/m);
});
