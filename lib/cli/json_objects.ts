// Where a JSON object ends, found by bracket depth alone (strings skipped with their escapes):
// enough to cut the core's records array into its records, or to check that a line holds one
// object, without parsing a number in JS (where an Int would lose bits). The core still parses
// and judges everything; this only finds boundaries.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Index just past the object or array opening at `start`, or -1 when `bytes` ends before it closes. */
export function compositeEnd(bytes: Uint8Array, start: number): number {
  let depth = 0;
  for (let i = start; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      for (i++; i < bytes.length && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth++;
    } else if ((b === CLOSE_BRACE || b === CLOSE_BRACKET) && --depth === 0) {
      return i + 1;
    }
  }
  return -1;
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** True when `bytes` is whitespace only. */
export const isBlank = (bytes: Uint8Array): boolean => bytes.every(isSpace);

/**
 * True when `bytes` is one JSON object with only whitespace around it, so lines joined with commas
 * stay one record each (a line could otherwise close or open a neighbour's record).
 */
export function isOneObject(bytes: Uint8Array): boolean {
  let start = 0;
  while (start < bytes.length && isSpace(bytes[start])) start++;
  if (bytes[start] !== OPEN_BRACE) return false;
  const end = compositeEnd(bytes, start);
  return end > 0 && isBlank(bytes.subarray(end));
}

/** Cuts the pieces of one JSON array of objects (a RecordsCursor's, cut anywhere) into its objects' exact bytes. */
export class ArrayObjects {
  private pending: Buffer = Buffer.alloc(0);

  /** The objects `piece` completes, in order. */
  push(piece: Buffer): Buffer[] {
    const bytes = this.pending.length > 0 ? Buffer.concat([this.pending, piece]) : piece;
    const objects: Buffer[] = [];
    let i = 0;
    for (;;) {
      // Between objects there is only '[', ',', ']' and whitespace.
      while (i < bytes.length && bytes[i] !== OPEN_BRACE) i++;
      const end = i < bytes.length ? compositeEnd(bytes, i) : -1;
      if (end < 0) break;
      objects.push(bytes.subarray(i, end));
      i = end;
    }
    this.pending = bytes.subarray(i);
    return objects;
  }
}
