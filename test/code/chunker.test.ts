// The code chunker (issue 13) on real snippets of each language: one chunk per symbol with its doc
// comment, containers split from their members, Markdown by heading, other text generically, and
// files with syntax errors still chunked.
import test from 'ava';
import { type CodeChunk, chunkFile } from '../../lib/index';

/** [symbol, kind, start_line, end_line] of every chunk. */
const outline = (chunks: CodeChunk[]) => chunks.map((c) => [c.symbol, c.kind, c.start_line, c.end_line]);
const bySymbol = (chunks: CodeChunk[], name: string) => chunks.find((c) => c.symbol === name)!;

test('TypeScript: decorators, doc comments, overloads, arrow functions, class split from its methods', async (t) => {
  const src = `import { Component } from 'x';

/** A widget. */
@Component({ selector: 'w' })
export class Widget {
  @Input() size = 1;
  /** Renders it. */
  render(): string {
    return 'w';
  }
  parse(text: string): number;
  parse(text: string, radix: number): number;
  parse(text: string, radix = 10): number {
    return parseInt(text, radix);
  }
  label = 'late field';
}

/** Parses JSON. */
export const parseJson = (s: string): unknown => JSON.parse(s);

interface Shape {
  area(): number;
}
`;
  const chunks = await chunkFile('src/widget.ts', src);
  t.deepEqual(outline(chunks), [
    [null, null, 1, 1],
    ['Widget', 'class', 3, 6],
    ['render', 'method', 7, 10],
    ['parse', 'method', 11, 11],
    ['parse', 'method', 12, 12],
    ['parse', 'method', 13, 15],
    ['Widget', 'class', 16, 17],
    ['parseJson', 'function', 19, 20],
    ['Shape', 'interface', 22, 22],
    ['area', 'method', 23, 23],
  ]);
  t.is(bySymbol(chunks, 'Widget').doc, 'A widget.');
  t.true(bySymbol(chunks, 'Widget').text.startsWith('/** A widget. */\n@Component'), 'doc and decorator are in the class chunk');
  t.false(bySymbol(chunks, 'Widget').text.includes('render'), 'the class chunk does not swallow its methods');
  t.is(bySymbol(chunks, 'render').doc, 'Renders it.');
  t.is(bySymbol(chunks, 'parseJson').doc, 'Parses JSON.');
  t.true(chunks.every((c) => c.language === 'typescript' && c.path === 'src/widget.ts'));
  for (const c of chunks) t.is(c.text, [...src].slice(c.char_start, c.char_start + [...c.text].length).join(''), 'each chunk is a slice at char_start');
});

test('TSX and JavaScript are parsed by their grammars', async (t) => {
  const tsx = await chunkFile('a.tsx', '/** Hi. */\nexport function Hello() {\n  return <div>hi</div>;\n}\n');
  t.deepEqual(outline(tsx), [['Hello', 'function', 1, 4]]);
  t.is(tsx[0].language, 'tsx');
  const js = await chunkFile('a.js', '// Adds.\nfunction add(a, b) { return a + b; }\nclass K { m() {} }\n');
  t.deepEqual(outline(js), [
    ['add', 'function', 1, 2],
    ['K', 'class', 3, 3],
    ['m', 'method', 3, 3],
  ]);
});

test('Python: decorators, docstrings, nested classes and methods', async (t) => {
  const src = `import os

# Cached helper.
@functools.cache
def helper(x):
    """Doubles x."""
    return x * 2

class Outer:
    """The outer class."""
    size = 3

    class Inner:
        """Nested."""
        def go(self):
            return 1

    @property
    def area(self):
        return self.size ** 2
`;
  const chunks = await chunkFile('m.py', src);
  t.deepEqual(outline(chunks), [
    [null, null, 1, 1],
    ['helper', 'function', 3, 7],
    ['Outer', 'class', 9, 11],
    ['Inner', 'class', 13, 14],
    ['go', 'method', 15, 16],
    ['area', 'method', 18, 20],
  ]);
  t.is(bySymbol(chunks, 'helper').doc, 'Cached helper.\nDoubles x.');
  t.is(bySymbol(chunks, 'Outer').doc, 'The outer class.');
  t.is(bySymbol(chunks, 'Inner').doc, 'Nested.');
});

