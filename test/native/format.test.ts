import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { root } from '../../lib/native';
import { testNeedingTools } from '../harness/optional_tools';

// The C++ of native/ follows .clang-format; `npm run format:native` fixes what this reports.
testNeedingTools(['clang-format'], 'native C++ sources follow .clang-format', (t) => {
  try {
    execFileSync('bash', [path.join(root, 'scripts/format-native.sh'), '--check'], { encoding: 'utf8', stdio: 'pipe' });
    t.pass();
  } catch (e) {
    const err = e as { stderr?: string };
    t.fail(`clang-format would change these lines (run npm run format:native):\n${(err.stderr ?? '').slice(0, 4000)}`);
  }
});
