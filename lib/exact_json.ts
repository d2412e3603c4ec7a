// JSON with exact 64-bit integers: Int and DateTime values parse to bigint (JSON.parse would round
// them to a double) and bigint serializes as digits (JSON.stringify throws on it).

// The core writes Int and DateTime values as {"Int":<digits>} (no spaces), and a quote inside a
// JSON string is always escaped, so this pattern can only match a Value. Its digits are re-quoted
// with a marker that no other string in the core's output can start with, and the reviver turns
// exactly those into bigint instead of a rounded double.
const EXACT_INT = /\{"(Int|DateTime)":(-?\d+)\}/g;
const INT_MARK = '\u0001';

export function parseExact<T>(bytes: Buffer | string): T {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  return JSON.parse(text.replace(EXACT_INT, '{"$1":"\\u0001$2"}'), (key, value) =>
    (key === 'Int' || key === 'DateTime') && typeof value === 'string' && value.startsWith(INT_MARK)
      ? BigInt(value.slice(1))
      : value,
  ) as T;
}

const RAW_MARK = '\u0000tessera-raw:';
const MARKED = /"\\u0000tessera-raw:([^"]*)"/g;

/**
 * JSON text for a request object: bigint becomes integer digits, -0 stays -0.0, typed arrays
 * become arrays. NaN and Infinity have no JSON form (JSON.stringify would quietly write null), so
 * they throw a RangeError naming the field.
 */
export function stringifyExact(value: unknown): Buffer {
  const text = JSON.stringify(value, (key, v) => {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new RangeError(`${key || 'value'} must be a finite number, got ${v}`);
    if (typeof v === 'bigint') return RAW_MARK + v.toString();
    if (Object.is(v, -0)) return `${RAW_MARK}-0.0`;
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as Float32Array);
    return v;
  });
  return Buffer.from(text.replace(MARKED, '$1'), 'utf8');
}
