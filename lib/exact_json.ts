import { randomBytes } from 'node:crypto';

// JSON with exact 64-bit integers: Int and DateTime values parse to bigint (JSON.parse would round
// them to a double) and bigint serializes as digits (JSON.stringify throws on it).

// Int and DateTime values are {"Int":<digits>} (the core writes no spaces; a caller's body may),
// and a quote inside a JSON string is always escaped, so this pattern can only match a Value. Its
// digits are re-quoted with a marker that no other string can start with, and the reviver turns
// exactly those into bigint instead of a rounded double.
const EXACT_INT = /\{\s*"(Int|DateTime)"\s*:\s*(-?\d+)\s*\}/g;
const INT_MARK = '\u0001';
// Whether a text may hold one: a compiled pattern, as includes('"Int"') costs ~1 us on a hit array
// (every quote is a candidate match); the reviver is exact when this says yes for nothing.
const MAY_HOLD_INT = /"(?:Int|DateTime)"/;

export function parseExact<T>(bytes: Buffer | string): T {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  // Most answers hold no Int or DateTime; a reviver would slow their parse several times over.
  if (!MAY_HOLD_INT.test(text)) return JSON.parse(text) as T;
  return JSON.parse(text.replace(EXACT_INT, '{"$1":"\\u0001$2"}'), (key, value) =>
    (key === 'Int' || key === 'DateTime') && typeof value === 'string' && value.startsWith(INT_MARK) ? BigInt(value.slice(1)) : value,
  ) as T;
}

// The marker carries a nonce drawn at load, so no string a caller sends can pass for one.
const NONCE = randomBytes(6).toString('hex');
const RAW_MARK = `\u0000tessera-raw-${NONCE}:`;
const MARKED = new RegExp(`"\\\\u0000tessera-raw-${NONCE}:(\\d+)"`, 'g');

/** JSON text that stringifyExact writes as it is (the caller has checked it is valid JSON). */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * JSON text for a request object: bigint becomes integer digits, -0 stays -0.0, typed arrays
 * become arrays. NaN and Infinity have no JSON form (JSON.stringify would quietly write null), so
 * they throw a RangeError naming the field.
 */
export function stringifyExact(value: unknown): Buffer {
  // A small body of plain values is written as JSON.stringify writes it, without the replacer's
  // call per value (a top_k and an attribute list: ~2 us with it, ~0.6 without).
  if (plainValuesLeft(value, PLAIN_MAX_VALUES) >= 0) return Buffer.from(JSON.stringify(value), 'utf8');
  // Raw JSON pieces stand in the text as short numbered markers and are spliced in at the end, so
  // a long vector is never escaped into a string and searched for again.
  const raws: string[] = [];
  const raw = (text: string) => `${RAW_MARK}${raws.push(text) - 1}`;
  const text = JSON.stringify(value, (key, v) => {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new RangeError(`${key || 'value'} must be a finite number, got ${v}`);
    if (typeof v === 'bigint') return raw(v.toString());
    if (v instanceof RawJson) return raw(v.text);
    if (Object.is(v, -0)) return raw('-0.0');
    if (v instanceof Float32Array || v instanceof Float64Array) return raw(floatArrayText(key, v));
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x))) return raw(JSON.stringify(v));
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as Int32Array);
    return v;
  });
  return Buffer.from(raws.length === 0 ? text : text.replace(MARKED, (_, i) => raws[Number(i)]), 'utf8');
}

/** How much of a caller's value an error message quotes. */
const SHOWN_CHARS = 120;

/**
 * A caller's value as an error message quotes it: its exact JSON (an Int's digits too, where
 * JSON.stringify throws on a bigint), cut at SHOWN_CHARS. Never throws: an error path must not.
 */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : stringifyExact(value).toString('utf8');
  } catch {
    // Nested too deep to write (String() of an array would recurse as deep): its kind.
    text = Array.isArray(value) ? 'an array' : typeof value === 'object' && value !== null ? 'an object' : String(value);
  }
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}... (${text.length} characters)` : text;
}

// A float vector in one pass of JSON.stringify's native number formatting, not one replacer call
// per element (a 784-float query costs half as much); arrays of finite numbers go the same way.
// -0 in a vector needs no sign: it scores as 0.
function floatArrayText(key: string, v: Float32Array | Float64Array): string {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) throw new RangeError(`${key}[${i}] must be a finite number, got ${v[i]}`);
  return JSON.stringify(Array.from(v));
}

// How many values a body may hold and still be checked for the plain path; past it the replacer
// costs no more than the check would.
const PLAIN_MAX_VALUES = 64;

/**
 * The budget left once v's values are counted against it, or -1 when v needs the replacer: it holds
 * something JSON.stringify alone would write otherwise (bigint, -0, NaN, a typed array, a RawJson,
 * any object not plain), or more values than budget.
 */
function plainValuesLeft(v: unknown, budget: number): number {
  if (budget <= 0) return -1;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return budget - 1;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0) ? budget - 1 : -1;
    case 'object': {
      if (v === null) return budget - 1;
      if (!Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype) return -1;
      const values = v as Record<string, unknown>; // an array's indexes are its keys
      let left = budget - 1;
      for (const key in values) {
        left = plainValuesLeft(values[key], left);
        if (left < 0) return -1;
      }
      return left;
    }
    default:
      return -1; // bigint, undefined, a function
  }
}
