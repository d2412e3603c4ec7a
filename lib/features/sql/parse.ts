// Parsing a /query script: numeric arrays lifted out, the grammar run, and every failure turned
// into one message naming the byte offset, the problem and the rule section of docs/sql.md.
import { RawJson } from '../../exact_json';
import { type GrammarError, parse, SyntaxError as PeggySyntaxError, type Statement } from './grammar';

/** docs/sql.md's numbered sections; an error cites one by number and title. */
export const SECTIONS: Record<number, string> = {
  1: 'Statements and scripts',
  2: 'Names',
  3: 'Literals',
  4: 'SELECT list',
  5: 'FROM',
  6: 'WHERE',
  7: 'ORDER BY chooses the kind',
  8: 'NEAREST: vector search',
  9: 'BM25: text search',
  10: 'RRF: hybrid search',
  11: 'Listing in attribute order',
  12: 'Aggregates: COUNT, SUM, GROUP BY',
  13: 'LIMIT and OFFSET',
  14: 'OPTIONS',
  15: 'The compiled form',
  16: 'Errors',
};

/** A statement that cannot be parsed or compiled: `at` is a byte offset into the script. */
export class SqlError extends Error {
  constructor(
    readonly at: number,
    readonly problem: string,
    readonly section: number,
  ) {
    super(`SQL error at byte ${at}: ${problem} (docs/sql.md §${section} ${SECTIONS[section]})`);
    this.name = 'SqlError';
  }
}

/** A parsed script and what is needed to report on it. */
export interface Parsed {
  statements: Statement[];
  /** Turns an offset in the parsed text into a byte offset in the script as sent. */
  byteOffset(at: number): number;
}

// One pass over the script finds, in order, the things a numeric array may not be found inside
// (strings, quoted names, comments) and the well-formed numeric arrays themselves.
const NUMBER = String.raw`-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`;
const SCAN = new RegExp(String.raw`'(?:[^']|'')*'?|"(?:[^"]|"")*"?|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|\[\s*(${NUMBER}(?:\s*,\s*${NUMBER})*)\s*\]`, 'g');
// Most arrays are already JSON and go into the request as written: converting a 768-number
// vector to doubles and back to text would cost more than parsing the rest of the statement.
const JSON_NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
const JSON_NUMBERS = new RegExp(String.raw`^${JSON_NUMBER}(?:\s*,\s*${JSON_NUMBER})*$`);
// Only a number with a 3-digit exponent or 300 digits can be too large for a double.
const MAYBE_INFINITE = /[eE]\+?\d{3}|\d{300}/;

/**
 * The parser reads about 150 ns a character (a comment, 1 us) on the event loop, so the text it
 * reads, numeric arrays lifted out, is bounded: 256 Ki characters cost at most a few hundred ms.
 */
export const MAX_PARSED_CHARS = 256 << 10;

/** Where the lifted text shrank: at `at` in the parsed text, `removed` code units went missing. */
interface Shift {
  at: number;
  removed: number;
}

/** Parses a script of `;`-separated SELECT statements, or throws SqlError. */
export function parseScript(sql: string): Parsed {
  const vectors: (RawJson | number[])[] = [];
  const shifts: Shift[] = [];
  let text = sql;
  if (sql.includes('[')) {
    let shrunk = 0;
    text = sql.replace(SCAN, (match: string, list: string | undefined, at: number) => {
      if (list === undefined) return match;
      const ref = `\u0001${vectors.length}`;
      const start = at - shrunk;
      vectors.push(JSON_NUMBERS.test(list) && !MAYBE_INFINITE.test(list) ? new RawJson(`[${list}]`) : list.split(',').map(Number));
      shrunk += match.length - ref.length;
      shifts.push({ at: start + ref.length, removed: shrunk });
      return ref;
    });
  }
  const original = (at: number) => {
    let removed = 0;
    for (const s of shifts) if (s.at <= at) removed = s.removed;
    return at + removed;
  };
  const byteOffset = (at: number) => Buffer.byteLength(sql.slice(0, original(at)), 'utf8');
  if (text.length > MAX_PARSED_CHARS)
    throw new SqlError(
      byteOffset(MAX_PARSED_CHARS),
      `the script is ${text.length} characters long, numeric arrays aside; at most ${MAX_PARSED_CHARS} are read: split it into several requests`,
      1,
    );
  const marks: number[] = [];
  try {
    const statements = parse(text, { marks, vectors });
    // An array element too large for a double is Infinity; the spec's vectors are finite.
    vectors.forEach((v, n) => {
      const i = v instanceof RawJson ? -1 : v.findIndex((x) => !Number.isFinite(x));
      if (i >= 0) throw new SqlError(byteOffset(text.indexOf(`\u0001${n}`)), `element ${i} of this numeric array is too large for a 64-bit float`, 3);
    });
    return { statements, byteOffset };
  } catch (err) {
    if (err instanceof SqlError) throw err;
    if (err instanceof PeggySyntaxError) {
      const at = err.location.start.offset;
      throw new SqlError(byteOffset(at), syntaxProblem(err), sectionAt(marks, at));
    }
    const grammar = err as Partial<GrammarError>;
    if (typeof grammar?.sqlError === 'string') throw new SqlError(byteOffset(grammar.at ?? 0), grammar.sqlError, grammar.section ?? 1);
    if (err instanceof RangeError) throw new SqlError(0, 'the statement nests too deeply to parse; flatten its parentheses or NOTs', 6);
    throw err;
  }
}

/** The section of the clause the parser was in at `at`: the latest mark at or before it. */
function sectionAt(marks: number[], at: number): number {
  let section = 1;
  let best = -1;
  for (let i = 0; i < marks.length; i += 2) {
    if (marks[i + 1] <= at && marks[i + 1] >= best) {
      best = marks[i + 1];
      section = marks[i];
    }
  }
  return section;
}

/** peggy's "Expected X or Y but "z" found." reworded; a lifted vector shows as "[". */
function syntaxProblem(err: PeggySyntaxError): string {
  const message = err.message.replace(/\.$/, '').replace('but "\\x01" found', 'but "[" found');
  return message.charAt(0).toLowerCase() + message.slice(1);
}
