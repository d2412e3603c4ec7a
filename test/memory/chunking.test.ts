// The spec's chunking rules (issue 12) through chunkText and parseChunkOptions: options and their
// errors, the invariants every chunking keeps (checked over seeded random texts), which separator
// wins, Markdown's headings and fences, Sentence's naive breaks, and code points as the unit.
import test from 'ava';
import { type Chunk, type ChunkOptions, ChunkingError, type ChunkStrategy, chunkText, parseChunkOptions } from '../../lib/features/memory/chunking';
import { prng } from '../core/helpers';

const texts = (chunks: Chunk[]) => chunks.map((c) => c.text);
const length = (c: Chunk) => [...c.text].length;
const end = (c: Chunk) => c.char_start + length(c);
const isBlank = (s: string) => /^\s*$/u.test(s);

// --- Options ------------------------------------------------------------------------------------

test('default options are Recursive, max_chars 1000, overlap_chars 100', (t) => {
  const defaults = { strategy: 'Recursive', max_chars: 1000, overlap_chars: 100 };
  t.deepEqual(parseChunkOptions(undefined), defaults);
  t.deepEqual(parseChunkOptions({}), defaults);
  const text = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
  const chunks = chunkText(text);
  t.deepEqual(chunks, chunkText(text, { strategy: 'Recursive', max_chars: 1000, overlap_chars: 100 }));
  t.true(chunks.length > 2);
  for (const c of chunks) t.true(length(c) <= 1000);
  for (let i = 1; i < chunks.length; i++) t.is(chunks[i].char_start, end(chunks[i - 1]) - 100);
});

test('max_chars 0 is an error naming chunking.max_chars', (t) => {
  t.throws(() => chunkText('some text', { max_chars: 0, overlap_chars: 0 }), { instanceOf: ChunkingError, message: /chunking\.max_chars/ });
  t.throws(() => parseChunkOptions({ max_chars: 0, overlap_chars: 0 }), { instanceOf: ChunkingError, message: /chunking\.max_chars/ });
});

test('overlap_chars at or above max_chars is an error naming chunking.overlap_chars and the fix', (t) => {
  for (const options of [{ max_chars: 10, overlap_chars: 10 }, { max_chars: 10, overlap_chars: 11 }, { max_chars: 50 }]) {
    const e = t.throws(() => chunkText('some text', options), { instanceOf: ChunkingError }, JSON.stringify(options));
    t.regex(e.message, /chunking\.overlap_chars .* less than chunking\.max_chars/);
    t.regex(e.message, /lower overlap_chars or raise max_chars/);
  }
  t.notThrows(() => chunkText('some text', { max_chars: 10, overlap_chars: 9 }));
});

test('negative, fractional and wrongly typed options are errors naming the field', (t) => {
  const cases: Array<[unknown, string]> = [
    [{ max_chars: -5 }, 'chunking.max_chars'],
    [{ max_chars: 12.5 }, 'chunking.max_chars'],
    [{ max_chars: '100' }, 'chunking.max_chars'],
    [{ max_chars: null }, 'chunking.max_chars'],
    [{ max_chars: Number.POSITIVE_INFINITY }, 'chunking.max_chars'],
    [{ overlap_chars: -1 }, 'chunking.overlap_chars'],
    [{ overlap_chars: 0.5 }, 'chunking.overlap_chars'],
    [{ overlap_chars: true }, 'chunking.overlap_chars'],
    [{ strategy: 'recursive' }, 'chunking.strategy'],
    [{ strategy: 3 }, 'chunking.strategy'],
  ];
  for (const [value, field] of cases) {
    const e = t.throws(() => parseChunkOptions(value), { instanceOf: ChunkingError }, JSON.stringify(value));
    t.true(e.message.startsWith(`${field} `), e.message);
  }
});

test('unknown keys and a chunking value that is no object are errors', (t) => {
  const unknown = { instanceOf: ChunkingError, message: /chunking\.max_tokens is not a chunking option/ };
  t.throws(() => parseChunkOptions({ max_tokens: 100 }), unknown);
  t.throws(() => parseChunkOptions({ toString: 1 }), { instanceOf: ChunkingError, message: /chunking\.toString/ });
  for (const value of [null, 5, 'Recursive', [1000, 100]]) {
    t.throws(() => parseChunkOptions(value), { instanceOf: ChunkingError, message: /^chunking must be an object/ }, String(value));
  }
  const valid = { strategy: 'Markdown', max_chars: 300, overlap_chars: 0 };
  t.deepEqual(parseChunkOptions(valid), valid);
});

// --- Invariants over seeded random texts -----------------------------------------------------------

