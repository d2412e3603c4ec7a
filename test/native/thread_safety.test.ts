// The core's lock discipline, checked by clang's -Wthread-safety: the members and functions
// annotated in native/src (util/thread_annotations.h) are used only with the mutex they name held.
// Each translation unit that sees an annotated mutex is compiled with clang++ -fsyntax-only and the
// flags the addon's build gave store.cc (compile_commands.json); a file breaking the rule is a
// compile error naming the member and the mutex.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { root } from '../../lib/native';
import { tempDir } from '../core/helpers';
import { testNeedingTools } from '../harness/optional_tools';
import { build, buildNativeTools } from './build';

interface CompileCommand {
  directory: string;
  file: string;
  arguments?: string[];
  command?: string;
}

/** The flags the build compiled store.cc with, minus its output, dependency file and GCC-only warnings. */
function coreFlags(): string[] {
  const commands: CompileCommand[] = JSON.parse(readFileSync(path.join(build, 'compile_commands.json'), 'utf8'));
  const store = commands.find((c) => c.file.endsWith(path.join('native', 'src', 'store.cc')));
  if (!store) throw new Error(`no store.cc in ${build}/compile_commands.json`);
  const args = store.arguments ?? store.command!.split(/\s+/);
  const flags: string[] = [];
  for (let i = 1; i < args.length; i++) {
    if (['-o', '-MF', '-MT', '-MQ'].includes(args[i])) i++;
    else if (args[i] === '-c' || args[i] === '-MD' || args[i].endsWith('.cc') || args[i] === '-Wno-dangling-pointer') continue;
    else flags.push(args[i]);
  }
  return flags;
}

/** Every .cc under native/src that includes an annotated header. */
function annotatedSources(): string[] {
  const src = path.join(root, 'native/src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.cc'));
  const annotated = /#include "(util\/mutex|store_impl|group_commit|background_scheduler)\.h"/;
  return files.filter((f) => annotated.test(readFileSync(path.join(src, f), 'utf8'))).map((f) => path.join(src, f));
}

const clangCheck = (flags: string[], file: string) =>
  execFileSync('clang++', [...flags, '-fsyntax-only', '-Wthread-safety', '-Werror=thread-safety', '-Wno-unused-command-line-argument', file], {
    cwd: build,
    encoding: 'utf8',
    stdio: 'pipe',
  });

testNeedingTools(['clang++'], "every use of an annotated member holds the mutex it names (clang's -Wthread-safety)", (t) => {
  buildNativeTools();
  const flags = coreFlags();
  const sources = annotatedSources();
  t.true(
    sources.some((f) => f.endsWith('store.cc')),
    sources.join(' '),
  );
  for (const file of sources) {
    try {
      clangCheck(flags, file);
    } catch (e) {
      t.fail(`${path.relative(root, file)}:\n${String((e as { stderr?: string }).stderr).slice(0, 4000)}`);
    }
  }
  t.pass();
});

testNeedingTools(['clang++'], 'a member touched without its mutex fails the check, naming both', (t) => {
  buildNativeTools();
  const file = path.join(tempDir('thread-safety'), 'unguarded.cc');
  writeFileSync(
    file,
    '#include "util/mutex.h"\nstruct Counter {\n  tessera::Mutex mu;\n  int n TS_GUARDED_BY(mu) = 0;\n  void Bump() { n++; }\n};\nint main() { Counter c; c.Bump(); }\n',
  );
  const error = t.throws(() => clangCheck(coreFlags(), file)) as { stderr?: string };
  t.regex(String(error.stderr), /writing variable 'n' requires holding mutex 'mu' exclusively/);
});
