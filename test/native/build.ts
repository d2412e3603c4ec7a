import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { root } from '../../lib/native';

// The native test tools are built in the addon's build directory (reusing its objects) with
// TESSERA_NATIVE_TESTS=ON: build/, or the directory TESSERA_NATIVE_BUILD names (npm run test:asan
// points it at its sanitizer build). ava runs test files in parallel processes, so the configure +
// build is serialized across processes by a lock directory.
export const build = path.resolve(root, process.env.TESSERA_NATIVE_BUILD ?? 'build');
export const nativeTools = [
  'kernels_test',
  'crc32c_test',
  'filter_test',
  'filter_index_test',
  'columns_test',
  'hnsw_test',
  'ivf_test',
  'compaction_test',
  'derived_test',
  'expand_test',
  'thread_pool_test',
  'write_path_test',
  'stem_words',
];

export function buildNativeTools(): void {
  const lock = path.join(build, '.native-tests.lock');
  mkdirSync(build, { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    execFileSync('cmake', ['-S', root, '-B', build, '-DTESSERA_NATIVE_TESTS=ON'], { stdio: 'ignore' });
    execFileSync('cmake', ['--build', build, '--target', ...nativeTools], { stdio: 'ignore' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
