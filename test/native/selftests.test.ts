import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { root } from '../../lib/native';

// The C++ self-tests (kernels against a double reference, every predicate rule, filter indexes
// never losing a match) are built in the addon's build directory, reusing its objects.
const build = path.join(root, 'build');
const targets = ['kernels_test', 'filter_test', 'filter_index_test'];

test.before(() => {
  execFileSync('cmake', ['-S', root, '-B', build, '-DTESSERA_NATIVE_TESTS=ON'], { stdio: 'ignore' });
  execFileSync('cmake', ['--build', build, '--target', ...targets], { stdio: 'ignore' });
});

for (const target of targets) {
  test(`native ${target} passes`, (t) => {
    const out = execFileSync(path.join(build, target), { encoding: 'utf8', maxBuffer: 64 << 20 });
    t.regex(out, /^\d+ passed, 0 failed$/m);
  });
}
