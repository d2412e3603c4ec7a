// The operator commands' command lines: each --help prints its usage and exits 0, a bad command
// line exits 2 with one line, and `tessera --help` lists them.
import test from 'ava';
import { runCli } from '../http/helpers';

const COMMANDS: Record<string, string[]> = {
  import: ['--collection', '--data', '--dimension', '--distance', '--batch-size', '--resume'],
  export: ['--collection', '--data', '--out'],
  stats: ['--data'],
};

for (const [command, flags] of Object.entries(COMMANDS)) {
  test(`tessera ${command} --help prints its usage and every flag with its default, and exits 0`, async (t) => {
    const r = await runCli([command, '--help']);
    t.is(r.code, 0);
    t.regex(r.stdout, new RegExp(`^usage: tessera ${command} `));
    for (const flag of flags) t.regex(r.stdout, new RegExp(`^  ${flag}\\b.*\\b(default|required)\\b`, 'm'), flag);
  });
}

test('tessera --help lists the operator commands', async (t) => {
  const r = await runCli(['--help']);
  for (const command of Object.keys(COMMANDS)) t.regex(r.stdout, new RegExp(`^  tessera ${command} +\\S`, 'm'));
});

const BAD: string[][] = [
  ['import', 'x.jsonl', '--collection', 'c', '--colour'],
  ['import', '--collection', 'c'],
  ['import', 'x.jsonl'],
  ['import', 'a.jsonl', 'b.jsonl', '--collection', 'c'],
  ['import', 'x.jsonl', '--collection', 'c', '--batch-size', '0'],
  ['import', 'x.jsonl', '--collection', 'c', '--distance', 'Manhattan'],
  ['import', 'x.jsonl', '--collection', 'c', '--resume=yes'],
  ['import', '/no/such/file.jsonl', '--collection', 'c'],
  ['export', '--colour'],
  ['export', '--data', '/tmp'],
  ['export', '--collection'],
  ['stats', '--colour'],
  ['stats', 'extra'],
];

test('a bad operator command line exits 2 with one line on stderr', async (t) => {
  for (const args of BAD) {
    const r = await runCli(args);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, /^tessera: [^\n]+\n$/, args.join(' '));
    t.is(r.stdout, '', args.join(' '));
  }
});
