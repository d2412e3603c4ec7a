import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { root } from '../../lib/native';
import { type OptionalTool, testNeedingTools } from '../harness/optional_tools';

// The NEON kernels cannot run on an x86 host directly: scripts/test-neon.sh cross-builds the
// kernel self-test for arm64 and runs it under qemu, once on a CPU with sdot (both neon families)
// and once on a Cortex-A57 (ARMv8.0: no sdot, so detection must leave neon-dotprod out). On an
// arm64 host it builds and runs natively, checking neon-dotprod when the CPU has sdot.
const tools: OptionalTool[] = process.arch === 'arm64' ? [] : ['aarch64-linux-gnu-g++', 'qemu-aarch64'];

testNeedingTools(tools, 'NEON kernels match the references (arm64 build under qemu)', (t) => {
  const out = execFileSync('bash', [path.join(root, 'scripts/test-neon.sh')], { encoding: 'utf8' });
  const runs = process.arch === 'arm64' ? [out] : out.split(/^qemu-aarch64 -cpu cortex-a57$/m);
  t.is(runs.length, process.arch === 'arm64' ? 1 : 2);
  for (const run of runs) {
    t.regex(run, /family neon checked/);
    t.regex(run, /^\d+ passed, 0 failed$/m);
  }
  const hasSdot = process.arch === 'arm64' ? /^Features\s*:.*\basimddp\b/m.test(readFileSync('/proc/cpuinfo', 'utf8')) : true;
  if (hasSdot) t.regex(runs[0], /family neon-dotprod checked/);
  if (process.arch !== 'arm64') t.notRegex(runs[1], /neon-dotprod/);
});