const WORDS = ['alpha', 'beta', 'x', 'Tessera', 'café', 'naïve', '中文', '漢字かな', '😀', '👍🏽', '𝔘𝔫𝔦', '3.14', 'e.g'];
WORDS.push('averylongwordwithoutanyspace', '😀'.repeat(10));
const SEPARATORS = [' ', ' ', ' ', '  ', '\t', '\n', '\n\n', '\n \n', '\r\n', '. ', '! ', '? ', '.', '\u00a0', '\u3000', '   \n\n\n   '];
const MARKDOWN = ['\n# Heading\n', '\n## Sub heading\n', '\n```\ncode line\n\n# not a heading\n```\n', '\n~~~\n~~~\n'];
MARKDOWN.push('\n```js\nunclosed ');
const PAIRS: Array<[number, number]> = [
  [1, 0],
  [2, 1],
  [7, 0],
  [7, 6],
  [16, 3],
  [40, 0],
  [40, 39],
  [120, 20],
  [1000, 100],
];
const STRATEGIES: ChunkStrategy[] = ['Recursive', 'Markdown', 'Sentence'];

/** A random text of words, separators (some long runs) and Markdown pieces; some texts are blank. */
function randomText(seed: number): string {
  const rand = prng(seed);
  const pick = (list: string[]) => list[Math.floor(rand() * list.length)];
  if (rand() < 0.05) return pick(SEPARATORS).repeat(1 + Math.floor(rand() * 3));
  const parts: string[] = [];
  for (let n = Math.floor(rand() * 150); n > 0; n--) {
    const r = rand();
    parts.push(r < 0.5 ? pick(WORDS) : r < 0.93 ? pick(SEPARATORS) : r < 0.98 ? pick(MARKDOWN) : ' '.repeat(50));
  }
  return parts.join('');
}

interface Case {
  name: string;
  source: string[];
  options: Required<ChunkOptions>;
  chunks: Chunk[];
}

const CASES: Case[] = [];
for (let seed = 1; seed <= 120; seed++) {
  const text = randomText(seed);
  for (const strategy of STRATEGIES) {
    for (const [max_chars, overlap_chars] of PAIRS) {
      const options = { strategy, max_chars, overlap_chars };
      CASES.push({ name: `seed ${seed} ${JSON.stringify(options)}`, source: [...text], options, chunks: chunkText(text, options) });
    }
  }
}

/** The span chunks must cover: the first non-whitespace code point to just after the last (-1, -1: none). */
function textSpan(source: string[]): [number, number] {
  let lo = -1;
  let hi = -1;
  source.forEach((c, i) => {
    if (isBlank(c)) return;
    if (lo < 0) lo = i;
    hi = i + 1;
  });
  return [lo, hi];
}

/** Runs `check` over every case and fails with the first few cases it names. */
function everyCase(t: { deepEqual(a: unknown, b: unknown): void }, check: (c: Case) => string | null): void {
  const failures: string[] = [];
  for (const c of CASES) {
    const problem = check(c);
    if (problem !== null) failures.push(`${c.name}: ${problem}`);
  }
  t.deepEqual(failures.slice(0, 5), []);
}

test('every chunk is an exact slice of the source at its char_start, indexed in order', (t) => {
  everyCase(t, ({ source, chunks }) => {
    for (const [i, c] of chunks.entries()) {
      if (c.index !== i) return `chunk ${i} has index ${c.index}`;
      if (source.slice(c.char_start, end(c)).join('') !== c.text) return `chunk ${i} is not the slice at ${c.char_start}`;
    }
    return null;
  });
});

test('no chunk is longer than max_chars code points', (t) => {
  everyCase(t, ({ chunks, options }) => {
    const long = chunks.find((c) => length(c) > options.max_chars);
    return long ? `chunk ${long.index} has ${length(long)} code points` : null;
  });
});

test('no chunk is whitespace only, and blank input gives none', (t) => {
  everyCase(t, ({ source, chunks }) => {
    if (textSpan(source)[0] < 0) return chunks.length === 0 ? null : 'blank text gave chunks';
    const blank = chunks.find((c) => isBlank(c.text));
    return blank ? `chunk ${blank.index} is whitespace only` : null;
  });
});

test('the next chunk starts exactly overlap_chars before the previous end, unless only whitespace lies there', (t) => {
  everyCase(t, ({ source, chunks, options }) => {
    const [lo] = textSpan(source);
    for (let i = 1; i < chunks.length; i++) {
      const exact = Math.max(lo, end(chunks[i - 1]) - options.overlap_chars);
      const start = chunks[i].char_start;
      if (start === exact) continue;
      // The one exception: max_chars or more of whitespace from there, skipped to the next text.
      const skipped = source.slice(exact, start);
      if (start < exact || skipped.length < options.max_chars || !isBlank(skipped.join('')) || isBlank(source[start]))
        return `chunk ${i} starts at ${start}, not ${exact}`;
    }
    return null;
  });
});

