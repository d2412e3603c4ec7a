import { testNeedingTools } from './optional-tools';

// Run by optional-tools.test.ts in a nested AVA with a PATH of its choosing (not part of the suite).
testNeedingTools(['qemu-aarch64'], 'fixture needing qemu-aarch64', (t) => t.pass());
