#!/usr/bin/env node
// The npm packages the native build only takes C/C++ sources from (devDependencies), and which of
// their files it needs. A consumer installs none of them: `npm pack` copies those files, with the
// packages' licenses, into deps/<package>/ (prepack runs `node scripts/native_deps.js vendor`,
// postpack `... clean`). The build reads a package from this project's own node_modules when it is
// installed there (a clone), else from deps/ (an installed tarball); never a copy found further up,
// which in a consumer's project could be another version.
//   node scripts/native_deps.js root NAME    prints where NAME's files are (for CMakeLists.txt)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const projectRoot = path.join(__dirname, '..');
const depsDir = path.join(projectRoot, 'deps');

const header = /\.(h|inc)$/;
const notTest = (file) => !/(_test|_benchmark|test_util|mock)[^/]*$|\/testing\//.test(file);

/** Per package: the files to ship, as a filter on its paths (relative, `/`-separated). */
const packages = {
  // binding.gyp lists the sources (scripts/re2_sources.js reads it); the headers are every RE2 and
  // abseil header, so an include that only another platform takes is there too.
  re2: (file, sources) =>
    ['LICENSE', 'binding.gyp', 'vendor/re2/LICENSE', 'vendor/abseil-cpp/LICENSE'].includes(file) ||
    sources.has(file) ||
    (/^vendor\/(re2\/(re2|util)|abseil-cpp\/absl)\//.test(file) && header.test(file) && notTest(file)),
  'node-snowball': (file) =>
    ['LICENSE', 'src/libstemmer/COPYING'].includes(file) ||
    /^src\/libstemmer\/(runtime\/[^/]+\.[ch]|src_c\/stem_UTF_8_english\.[ch])$/.test(file),
  '@nozbe/simdjson': (file) => ['LICENSE', 'src/simdjson.h', 'src/simdjson.cpp'].includes(file),
};

const installedRoot = (name) => path.join(projectRoot, 'node_modules', name);

/** Where the build reads `name`'s files from. */
function packageRoot(name) {
  for (const dir of [installedRoot(name), path.join(depsDir, name)]) {
    if (fs.existsSync(dir)) return dir;
  }
  throw new Error(`native-deps: ${name} is neither in node_modules (run npm install) nor in deps/ (a packed tarball)`);
}

function walk(dir, prefix = '') {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const rel = prefix + entry.name;
    return entry.isDirectory() ? walk(path.join(dir, entry.name), `${rel}/`) : [rel];
  });
}

function vendor() {
  fs.rmSync(depsDir, { recursive: true, force: true });
  const lines = [];
  for (const [name, wanted] of Object.entries(packages)) {
    const from = installedRoot(name);
    const sources = new Set(name === 're2' ? require('./re2_sources').relativeSources(from) : []);
    const files = walk(from).filter((file) => wanted(file, sources));
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(depsDir, name, file)), { recursive: true });
      fs.copyFileSync(path.join(from, file), path.join(depsDir, name, file));
    }
    const { version, license } = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8'));
    lines.push(`| \`${name}@${version}\` | ${license} | ${files.length} |`);
  }
  fs.writeFileSync(
    path.join(depsDir, 'README.md'),
    [
      '# deps/',
      '',
      'C/C++ sources the native build compiles in, copied by `npm pack` (scripts/native_deps.js) from the',
      "npm packages below, each with its own license files; none of them is installed with this package.",
      'The re2 package carries RE2 (BSD-3-Clause) and abseil (Apache-2.0), node-snowball carries',
      'libstemmer_c (BSD-3-Clause), @nozbe/simdjson carries simdjson (Apache-2.0).',
      '',
      '| package | license | files |',
      '|---|---|---|',
      ...lines,
      '',
    ].join('\n'),
  );
}

if (require.main === module) {
  const [command, name] = process.argv.slice(2);
  if (command === 'root' && name in packages) process.stdout.write(packageRoot(name));
  else if (command === 'vendor') vendor();
  else if (command === 'clean') fs.rmSync(depsDir, { recursive: true, force: true });
  else {
    console.error(`usage: native_deps.js root ${Object.keys(packages).join('|')} | vendor | clean`);
    process.exit(2);
  }
}

module.exports = { packageRoot };
