#!/usr/bin/env node
// npm run prebuild [-- ARCH...]: Node-API prebuilds, made by prebuildify, in node-gyp-build's layout:
// prebuilds/<platform>-<arch>/tessera[.glibc].node. Default archs: the host's, plus arm64 on a
// linux-x64 host (cross-compiled with Debian's g++-aarch64-linux-gnu). Each target builds in its
// own build-prebuild/<platform>-<arch>/ (incremental across runs; the development build in build/
// is left alone), through scripts/prebuild_cmake.js.
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const platform = process.platform;
const host = `${platform}-${process.arch}`;
/** The cross builds a host can make: the compiler prebuild_cmake.js's toolchain file names, and its strip. */
const cross = {
  'linux-x64 to arm64': { compiler: 'aarch64-linux-gnu-g++', strip: 'aarch64-linux-gnu-strip', debianPackage: 'g++-aarch64-linux-gnu' },
};
const args = process.argv.slice(2);
const archs = args.length ? args : host === 'linux-x64' ? ['x64', 'arm64'] : [process.arch];

for (const arch of archs) {
  let stripBin = 'strip';
  if (arch !== process.arch) {
    const toolchain = cross[`${host} to ${arch}`];
    if (!toolchain) throw new Error(`prebuild: cannot build ${platform}-${arch} on ${host}`);
    if (spawnSync(toolchain.compiler, ['--version']).error) {
      throw new Error(`prebuild: ${platform}-${arch} needs ${toolchain.compiler}; install with: apt-get install ${toolchain.debianPackage}`);
    }
    stripBin = toolchain.strip;
  }
  const staging = path.join(root, 'build-prebuild', `${platform}-${arch}`);
  fs.mkdirSync(staging, { recursive: true });
  // prebuildify runs the "node-gyp" command in `--cwd` and takes the addon from <cwd>/build/Release.
  execFileSync(
    process.execPath,
    [
      require.resolve('prebuildify/bin.js'),
      '--napi',
      '--strip',
      `--strip-bin=${stripBin}`,
      '--name=tessera',
      `--arch=${arch}`,
      // The libc tag keeps a glibc build from being picked on a musl system (node-gyp-build matches it).
      ...(platform === 'linux' ? ['--tag-libc'] : []),
      `--cwd=${staging}`,
      `--out=${root}`,
      `--node-gyp=${path.join(__dirname, 'prebuild_cmake.js')}`,
    ],
    { cwd: root, stdio: 'inherit' },
  );
}