test('each chunk ends strictly after the previous one, so chunking terminates', (t) => {
  everyCase(t, ({ chunks }) => {
    for (let i = 1; i < chunks.length; i++) {
      if (end(chunks[i]) <= end(chunks[i - 1])) return `chunk ${i} does not progress`;
    }
    return null;
  });
});

test('chunks cover every non-whitespace character, from the first to the last', (t) => {
  everyCase(t, ({ source, chunks }) => {
    const [lo, hi] = textSpan(source);
    if (lo < 0) return null;
    const last = chunks[chunks.length - 1];
    if (chunks[0].char_start !== lo || end(last) !== hi) return `chunks span ${chunks[0].char_start}..${end(last)}, not ${lo}..${hi}`;
    const covered = new Array<boolean>(source.length).fill(false);
    for (const c of chunks) covered.fill(true, c.char_start, end(c));
    const missed = source.findIndex((ch, i) => !covered[i] && !isBlank(ch));
    return missed < 0 ? null : `character ${missed} is in no chunk`;
  });
});

// --- Separator ladder -------------------------------------------------------------------------------

const recursive = (text: string, max_chars: number, overlap_chars = 0) => texts(chunkText(text, { max_chars, overlap_chars }));

test('a paragraph break wins over later line, sentence and space breaks', (t) => {
  const text = 'One two.\n\nThree four. Five six\nseven eight nine';
  t.deepEqual(recursive(text, 40), ['One two.\n\n', 'Three four. Five six\nseven eight nine']);
});

test('a line break wins over later sentence and space breaks', (t) => {
  t.deepEqual(recursive('One two\nthree. Four five six. Seven eight nine', 40), ['One two\n', 'three. Four five six. Seven eight nine']);
});

test('a sentence break wins over later spaces', (t) => {
  t.deepEqual(recursive('One two. Three four five six seven eight nine', 30), ['One two. ', 'Three four five six seven ', 'eight nine']);
});

test('a space wins over a hard cut', (t) => {
  t.deepEqual(recursive('one two three four', 9), ['one two ', 'three ', 'four']);
});

test('a word longer than max_chars is hard cut at exactly max_chars', (t) => {
  t.deepEqual(recursive('abcdefghijklmnopqrstuvwxyz', 10, 2), ['abcdefghij', 'ijklmnopqr', 'qrstuvwxyz']);
});

test('a hard cut never splits a surrogate pair', (t) => {
  const text = `${'😀𝔘'.repeat(20)}`;
  for (const [max, overlap] of [
    [7, 0],
    [7, 3],
    [1, 0],
    [2, 1],
  ]) {
    const chunks = chunkText(text, { max_chars: max, overlap_chars: overlap });
    for (const c of chunks) {
      t.false(/[\ud800-\udfff]/u.test(c.text), `lone surrogate in ${JSON.stringify(c.text)}`);
      t.true(length(c) <= max);
    }
    t.deepEqual([...chunks[0].text], [...text].slice(0, max));
  }
});

test('leading and trailing whitespace is in no chunk', (t) => {
  const chunks = chunkText('\n\n  Hello there.  \n', { max_chars: 100, overlap_chars: 0 });
  t.deepEqual(chunks, [{ index: 0, text: 'Hello there.', char_start: 4 }]);
});

test('a whitespace run of max_chars or more is skipped, not chunked', (t) => {
  t.deepEqual(chunkText(`left${' '.repeat(30)}right`, { max_chars: 10, overlap_chars: 2 }), [
    { index: 0, text: `left${' '.repeat(6)}`, char_start: 0 },
    { index: 1, text: 'right', char_start: 34 },
  ]);
});

test('overlap behind a chunk shorter than overlap_chars reaches back to the first character, no further', (t) => {
  const chunks = chunkText('  Hi.\n\nA second paragraph that is long.', { max_chars: 20, overlap_chars: 8 });
  t.deepEqual(chunks.slice(0, 2), [
    { index: 0, text: 'Hi.\n\n', char_start: 2 },
    { index: 1, text: 'Hi.\n\nA second ', char_start: 2 },
  ]);
});

test('overlap_chars = max_chars - 1 advances one character per chunk', (t) => {
  const chunks = chunkText('abcdef', { max_chars: 3, overlap_chars: 2 });
  t.deepEqual(texts(chunks), ['abc', 'bcd', 'cde', 'def']);
});

