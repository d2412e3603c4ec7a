import test from 'ava';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { testNeedingTools } from '../harness/optional_tools';
import { call, tempDir, until } from '../http/helpers';

// The package as a user gets it (npm run test:package; .ci/run runs it after npm test): `npm pack`
// of this tree after `npm run prebuild`, installed into an empty project by a machine with Node and
// npm only (no compiler, cmake, make or Python on PATH), then used through `npx tessera serve`,
// `import` and `require`. The linux-arm64 prebuild, which cannot run here, is checked under qemu.

const root = path.resolve(__dirname, '../../..');
const host = `${process.platform}-${process.arch}`;
const libcTag = process.platform === 'linux' ? '.glibc' : '';

let tarball: string;
let files: string[];
/** The tarball's prebuilds/, unpacked. */
let prebuilds: string;
let app: string;
let installSeconds: number;
/** The environment of the user's shell: PATH holds node, npm, npx and sh (npm runs scripts with it), and nothing else. */
let userEnv: NodeJS.ProcessEnv;

test.before(() => {
  const out = tempDir();
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  tarball = path.join(out, packed.filename);
  files = packed.files.map((f: { path: string }) => f.path);
  execFileSync('tar', ['-xzf', tarball, '-C', out, 'package/prebuilds']);
  prebuilds = path.join(out, 'package/prebuilds');
  console.log(`packed ${packed.filename}: ${(packed.size / 1e6).toFixed(1)} MB, ${packed.entryCount} files`);

  const bin = path.join(out, 'bin');
  mkdirSync(bin);
  for (const tool of ['node', 'npm', 'npx', 'sh']) symlinkSync(realpathSync(execFileSync('which', [tool], { encoding: 'utf8' }).trim()), path.join(bin, tool));
  // HOME keeps the user's npm configuration and cache (warm after the clone's own npm ci).
  userEnv = { PATH: bin, HOME: homedir() };
  app = path.join(out, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  const start = process.hrtime.bigint();
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: app, env: userEnv, stdio: 'inherit' });
  installSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`npm install of the tarball: ${installSeconds.toFixed(1)} s`);
});

test('the user PATH has no compiler, cmake, make or Python', (t) => {
  for (const tool of ['cc', 'gcc', 'c++', 'g++', 'clang', 'cmake', 'make', 'ninja', 'python', 'python3']) {
    t.throws(() => execFileSync('sh', ['-c', `command -v ${tool}`], { env: userEnv }), undefined, tool);
  }
});

/** The platforms `npm run prebuild` builds here: the host's, plus linux-arm64 on linux-x64 (cross). */
const builtHere = host === 'linux-x64' ? ['linux-x64', 'linux-arm64'] : [host];

test('the tarball holds the prebuilds, the native sources with their licenses, and no test or bench files', (t) => {
  for (const platform of builtHere) t.true(files.includes(`prebuilds/${platform}/tessera${libcTag}.node`), platform);
  for (const license of [
    'deps/re2/LICENSE',
    'deps/re2/vendor/re2/LICENSE',
    'deps/re2/vendor/abseil-cpp/LICENSE',
    'deps/node-snowball/LICENSE',
    'deps/node-snowball/src/libstemmer/COPYING',
    'deps/@nozbe/simdjson/LICENSE',
  ]) {
    t.true(files.includes(license), license);
  }
  for (const source of [
    'CMakeLists.txt',
    'native/src/store.cc',
    'deps/@nozbe/simdjson/src/simdjson.cpp',
    'deps/re2/vendor/re2/re2/re2.cc',
    'scripts/install_native.js',
  ]) {
    t.true(files.includes(source), source);
  }
  t.deepEqual(
    files.filter((f) => /^(test|bench|dist\/test|dist\/bench|native\/test)\/|(^|\/)[^/]*\.test\.[jt]s$/.test(f)),
    [],
  );
});

