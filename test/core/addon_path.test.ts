import test from 'ava';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import '../../lib/native';

// lib/native.ts loads the file TESSERA_ADDON_PATH names instead of the usual build (npm run
// test:asan points it at the sanitizer build); without it, the build or prebuild node-gyp-build
// picks, and a failure says how to build one.

const nativeModule = path.join(__dirname, '../../lib/native.js');
const loadedAddons = () => Object.keys(require.cache).filter((file) => file.endsWith('.node'));
const dir = mkdtempSync(path.join(tmpdir(), 'tessera-addon-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

/** Loads lib/native in a fresh node with TESSERA_ADDON_PATH set; prints the addon files it loaded. */
function loadWith(addonPath: string | undefined, module = nativeModule): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `require(${JSON.stringify(module)}); console.log(Object.keys(require.cache).filter((f) => f.endsWith('.node')).join('\\n'))`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', script], { env: { ...process.env, TESSERA_ADDON_PATH: addonPath } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('TESSERA_ADDON_PATH loads that tessera.node and no other', async (t) => {
  const [usual] = loadedAddons();
  t.truthy(usual, 'this process loaded an addon');
  const copy = path.join(dir, 'copy.node');
  copyFileSync(usual, copy);
  const { code, stdout, stderr } = await loadWith(copy);
  t.is(code, 0, stderr);
  t.is(stdout.trim(), copy);
});

test('a TESSERA_ADDON_PATH naming no file fails the load with that path', async (t) => {
  const missing = path.join(dir, 'missing.node');
  const { code, stderr } = await loadWith(missing);
  t.not(code, 0);
  t.true(stderr.includes(missing), stderr);
});

test('a package with neither a build nor a matching prebuild fails the load naming the platform and the build command', async (t) => {
  const pkg = path.join(dir, 'unbuilt');
  mkdirSync(path.join(pkg, 'dist/lib'), { recursive: true });
  for (const file of ['package.json', 'CMakeLists.txt']) writeFileSync(path.join(pkg, file), '{}');
  copyFileSync(nativeModule, path.join(pkg, 'dist/lib/native.js'));
  symlinkSync(path.join(__dirname, '../../../node_modules'), path.join(pkg, 'node_modules'));
  const { code, stderr } = await loadWith(undefined, path.join(pkg, 'dist/lib/native.js'));
  t.not(code, 0);
  t.regex(stderr, new RegExp(`cannot load the native addon for ${process.platform}-${process.arch}: No native build was found`));
  t.regex(stderr, /TESSERA_BUILD_FROM_SOURCE=1 npm rebuild tessera/);
});
