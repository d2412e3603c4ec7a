// The upsert bodies of vector rows: records {"id", "vector"} written as JSON straight into large
// buffers, each float32 with 9 significant digits (enough for any float32 to parse back to
// itself), about 37 ns a value where Number#toString and a copy cost ~250.
import { contiguousRuns } from './contiguous_runs';

const OPEN = Buffer.from('{"records":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** The upsert body of records (JSON objects, or runs of them with commas between): their bytes joined, never parsed here. */
export const joinedRecords = (records: Buffer[]) => Buffer.concat([OPEN, ...records.flatMap((r, i) => (i === 0 ? [r] : [COMMA, r])), CLOSE]);

const ASCII = { zero: 0x30, dot: 0x2e, minus: 0x2d, e: 0x65, comma: 0x2c, closeBracket: 0x5d, closeBrace: 0x7d };
/** The longest float32 written, -1.23456789e-45, and its comma. */
const MAX_FLOAT_BYTES = 16;
const RECORD_BUFFER_BYTES = 4 << 20;
/** 1e0 to 1e53: enough to scale the smallest float32 (1.4e-45) up to 9 digits; each literal is the nearest double. */
const POWERS_OF_TEN = Float64Array.from({ length: 54 }, (_, k) => Number(`1e${k}`));
/** A double's bits, to read its binary exponent (the high word's bits 20 to 30; little-endian, as the vector files). */
const double = new Float64Array(1);
const doubleHigh = new Int32Array(double.buffer, 4, 1);
/** floor(log10(2^e)) by a double's exponent field: the decimal exponent of a number with that binary exponent, or one less. */
const DECIMAL_EXPONENT = Int16Array.from({ length: 2048 }, (_, field) => Math.floor((field - 1023) * Math.log10(2)));

/** "00" to "99", a digit pair at each even index. */
const DIGIT_PAIRS = Uint8Array.from({ length: 200 }, (_, i) => ASCII.zero + (i % 2 === 1 ? (i >> 1) % 10 : Math.floor(i / 20)));
/** 10^k as int32, k from 0 to 8. */
const INT_POWERS_OF_TEN = Int32Array.from({ length: 9 }, (_, k) => 10 ** k);

/** `v` (> 0) scaled to the 9-digit integer of its decimal exponent `exponent`. */
function nineDigits(v: number, exponent: number): number {
  const scale = 8 - exponent;
  // Rounds half up like Math.round, which costs a fifth of the whole write; adding 0.5 is exact below 2^31.
  return ((scale >= 0 ? v * POWERS_OF_TEN[scale] : v / POWERS_OF_TEN[-scale]) + 0.5) | 0;
}

/** `n` (an int32 below 10^width) as `width` digits, zero-padded, at `p`; returns the end. */
function writeFixed(out: Buffer, p: number, n: number, width: number): number {
  let i = p + width;
  // Two digits a division: divisions cost more than the table.
  for (; i - p >= 2; n = (n / 100) | 0) {
    const pair = (n % 100) << 1;
    out[--i] = DIGIT_PAIRS[pair + 1];
    out[--i] = DIGIT_PAIRS[pair];
  }
  if (i > p) out[p] = ASCII.zero + n;
  return p + width;
}

/** The `count` digits of `digits` at `p` with a dot after the first `whole` (fewer than `count`); returns the end. */
function writeWithDot(out: Buffer, p: number, digits: number, count: number, whole: number): number {
  const scale = INT_POWERS_OF_TEN[count - whole];
  const high = (digits / scale) | 0;
  p = writeFixed(out, p, high, whole);
  out[p++] = ASCII.dot;
  return writeFixed(out, p, digits - high * scale, count - whole);
}

/**
 * `values[j]` (finite) as JSON at `p`, returning the end: 9 significant digits, which parse back to
 * the same float32 (to within a 100th of its spacing), trailing zeros dropped. It takes the array,
 * not the number, as a double passed to a call is boxed: a heap object per value.
 */
function writeFloat32(out: Buffer, p: number, values: Float32Array, j: number): number {
  let v = values[j];
  if (v === 0) {
    // -0.0, not -0, which a JSON reader may take for the integer 0.
    if (1 / v > 0) out[p++] = ASCII.zero;
    else p += out.write('-0.0', p, 'latin1');
    return p;
  }
  if (v < 0) {
    out[p++] = ASCII.minus;
    v = -v;
  }
  // floor(log10(v)) or one less, from v's binary exponent: far cheaper than Math.log10.
  double[0] = v;
  let exponent = DECIMAL_EXPONENT[(doubleHigh[0] >>> 20) & 0x7ff];
  let digits = nineDigits(v, exponent);
  // The estimate may be one short, and rounding to 9 digits may carry into a 10th.
  if (digits >= 1e9) digits = nineDigits(v, ++exponent);
  let count = 9;
  while (digits % 10 === 0) {
    digits = (digits / 10) | 0;
    count--;
  }
  if (exponent >= 0 && exponent < 9) {
    const whole = exponent + 1;
    if (count > whole) return writeWithDot(out, p, digits, count, whole);
    p = writeFixed(out, p, digits, count);
    for (let zeros = whole - count; zeros > 0; zeros--) out[p++] = ASCII.zero;
    return p;
  }
  // Down to 0.001 plain decimals are no longer than an exponent.
  if (exponent < 0 && exponent >= -3) {
    out[p++] = ASCII.zero;
    out[p++] = ASCII.dot;
    for (let zeros = -exponent - 1; zeros > 0; zeros--) out[p++] = ASCII.zero;
    return writeFixed(out, p, digits, count);
  }
  p = count > 1 ? writeWithDot(out, p, digits, count, 1) : writeFixed(out, p, digits, 1);
  out[p++] = ASCII.e;
  if (exponent < 0) {
    out[p++] = ASCII.minus;
    exponent = -exponent;
  }
  return writeFixed(out, p, exponent, exponent >= 10 ? 2 : 1);
}

const ID_START = Buffer.from('{"id":');
const VECTOR_START = Buffer.from(',"vector":[');

/** `bytes` (a few) at `p`: a loop, as copying so few bytes costs more than writing them. */
function writeAscii(out: Buffer, p: number, bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) out[p + i] = bytes[i];
  return p + bytes.length;
}

