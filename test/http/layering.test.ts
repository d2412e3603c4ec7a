import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import test from 'ava';

const LIB = path.resolve(__dirname, '../../lib');

/**
 * Requires `modules` in a fresh node process and returns what it loaded of the library below the
 * HTTP layer: the addon loader, lib/native, lib/index, lib/store, or a .node file of this package.
 */
function libraryLoadedBy(modules: string[]): string[] {
  const script = `
    for (const m of ${JSON.stringify(modules)}) require(m);
    const lib = ${JSON.stringify(LIB + path.sep)};
    const root = ${JSON.stringify(path.resolve(LIB, '../..') + path.sep)};
    const loaded = Object.keys(require.cache).filter((f) =>
      f.includes('node-gyp-build') ||
      f === lib + 'native.js' || f === lib + 'index.js' || f.startsWith(lib + 'store' + require('path').sep) ||
      (f.endsWith('.node') && f.startsWith(root) && !f.includes('node_modules')));
    process.stdout.write(JSON.stringify(loaded));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
}

test('lib/http loads without the store or the native addon', (t) => {
  const http = readdirSync(path.join(LIB, 'http'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(LIB, 'http', f));
  t.true(http.includes(path.join(LIB, 'http', 'server.js')));
  t.deepEqual(libraryLoadedBy(http), []);
});

test('the check above sees the addon when the library is loaded', (t) => {
  const loaded = libraryLoadedBy([path.join(LIB, 'index.js')]);
  t.true(
    loaded.some((f) => f.endsWith('.node')),
    loaded.join(', '),
  );
  t.true(loaded.includes(path.join(LIB, 'native.js')));
});