test('a consumer installs no package that only lends C++ sources, and nothing compiles', (t) => {
  const pkg = JSON.parse(readFileSync(path.join(app, 'node_modules/tessera/package.json'), 'utf8'));
  for (const name of ['re2', 'node-snowball', '@nozbe/simdjson']) {
    t.false(name in pkg.dependencies, `${name} is not a dependency`);
    t.false(existsSync(path.join(app, 'node_modules', name)), `${name} is not installed`);
  }
  const compiled = readdirSync(path.join(app, 'node_modules'), { recursive: true, encoding: 'utf8' }).filter((f) => /(^|\/)build\/(Release|Debug)\//.test(f));
  t.deepEqual(compiled, [], 'no package built anything (node-gyp and cmake-js build into build/)');
  const loaded = execFileSync('node', ['-p', `require('node-gyp-build').resolve(${JSON.stringify(path.join(app, 'node_modules/tessera'))})`], {
    cwd: app,
    env: userEnv,
    encoding: 'utf8',
  });
  t.is(path.relative(path.join(app, 'node_modules/tessera'), loaded.trim()), `prebuilds/${host}/tessera${libcTag}.node`);
  t.log(`install took ${installSeconds.toFixed(1)} s`);
});

test('the package loads from ESM and from CommonJS, as one module', (t) => {
  const script = `
    import { createRequire } from 'node:module';
    const esm = await import('tessera');
    const cjs = createRequire(import.meta.url)('tessera');
    const store = await esm.Store.open({ inMemory: true, dimension: 2 });
    console.log(typeof esm.Store, esm.Store === cjs.Store, store instanceof cjs.Store);
    await store.close();`;
  const out = execFileSync('node', ['--input-type=module', '-e', script], { cwd: app, env: userEnv, encoding: 'utf8' });
  t.is(out.trim(), 'function true true');
});

test('TypeScript finds the types from an ESM and from a CommonJS consumer', (t) => {
  const uses = [
    "import { Store, StoreError } from 'tessera';",
    'export const open: typeof Store.open = Store.open;',
    'export const isStoreError = (e: unknown): e is StoreError => e instanceof StoreError;',
    '// @ts-expect-error: the types are real, not any',
    'Store.noSuchMember;',
  ].join('\n');
  writeFileSync(path.join(app, 'esm.mts'), uses);
  writeFileSync(path.join(app, 'cjs.cts'), uses);
  const compilerOptions = {
    module: 'nodenext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    typeRoots: [path.join(root, 'node_modules/@types')],
    types: ['node'],
  };
  writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['esm.mts', 'cjs.cts'] }));
  t.notThrows(() => execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', app], { encoding: 'utf8' }));
});

// Debian 12 builds them; libstdc++ is linked in (TESSERA_STATIC_RUNTIME), so they load on any
// glibc from 2.34 (Ubuntu 22.04, RHEL 9, Debian 12) whatever its libstdc++.
if (process.platform === 'linux') {
  test('the Linux prebuilds need only glibc 2.34 or older and libgcc_s', (t) => {
    for (const platform of builtHere) {
      const addon = path.join(prebuilds, platform, 'tessera.glibc.node');
      const needed = [...execFileSync('readelf', ['-d', addon], { encoding: 'utf8' }).matchAll(/\(NEEDED\).*\[(.+)\]/g)].map((m) => m[1]);
      t.deepEqual(
        needed.filter((lib) => !/^(libc|libm|libgcc_s|ld-linux-[\w-]+)\.so/.test(lib)),
        [],
        platform,
      );
      const versions = [...execFileSync('readelf', ['--dyn-syms', '--wide', addon], { encoding: 'utf8' }).matchAll(/@GLIBC_2\.(\d+)/g)].map((m) =>
        Number(m[1]),
      );
      t.true(Math.max(...versions) <= 34, `${platform} needs glibc 2.${Math.max(...versions)}`);
    }
  });
}

/** `npx tessera serve ...` in the user's project; resolves its URL once it listens. */
async function serve(args: string[]): Promise<{ url: string; proc: ChildProcess }> {
  // Its own process group: npx runs the CLI under a shell, and the test stops all of them.
  const proc = spawn('npx', ['tessera', 'serve', '--port', '0', '--log-level', 'warn', ...args], { cwd: app, env: userEnv, detached: true });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d) => (stdout += d));
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => proc.on('close', resolve));
  await Promise.race([
    until(() => /listening on http:\/\/\S+\n/.test(stdout), 'tessera serve listening', 60_000),
    exited.then((code) => Promise.reject(new Error(`exited ${code}: ${stderr}`))),
  ]);
  return { url: /listening on (http:\/\/\S+)\n/.exec(stdout)![1], proc };
}

