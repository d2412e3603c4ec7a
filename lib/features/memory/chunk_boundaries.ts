// Where the chunker may end a chunk, found once per text. Every position here is a code point
// offset (an index into `[...text]`), the unit chunking.ts counts in; never a UTF-16 unit or a byte.

/** A text as code points, with its separators: the places a chunk may end, sorted ascending. */
export interface Layout {
  /** Code points in the text. */
  count: number;
  /** utf16[p]: the UTF-16 offset of code point p (utf16[count] = text.length); slices chunks out of the string. */
  utf16: Uint32Array;
  /** codePoint[u]: the code point offset of UTF-16 offset u, where u starts a code point. */
  codePoint: Uint32Array;
  /** nextText[p]: the first non-whitespace code point at or after p. */
  nextText: Uint32Array;
  /** The text's first non-whitespace code point, and the offset just after its last one (lo = count: blank text). */
  lo: number;
  hi: number;
  // A separator stays with the piece before it (a chunk ending there ends after the whole whitespace
  // run), so the next chunk starts on text. These are run ends, by what the run holds or follows.
  /** Runs holding a blank line (two line feeds, only whitespace between). */
  paragraph: number[];
  /** Runs holding a line feed (\r\n included). */
  line: number[];
  /** Runs right after `.`, `!` or `?`. */
  sentence: number[];
  /** Every whitespace run. */
  space: number[];
}

const WHITESPACE = /\s+/gu;
const SENTENCE_END = /[.!?]/;

/** Builds the code point maps and finds every separator of `text` in one pass over its whitespace runs. */
export function layout(text: string): Layout {
  const { count, utf16, codePoint } = codePoints(text);
  const nextText = new Uint32Array(count + 1).map((_, p) => p);
  const found: Layout = { count, utf16, codePoint, nextText, lo: 0, hi: count, paragraph: [], line: [], sentence: [], space: [] };
  for (const run of text.matchAll(WHITESPACE)) {
    const start = codePoint[run.index];
    const end = codePoint[run.index + run[0].length];
    nextText.fill(end, start, end);
    if (end === count) found.hi = start;
    const feeds = run[0].split('\n').length - 1;
    if (feeds >= 2) found.paragraph.push(end);
    if (feeds >= 1) found.line.push(end);
    if (SENTENCE_END.test(text.charAt(run.index - 1))) found.sentence.push(end);
    found.space.push(end);
  }
  found.lo = nextText[0];
  return found;
}

/** Both directions between UTF-16 offsets and code point offsets. A lone surrogate counts as one code point, as in `[...text]`. */
function codePoints(text: string): { count: number; utf16: Uint32Array; codePoint: Uint32Array } {
  const utf16 = new Uint32Array(text.length + 1);
  const codePoint = new Uint32Array(text.length + 1);
  let count = 0;
  for (let u = 0; u < text.length; count++) {
    utf16[count] = u;
    codePoint[u] = count;
    u += (text.codePointAt(u) ?? 0) > 0xffff ? 2 : 1;
  }
  utf16[count] = text.length;
  codePoint[text.length] = count;
  return { count, utf16: utf16.subarray(0, count + 1), codePoint };
}

/** A fenced code block: from its opening fence's first backtick or tilde to the end of its closing fence line. */
export interface Fence {
  start: number;
  end: number;
}

/** Markdown's structure as the chunker needs it: where headings start and where fences lie. */
export interface MarkdownShape {
  /** Starts of ATX heading lines (`#`..`######`, then a space or tab, at a line's start) outside fences. */
  headings: number[];
  /** Fenced blocks in order; one left open runs to the end of the text (as in CommonMark). */
  fences: Fence[];
}

const OPEN_FENCE = /^( {0,3})(`{3,}|~{3,})/;
const CLOSE_FENCE = /^ {0,3}(`{3,}|~{3,})\s*$/;
const HEADING = /^#{1,6}[ \t]/;

/** Reads `text` line by line: a fence closes on a line of the same character at least as long as its opening. */
export function markdownShape(text: string, at: Layout): MarkdownShape {
  const shape: MarkdownShape = { headings: [], fences: [] };
  let open: { marker: string; start: number } | null = null;
  for (let lineStart = 0; lineStart <= text.length; ) {
    const feed = text.indexOf('\n', lineStart);
    const lineEnd = feed < 0 ? text.length : feed;
    const line = text.slice(lineStart, lineEnd);
    if (open) {
      const close = CLOSE_FENCE.exec(line);
      if (close && close[1][0] === open.marker[0] && close[1].length >= open.marker.length) {
        shape.fences.push({ start: open.start, end: at.codePoint[lineEnd] });
        open = null;
      }
    } else {
      const fence = OPEN_FENCE.exec(line);
      if (fence) open = { marker: fence[2], start: at.codePoint[lineStart + fence[1].length] };
      else if (HEADING.test(line)) shape.headings.push(at.codePoint[lineStart]);
    }
    lineStart = lineEnd + 1;
  }
  if (open) shape.fences.push({ start: open.start, end: at.count });
  return shape;
}

/** The sorted `points` that are not strictly inside a fence (a fence's own start and end stay). */
export function outsideFences(points: readonly number[], fences: readonly Fence[]): number[] {
  let f = 0;
  return points.filter((p) => {
    while (f < fences.length && fences[f].end <= p) f++;
    return !(f < fences.length && fences[f].start < p);
  });
}