test('Go, Rust, Java, C and C++', async (t) => {
  const go = await chunkFile('p.go', 'package p\n\n// Parse parses.\nfunc Parse() {}\n\n// T holds.\ntype T struct {\n\ta int\n}\n\nfunc (t *T) M() {}\n');
  t.deepEqual(outline(go), [
    [null, null, 1, 1],
    ['Parse', 'function', 3, 4],
    ['T', 'struct', 6, 9],
    ['M', 'method', 11, 11],
  ]);
  t.is(bySymbol(go, 'T').doc, 'T holds.');
  const rust = await chunkFile(
    'l.rs',
    '/// A point.\n#[derive(Debug)]\npub struct P { x: i32 }\n\nimpl P {\n    /// Length.\n    fn len(&self) -> i32 { self.x }\n}\n\nenum E { A }\n',
  );
  t.deepEqual(outline(rust), [
    ['P', 'struct', 1, 3],
    ['P', 'impl', 5, 5],
    ['len', 'method', 6, 7],
    ['E', 'enum', 10, 10],
  ]);
  t.is(bySymbol(rust, 'P').doc, 'A point.');
  const java = await chunkFile('C.java', '/** A C. */\n@Ann\npublic class C {\n  int x;\n  /** Does m. */\n  @Override\n  public void m() {}\n  C() {}\n}\n');
  t.deepEqual(outline(java), [
    ['C', 'class', 1, 4],
    ['m', 'method', 5, 7],
    ['C', 'method', 8, 8],
  ]);
  t.is(bySymbol(java, 'm').doc, 'Does m.');
  const c = await chunkFile('a.c', '/* Identity. */\nint f(int a) { return a; }\ntypedef struct { int a; } S;\n/* Declared. */\nint g(void);\n');
  t.deepEqual(outline(c), [
    ['f', 'function', 1, 2],
    ['S', 'struct', 3, 3],
    ['g', 'function', 4, 5],
  ]);
  const cpp = await chunkFile(
    'k.cc',
    'namespace n {\n/// A K.\nclass K {\n public:\n  // Makes one.\n  K();\n  int m() const { return 1; }\n};\ntemplate <typename T> T id(T x) { return x; }\n}\n',
  );
  t.deepEqual(outline(cpp), [
    ['n', 'namespace', 1, 1],
    ['K', 'class', 2, 4],
    ['K', 'method', 5, 6],
    ['m', 'method', 7, 7],
    ['id', 'function', 9, 9],
  ]);
  t.is(bySymbol(cpp, 'K').doc, 'A K.');
});

test('a file with syntax errors still yields chunks, its intact symbols among them', async (t) => {
  const chunks = await chunkFile('bad.py', 'def good():\n    return 1\n\ndef broken(:\n    return (\n\nclass Fine:\n    pass\n');
  t.true(chunks.length > 0);
  t.truthy(chunks.find((c) => c.symbol === 'good' && c.kind === 'function'));
  t.true(
    chunks
      .map((c) => c.text)
      .join('\n')
      .includes('broken'),
    'the broken part is still indexed',
  );
  const ts = await chunkFile('bad.ts', 'function ok() { return 1 }\nfunction broken( {\n');
  t.truthy(ts.find((c) => c.symbol === 'ok'));
});

test('Markdown is chunked by heading and other text generically, with null language, symbol and kind', async (t) => {
  const md = await chunkFile('README.md', `# Install\n\n${'Run it. '.repeat(20)}\n\n# Use\n\nSearch.\n`, { max_chars: 400, overlap_chars: 0 });
  t.deepEqual(outline(md), [
    [null, null, 1, 4],
    [null, null, 5, 7],
  ]);
  t.true(md.every((c) => c.language === null && c.doc === ''));
  const txt = await chunkFile('notes.txt', `${'word '.repeat(300)}\n`, { max_chars: 500, overlap_chars: 50 });
  t.true(txt.length >= 3);
  t.true(txt.every((c) => c.language === null && c.symbol === null && c.kind === null));
  t.deepEqual(await chunkFile('empty.txt', '  \n'), []);
});

test('long code between symbols is cut at max_chars; a long symbol is never cut', async (t) => {
  const statements = Array.from({ length: 60 }, (_, i) => `console.log(${i});`).join('\n');
  const body = Array.from({ length: 60 }, (_, i) => `  x += ${i};`).join('\n');
  const chunks = await chunkFile('s.js', `${statements}\nfunction long() {\n${body}\n}\n`, { max_chars: 200, overlap_chars: 0 });
  const top = chunks.filter((c) => c.symbol === null);
  t.true(top.length > 1 && top.every((c) => c.text.length <= 200));
  t.is(chunks.filter((c) => c.symbol === 'long').length, 1);
});
