// Source files into chunks (issue 13): by syntax for the languages of languages.ts, by heading for
// Markdown, by the memory chunker's Recursive ladder for anything else.
//
// Decisions:
// - One chunk per symbol, from its first doc comment (or attribute, decorator, `export`) to its
//   end; `doc` is the comment text without markers, plus a Python docstring.
// - A container (class, interface, struct, impl, trait, namespace, module) is not one huge chunk:
//   its own chunk is its header and members up to its first nested symbol, each nested symbol is a
//   chunk of its own, and the members between and after them (fields declared later, the closing
//   lines) are further chunks of the container (same symbol and kind, their own lines). So every
//   line of a file is in exactly one chunk, and no method body is indexed twice. Functions are
//   leaves: a function nested in a function stays inside its parent's chunk.
// - Code outside any symbol (imports, top-level statements) makes chunks with symbol and kind null.
// - A symbol's chunk is never cut, however long; a header or the code between symbols longer than
//   max_chars is cut on the Recursive ladder (no overlap). Runs with no letter or digit (a lone
//   `}`) make no chunk.
// - Lines are 1-based and those of the chunk's text (doc comment included); char_start counts code
//   points, as the memory chunker's does.
// - A file with syntax errors is chunked from tree-sitter's recovered tree: the symbols it found.
import { chunkText } from '../memory/chunking';
import { parserFor } from './grammars';
import { fileKind, type LanguageDef } from './languages';
import { type CodeSymbol, symbolsOf } from './symbols';

export interface CodeChunk {
  index: number;
  path: string;
  /** The parsing language; null for Markdown and generic text. */
  language: string | null;
  symbol: string | null;
  kind: string | null;
  start_line: number;
  end_line: number;
  doc: string;
  text: string;
  /** Code point offset of the chunk's first character in the file. */
  char_start: number;
}

export interface CodeChunkOptions {
  /** Markdown and generic chunk size, and the cut of long code between symbols (characters; default 1000). */
  max_chars?: number;
  /** Overlap of Markdown and generic chunks (default 100). */
  overlap_chars?: number;
}

interface Piece {
  start: number;
  end: number;
  symbol: string | null;
  kind: string | null;
  doc: string;
  /** A leaf symbol's piece: never cut. */
  whole: boolean;
}

const WORD = /[\p{L}\p{N}]/u;

/** The chunks of one file, in file order. */
export async function chunkFile(path: string, text: string, options: CodeChunkOptions = {}): Promise<CodeChunk[]> {
  const max = options.max_chars ?? 1000;
  const kind = fileKind(path);
  if ('ast' in kind) return astChunks(path, text, kind.ast, max);
  const strategy = 'markdown' in kind ? 'Markdown' : 'Recursive';
  const at = new Offsets(text);
  return chunkText(text, { strategy, max_chars: max, overlap_chars: options.overlap_chars ?? 100 }).map((c) => {
    const start = at.utf16(c.char_start);
    return {
      index: c.index,
      path,
      language: null,
      symbol: null,
      kind: null,
      ...at.lines(start, start + c.text.length),
      doc: '',
      text: c.text,
      char_start: c.char_start,
    };
  });
}

async function astChunks(path: string, text: string, def: LanguageDef, max: number): Promise<CodeChunk[]> {
  const parser = await parserFor(def.grammar);
  const tree = parser.parse(text);
  if (!tree) throw new Error(`${path}: tree-sitter could not parse it`);
  let symbols: CodeSymbol[];
  try {
    symbols = symbolsOf(tree.rootNode, def, text);
  } finally {
    tree.delete(); // the tree lives in the WASM heap
  }
  const pieces: Piece[] = [];
  layOut(symbols, 0, text.length, { symbol: null, kind: null }, pieces);
  const at = new Offsets(text);
  const chunks: CodeChunk[] = [];
  for (const p of pieces.sort((a, b) => a.start - b.start)) {
    for (const [start, end] of cut(text, p.start, p.end, max, p.whole)) {
      const { doc, symbol, kind } = p;
      chunks.push({
        index: chunks.length,
        path,
        language: def.name,
        symbol,
        kind,
        ...at.lines(start, end),
        doc,
        text: text.slice(start, end),
        char_start: at.codePoints(start),
      });
    }
  }
  return chunks;
}

type Owner = Pick<Piece, 'symbol' | 'kind'>;

/**
 * The pieces of [from, to) holding `symbols`: each leaf whole, each container as its header (with
 * its doc), its members' pieces and the gaps between them. Gaps belong to `owner`, without a doc.
 */
function layOut(symbols: CodeSymbol[], from: number, to: number, owner: Owner, out: Piece[]): void {
  let at = from;
  const gap = (start: number, end: number) => {
    if (end > start) out.push({ ...owner, doc: '', whole: false, start, end });
  };
  for (const s of symbols) {
    gap(at, s.start);
    const own = { symbol: s.name, kind: s.kind };
    if (s.container && s.children.length > 0) {
      out.push({ ...own, doc: s.doc, whole: false, start: s.start, end: s.children[0].start });
      layOut(s.children, s.children[0].start, s.end, own, out);
    } else {
      out.push({ ...own, doc: s.doc, whole: true, start: s.start, end: s.end });
    }
    at = Math.max(at, s.end);
  }
  gap(at, to);
}

/** [start, end) trimmed of whitespace, cut on the Recursive ladder past max unless `whole`; nothing when it holds no word. */
function cut(text: string, start: number, end: number, max: number, whole: boolean): Array<[number, number]> {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  const slice = text.slice(start, end);
  if (!WORD.test(slice)) return [];
  if (whole || slice.length <= max) return [[start, end]];
  const at = new Offsets(slice);
  return chunkText(slice, { max_chars: max, overlap_chars: 0 }).map((c) => {
    const s = start + at.utf16(c.char_start);
    return [s, s + c.text.length];
  });
}

/** Conversions between UTF-16 offsets, code point offsets and 1-based lines of one text. */
class Offsets {
  private readonly lineStarts: number[] = [0];
  private readonly surrogates: boolean;

  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
    this.surrogates = /[\uD800-\uDFFF]/.test(text);
  }

  /** Lines of the text in [start, end). */
  lines(start: number, end: number): { start_line: number; end_line: number } {
    return { start_line: this.line(start), end_line: this.line(Math.max(start, end - 1)) };
  }

  private line(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lineStarts[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  codePoints(utf16: number): number {
    return this.surrogates ? [...this.text.slice(0, utf16)].length : utf16;
  }

  utf16(codePoints: number): number {
    if (!this.surrogates) return codePoints;
    let i = 0;
    for (let n = 0; n < codePoints && i < this.text.length; n++) i += (this.text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    return i;
  }
}
