// Prints the RE2 and abseil sources to compile into the core, `;`-separated for CMake. The list is
// taken from the re2 npm package's own binding.gyp (first target, vendor/ entries only), so it
// follows whatever that pinned version needs; Windows-only files live under its `conditions` and
// are left out along with the package's N-API glue in lib/. The package is read where
// scripts/native_deps.js says: deps/re2 in a packed tarball, node_modules/re2 in a clone.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** The sources, relative to the re2 package's root. */
function relativeSources(root) {
  const gyp = fs
    .readFileSync(path.join(root, 'binding.gyp'), 'utf8')
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n')
    .replace(/,(\s*[\]}])/g, '$1');
  return JSON.parse(gyp).targets[0].sources.filter((s) => s.startsWith('vendor/') && !/_win(32)?\.cc$|win32_/.test(s));
}

if (require.main === module) {
  const root = require('./native_deps').packageRoot('re2');
  process.stdout.write(
    relativeSources(root)
      .map((s) => path.join(root, s))
      .join(';'),
  );
}

module.exports = { relativeSources };
