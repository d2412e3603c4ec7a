import { testNeedingTools } from './optional_tools';

// Run by optional_tools.test.ts in a nested AVA with a PATH of its choosing (not part of the suite).
testNeedingTools(['qemu-aarch64'], 'fixture needing qemu-aarch64', (t) => t.pass());