/**
 * Writes records {"id", "vector"} as JSON into large buffers, never per value through a string,
 * each followed by a comma, so a batch of them is one run of bytes to send, not copied record by record.
 */
export class RecordWriter {
  private out = Buffer.alloc(0);
  private used = 0;

  /** The record of `idJson` (a JSON string) and `values`, in bytes no later record overwrites. */
  record(idJson: string, values: Float32Array): Buffer {
    const room = 3 * idJson.length + MAX_FLOAT_BYTES * values.length + 33;
    if (this.used + room > this.out.length) {
      this.out = Buffer.allocUnsafe(Math.max(RECORD_BUFFER_BYTES, room));
      this.used = 0;
    }
    const out = this.out;
    const start = this.used;
    let p = writeAscii(out, start, ID_START);
    p += out.write(idJson, p);
    p = writeAscii(out, p, VECTOR_START);
    for (let j = 0; j < values.length; j++) {
      if (j > 0) out[p++] = ASCII.comma;
      p = writeFloat32(out, p, values, j);
    }
    out[p++] = ASCII.closeBracket;
    out[p++] = ASCII.closeBrace;
    out[p] = ASCII.comma;
    this.used = p + 1;
    return out.subarray(start, p);
  }

  /** The upsert body of `records`, which this writer wrote in this order: each run of them in one buffer goes as one piece. */
  body(records: Buffer[]): Buffer {
    return joinedRecords(contiguousRuns(records, COMMA.length));
  }
}