test('char_start counts code points, not UTF-16 units or bytes', (t) => {
  const text = 'é中😀 word\n\nnext';
  const chunks = chunkText(text, { max_chars: 10, overlap_chars: 0 });
  t.deepEqual(texts(chunks), ['é中😀 word\n\n', 'next']);
  t.is(chunks[1].char_start, 10);
  t.is(text.indexOf('next'), 11);
  t.is(Buffer.byteLength(text.slice(0, 11)), 16);
});

// --- Markdown ----------------------------------------------------------------------------------------

const markdown = (text: string, max_chars: number) => texts(chunkText(text, { strategy: 'Markdown', max_chars, overlap_chars: 0 }));

test('Markdown: every heading begins a new chunk, sections are not packed together', (t) => {
  const text = '# A\nalpha text\n## B\nbeta text\n# C\ngamma';
  t.deepEqual(markdown(text, 1000), ['# A\nalpha text\n', '## B\nbeta text\n', '# C\ngamma']);
  t.deepEqual(recursive(text, 1000), [text]);
});

test('Markdown: "#" without a space, or indented, is no heading', (t) => {
  t.deepEqual(markdown('# A\n#hashtag line\n #indented\n', 1000), ['# A\n#hashtag line\n #indented']);
});

test('Markdown: a fence that fits is never cut, even at its blank lines and "# not a heading" lines', (t) => {
  const fence = '```\nline one\n\n# not a heading\nline two\n```';
  const text = `# Intro\nSome words here.\n\n${fence}\nAfter the fence.\n`;
  const chunks = markdown(text, 60);
  t.deepEqual(chunks, ['# Intro\nSome words here.\n\n', `${fence}\nAfter the fence.`]);
  // The Recursive ladder alone ends the first chunk at the fence's blank line.
  t.true(recursive(text, 60)[0].endsWith('line one\n\n'));
});

test('Markdown: a ~~~ fence closes only on a matching fence at least as long', (t) => {
  const text = 'Before.\n\n~~~~\ncode\n```\n~~~\n\nstill code\n~~~~\nAfter.';
  t.deepEqual(markdown(text, 45), ['Before.\n\n', '~~~~\ncode\n```\n~~~\n\nstill code\n~~~~\nAfter.']);
});

test('Markdown: a fence longer than max_chars becomes its own chunks, cut at its line breaks', (t) => {
  const lines = Array.from({ length: 30 }, (_, i) => `code line ${String(i).padStart(2, '0')}\n`).join('');
  const text = `Intro.\n\n\`\`\`\n${lines}\`\`\`\nOutro.`;
  const chunks = chunkText(text, { strategy: 'Markdown', max_chars: 100, overlap_chars: 10 });
  t.is(chunks[0].text, 'Intro.\n\n');
  t.true(chunks[1].text.includes('```\ncode line 00\n'));
  for (const c of chunks.slice(1, -1)) {
    t.true(length(c) <= 100);
    t.true(c.text.endsWith('\n'), `ends at a line break: ${JSON.stringify(c.text)}`);
  }
  t.true(chunks[chunks.length - 1].text.endsWith('```\nOutro.'));
});

// --- Sentence ----------------------------------------------------------------------------------------

const sentence = (text: string, max_chars: number) => texts(chunkText(text, { strategy: 'Sentence', max_chars, overlap_chars: 0 }));

test('Sentence: breaks after ".", "!" and "?" followed by whitespace or the end', (t) => {
  t.deepEqual(sentence('Stop. Go! Why? End.', 8), ['Stop. ', 'Go! ', 'Why? ', 'End.']);
});

test('Sentence: sentences are packed greedily up to max_chars', (t) => {
  t.deepEqual(sentence('One. Two. Three. Four. Five.', 17), ['One. Two. Three. ', 'Four. Five.']);
});

test('Sentence: a dot inside a word such as 3.14 or e.g is no sentence break', (t) => {
  t.deepEqual(sentence('Pi is 3.14159 and e.g the rest. More', 25), ['Pi is 3.14159 and e.g ', 'the rest. More']);
});

test('Sentence: no abbreviation handling, "e.g. " ends a sentence', (t) => {
  t.deepEqual(sentence('Use e.g. this one here.', 15), ['Use e.g. ', 'this one here.']);
});

test('Sentence: a sentence over max_chars falls back to the Recursive ladder', (t) => {
  t.deepEqual(sentence('Short. A long sentence\nthat spans two lines and goes on', 24), [
    'Short. ',
    'A long sentence\n',
    'that spans two lines ',
    'and goes on',
  ]);
});
