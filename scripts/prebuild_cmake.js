#!/usr/bin/env node
// prebuildify (scripts/prebuild.js) runs this in place of node-gyp, in build-prebuild/<platform>-<arch>/,
// with PREBUILD_PLATFORM and PREBUILD_ARCH set: it builds the addon with cmake-js into ./build/Release,
// where prebuildify takes it from. A linux-arm64 build on an x86-64 host uses the cross toolchain
// file; on Linux libstdc++ is linked in (TESSERA_STATIC_RUNTIME in CMakeLists.txt).
const { execFileSync } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const { PREBUILD_PLATFORM: platform, PREBUILD_ARCH: arch } = process.env;
const options = ['--release', '--directory', root, '--out', path.resolve('build'), '--target', 'tessera'];
// Ninja runs in parallel by itself; make (where cmake-js finds no Ninja) needs to be told.
options.push('--parallel', String(os.availableParallelism()));
if (platform === 'linux') options.push('--CDTESSERA_STATIC_RUNTIME=ON');
if (platform === 'linux' && arch === 'arm64' && process.arch === 'x64') {
  options.push(`--CDCMAKE_TOOLCHAIN_FILE=${path.join(__dirname, 'toolchain-aarch64-linux-gnu.cmake')}`);
}
const cmakeJs = require.resolve('cmake-js/bin/cmake-js');
execFileSync(process.execPath, [cmakeJs, 'compile', ...options], { stdio: 'inherit' });
