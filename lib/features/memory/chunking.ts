// The spec's chunking rules (issue 12): a text cut into overlapping chunks, each an exact slice of it.
// Pure: no store, no ids (the caller names chunk `{parent_id}#{index}` and stamps svc.* fields).
//
// Decisions the rules leave open:
// - A character is a Unicode code point: what `[...text]` yields, so an emoji written as a surrogate
//   pair counts 1 and no cut ever falls inside one. max_chars, overlap_chars, char_start and a
//   chunk's length all count code points; a chunk is `[...text].slice(char_start, char_start +
//   length).join('')`. (A sequence of several code points, such as a flag or a skin-tone emoji,
//   may still be cut between them by a hard cut.)
// - The chunked span runs from the text's first non-whitespace character to its last: leading and
//   trailing whitespace is in no chunk, so the first chunk starts at that first character.
// - Packing: from a chunk's start, the chunk ends at the farthest place of the best separator level
//   that lies within max_chars (and past the previous chunk's end): the greedy packing of the
//   largest pieces that fit, a piece too large falling through to the next level. Recursive's
//   ladder is paragraph break, line break, sentence break, space; Sentence tries sentence breaks
//   first, then that ladder; the last resort is a hard cut at exactly max_chars.
// - A separator (the whole whitespace run) stays with the piece before it, so with no overlap the
//   next chunk starts on text; chunks end with the whitespace that followed them. Whitespace is
//   JavaScript's \s (so no-break and ideographic spaces too); a line break is \n (\r\n included).
// - Overlap: the next chunk starts exactly overlap_chars before the previous chunk's end, even when
//   that reaches back past the previous chunk's start (a first chunk, or one after skipped
//   whitespace, may be shorter than overlap_chars); only the span's first character bounds it.
//   Each chunk ends strictly after the previous one, so the chunker always progresses (by a single
//   character at worst, when overlap_chars = max_chars - 1).
// - One exception to that start: when the max_chars characters from it are all whitespace (a
//   whitespace run at least max_chars long), the chunk would be whitespace only, so it starts at the
//   next non-whitespace character instead. No chunk is whitespace only.
// - Options: the rule is applied as written, so max_chars under 101 with the default overlap_chars
//   (100) is an error too; its message says to lower overlap_chars.
// - Markdown: each ATX heading line outside a fence begins a new section, and a chunk always ends
//   right before a heading, so sections are never packed together; a section larger than max_chars
//   is cut on the Recursive ladder using only places outside fenced code blocks. A fence that cannot
//   fit in one chunk together with the overlap in front of it is cut inside, on the Recursive ladder,
//   as a last resort: chunks never exceed max_chars, the bound an embedding model's input limit
//   rests on (a longer chunk would be truncated there, silently). A chunk may start inside a fence
//   through overlap; that repeats text, it does not cut the fence. Setext headings are not sections.
import type { ChunkOptions, ChunkStrategy } from '../../types';
import { type Layout, layout, markdownShape, outsideFences } from './chunk_boundaries';

export type { ChunkOptions, ChunkStrategy } from '../../types';

export interface Chunk {
  index: number;
  text: string;
  /** Offset of the chunk's first character (code point) in the source text. */
  char_start: number;
}

/** Invalid chunk options; the message names the field (`chunking.max_chars`) and the fix. */
export class ChunkingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChunkingError';
  }
}

const STRATEGIES: readonly ChunkStrategy[] = ['Recursive', 'Markdown', 'Sentence'];
const DEFAULTS: Required<ChunkOptions> = { strategy: 'Recursive', max_chars: 1000, overlap_chars: 100 };

