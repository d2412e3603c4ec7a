import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { root } from '../../lib/native';
import { type OptionalTool, testNeedingTools } from '../harness/optional-tools';

// The NEON kernels cannot run on an x86 host directly: scripts/test-neon.sh cross-builds the
// kernel self-test for arm64 and runs it under qemu. On an arm64 host it builds natively.
const tools: OptionalTool[] = process.arch === 'arm64' ? [] : ['aarch64-linux-gnu-g++', 'qemu-aarch64'];

testNeedingTools(tools, 'NEON kernels match the double-precision reference (arm64 build under qemu)', (t) => {
  const out = execFileSync('bash', [path.join(root, 'scripts/test-neon.sh')], { encoding: 'utf8' });
  t.regex(out, /family neon checked/);
  t.regex(out, /^\d+ passed, 0 failed$/m);
});
