// JSON with exact 64-bit integers. The core writes Int and DateTime values as {"Int":<digits>}
// (no spaces), and a quote inside a JSON string is always escaped, so the pattern below can only
// match a Value; those digits become bigint instead of a rounded double.
const EXACT_INT = /\{"(Int|DateTime)":(-?\d+)\}/g;

export function parseExact<T>(bytes: Buffer | string): T {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  return JSON.parse(text.replace(EXACT_INT, '{"$1":"$2"}'), (key, value) =>
    (key === 'Int' || key === 'DateTime') && typeof value === 'string' ? BigInt(value) : value,
  ) as T;
}

const BIGINT_MARK = '\u0000tessera-bigint:';
const MARKED = /"\\u0000tessera-bigint:(-?\d+)"/g;

/** JSON text for a request object: bigint becomes integer digits, typed arrays become arrays. */
export function stringifyExact(value: unknown): Buffer {
  const text = JSON.stringify(value, (_key, v) => {
    if (typeof v === 'bigint') return BIGINT_MARK + v.toString();
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as Float32Array);
    return v;
  });
  return Buffer.from(text.replace(MARKED, '$1'), 'utf8');
}