/** Validates a JSON value received from a request body as chunk options; absent fields take the defaults. */
export function parseChunkOptions(value: unknown): Required<ChunkOptions> {
  if (value === undefined) return { ...DEFAULTS };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ChunkingError(`chunking must be an object such as {"strategy":"Recursive","max_chars":1000}; got ${show(value)}`);
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!Object.hasOwn(DEFAULTS, key)) throw new ChunkingError(`chunking.${key} is not a chunking option: use strategy, max_chars or overlap_chars`);
  }
  // An absent field (or one a TypeScript caller left undefined) takes its default; JSON null does not.
  const given = (name: keyof ChunkOptions): unknown => (fields[name] === undefined ? DEFAULTS[name] : fields[name]);
  const strategy = given('strategy');
  if (!STRATEGIES.includes(strategy as ChunkStrategy))
    throw new ChunkingError(`chunking.strategy must be one of ${STRATEGIES.map((s) => `"${s}"`).join(', ')}; got ${show(strategy)}`);
  const max = size('max_chars', given('max_chars'), 1);
  const overlap = size('overlap_chars', given('overlap_chars'), 0);
  if (overlap >= max)
    throw new ChunkingError(`chunking.overlap_chars (${overlap}) must be less than chunking.max_chars (${max}): lower overlap_chars or raise max_chars`);
  return { strategy: strategy as ChunkStrategy, max_chars: max, overlap_chars: overlap };
}

/** A size field's value: an integer number of characters, at least `least`. */
function size(name: string, value: unknown, least: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least)
    throw new ChunkingError(`chunking.${name} must be a whole number of characters, at least ${least}; got ${show(value)}`);
  return value;
}

/** A received value as an error message quotes it. */
function show(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Cuts `text` into chunks by the spec's rules. Throws ChunkingError for invalid options. */
export function chunkText(text: string, options?: ChunkOptions): Chunk[] {
  const { strategy, max_chars, overlap_chars } = parseChunkOptions(options ?? {});
  const at = layout(text);
  if (at.lo === at.count) return [];
  return cut(at, plan(strategy, text, at), max_chars, overlap_chars).map(([start, end], index) => ({
    index,
    text: text.slice(at.utf16[start], at.utf16[end]),
    char_start: start,
  }));
}

/** A strategy applied to one text: where chunks must end, and the separator levels to try in order. */
interface Plan {
  /** Ends no chunk may run past (Markdown's headings), ascending, the span's end last. */
  stops: number[];
  ladder: number[][];
}

function plan(strategy: ChunkStrategy, text: string, at: Layout): Plan {
  const recursive = [at.paragraph, at.line, at.sentence, at.space];
  switch (strategy) {
    case 'Recursive':
      return { stops: [at.hi], ladder: recursive };
    case 'Sentence':
      return { stops: [at.hi], ladder: [at.sentence, at.paragraph, at.line, at.space] };
    case 'Markdown': {
      const { headings, fences } = markdownShape(text, at);
      return { stops: [...headings, at.hi], ladder: [...recursive.map((level) => outsideFences(level, fences)), ...recursive] };
    }
  }
}

/** The chunks as [start, end) code point ranges. */
function cut(at: Layout, p: Plan, max: number, overlap: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let start = at.lo;
  let previousEnd = at.lo;
  for (;;) {
    const first = at.nextText[start];
    // Only whitespace in reach: start on the text after it rather than emit a blank chunk.
    if (first >= start + max) start = first;
    const end = chunkEnd(p, start, Math.max(previousEnd, first), max);
    ranges.push([start, end]);
    if (end === at.hi) return ranges;
    previousEnd = end;
    start = Math.max(at.lo, end - overlap);
  }
}

/** Where the chunk starting at `start` ends: after `after` (progress, and some text in it), within max characters. */
function chunkEnd(p: Plan, start: number, after: number, max: number): number {
  const limit = start + max;
  const stop = p.stops[countUpTo(p.stops, after)];
  if (stop <= limit) return stop;
  for (const level of p.ladder) {
    const i = countUpTo(level, limit);
    if (i > 0 && level[i - 1] > after) return level[i - 1];
  }
  // Hard cut: offsets are code points, so it never falls inside a surrogate pair.
  return limit;
}

/** How many of the ascending `points` are at or before `x`. */
function countUpTo(points: readonly number[], x: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
