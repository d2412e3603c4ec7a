// Prints the RE2 and abseil sources to compile into the core, `;`-separated for CMake. The list is
// taken from the re2 npm package's own binding.gyp (first target, vendor/ entries only), so it
// follows whatever that pinned version needs; Windows-only files live under its `conditions` and
// are left out along with the package's N-API glue in lib/.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.dirname(require.resolve('re2/package.json'));
const gyp = fs
  .readFileSync(path.join(root, 'binding.gyp'), 'utf8')
  .split('\n')
  .filter((line) => !line.trim().startsWith('#'))
  .join('\n')
  .replace(/,(\s*[\]}])/g, '$1');
const sources = JSON.parse(gyp).targets[0].sources
  .filter((s) => s.startsWith('vendor/') && !/_win(32)?\.cc$|win32_/.test(s))
  .map((s) => path.join(root, s));
process.stdout.write(sources.join(';'));
