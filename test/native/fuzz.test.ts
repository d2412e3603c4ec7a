import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { root } from '../../lib/native';
import { testNeedingTools } from '../harness/optional_tools';

// CI's fuzz smoke: scripts/fuzz.sh builds the libFuzzer targets with clang (build-fuzz/) and runs
// each briefly, replaying every checked-in seed and regression input first. A crash, a sanitizer
// report or a parser refusing with anything but Error(400) fails it, printing the input and the
// command that reproduces it. `npm run fuzz` is the long run.
const seconds = 15;
const targets = readdirSync(path.join(root, 'native/test/fuzz')).flatMap((f) => /^(fuzz_\w+)\.cc$/.exec(f)?.[1] ?? []);

testNeedingTools(['clang', 'clang++', 'libclang_rt.fuzzer'], `every fuzz target runs ${seconds}s without a crash or a non-400 refusal`, async (t) => {
  t.timeout(15 * 60_000);
  t.not(targets.length, 0, 'no native/test/fuzz/fuzz_*.cc found');
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile('bash', [path.join(root, 'scripts/fuzz.sh'), String(seconds)], { maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
  t.is(code, 0, output);
  for (const target of targets) t.regex(output, new RegExp(`^${target}: [1-9]\\d* inputs in ${seconds}s, no crash$`, 'm'));
});