test('npx tessera serve answers an upsert, a search and a text search', async (t) => {
  const server = await serve(['--in-memory', '--dimension', '3']);
  t.teardown(() => process.kill(-server.proc.pid!, 'SIGKILL'));
  const records = [
    { id: 'river', vector: [1, 0, 0], attrs: { body: { Str: 'The river runs to the sea' } } },
    { id: 'hill', vector: [0, 1, 0], attrs: { body: { Str: 'A quiet hill above the town' } } },
  ];
  t.deepEqual((await call(server, 'POST', '/collections/docs/upsert', { records })).json, { upserted: 2 });
  t.is((await call(server, 'POST', '/collections/docs/fts-schema', { fields: ['body'] })).status, 200);
  const nearest = await call(server, 'POST', '/search', { query: [0.9, 0.1, 0], top_k: 1 });
  t.deepEqual(
    nearest.json.map((h: { id: string }) => h.id),
    ['river'],
  );
  const text = await call(server, 'POST', '/text-search', { field: 'body', query: 'running rivers' });
  t.deepEqual(
    text.json.map((h: { id: string }) => h.id),
    ['river'],
  );
});

// An x86-64 host cannot run the arm64 addon in Node (there is no arm64 node here); it checks what
// it can: an AArch64 shared object exporting the Node-API entry point, with the NEON kernels in its
// code (sdot: neon-dotprod; fmla on 4 x f32 lanes: neon), that loads under qemu on an ARMv8.0 CPU
// and on one with every extension. The kernels themselves are checked under qemu by
// test/native/neon.test.ts (npm test), compiled by the same cross compiler.
if (host === 'linux-x64') {
  testNeedingTools(
    ['aarch64-linux-gnu-g++', 'qemu-aarch64'],
    'the linux-arm64 prebuild is an AArch64 Node-API addon with the NEON kernels that loads under qemu',
    (t) => {
      const addon = path.join(prebuilds, 'linux-arm64/tessera.glibc.node');
      t.regex(execFileSync('readelf', ['-h', addon], { encoding: 'utf8' }), /Machine:\s+AArch64/);
      const symbols = execFileSync('readelf', ['--dyn-syms', '--wide', addon], { encoding: 'utf8' });
      t.regex(symbols, /FUNC\s+GLOBAL\s+DEFAULT\s+\d+\s+napi_register_module_v1$/m);
      const code = execFileSync('aarch64-linux-gnu-objdump', ['-d', addon], { encoding: 'utf8', maxBuffer: 1 << 30 });
      t.regex(code, /\bsdot\s+v\d+\.4s/);
      t.regex(code, /\bfmla\s+v\d+\.4s/);
      // Stand-ins for the Node-API functions the addon imports from Node (none is called).
      const work = tempDir();
      const imports = [...symbols.matchAll(/\sUND\s+((?:napi|node_api)_\w+)$/gm)].map((m) => m[1]);
      writeFileSync(path.join(work, 'standins.c'), imports.map((name) => `void ${name}(void) {}\n`).join(''));
      execFileSync('aarch64-linux-gnu-gcc', ['-shared', '-fPIC', path.join(work, 'standins.c'), '-o', path.join(work, 'standins.so')]);
      execFileSync('aarch64-linux-gnu-gcc', ['-O2', path.join(root, 'test/package/load-addon.c'), '-o', path.join(work, 'load-addon')]);
      for (const cpu of ['cortex-a57', 'max']) {
        const args = ['-cpu', cpu, '-L', '/usr/aarch64-linux-gnu', path.join(work, 'load-addon'), path.join(work, 'standins.so'), addon];
        const out = execFileSync('qemu-aarch64', args, { encoding: 'utf8' });
        t.is(out.trim(), 'loaded, napi_register_module_v1 found', cpu);
      }
    },
  );
}
