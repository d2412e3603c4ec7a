#!/usr/bin/env node
// prebuildify calls this in place of node-gyp; it builds the addon with cmake-js into build/Release.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const cmakeJs = require.resolve('cmake-js/bin/cmake-js');
execFileSync(process.execPath, [cmakeJs, 'rebuild', '--release'], { cwd: path.join(__dirname, '..'), stdio: 'inherit' });
