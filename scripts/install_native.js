#!/usr/bin/env node
// npm install hook: keep a prebuilt or already-built addon that loads, otherwise compile the core
// with cmake-js (Release). Set TESSERA_BUILD_FROM_SOURCE=1 to always compile.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
if (!process.env.TESSERA_BUILD_FROM_SOURCE) {
  try {
    require('node-gyp-build')(root);
    process.exit(0);
  } catch {
    // no usable binary: build below
  }
}
const cmakeJs = require.resolve('cmake-js/bin/cmake-js');
execFileSync(process.execPath, [cmakeJs, 'compile', '--release'], { cwd: root, stdio: 'inherit' });
