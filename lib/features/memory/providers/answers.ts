// Reading provider answers without trusting their shape: each helper answers undefined for a shape it does not expect.

/** value[key] when value is a JSON object. */
export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/** items (objects with an integer `index`) in index order, when they cover 0..count-1 exactly once. */
export function byIndex(items: unknown, count: number): unknown[] | undefined {
  if (!Array.isArray(items) || items.length !== count) return undefined;
  const ordered: unknown[] = new Array(count);
  for (const item of items) {
    const i = field(item, 'index');
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= count || ordered[i] !== undefined) return undefined;
    ordered[i] = item;
  }
  return ordered;
}

/** The finite `key` score of each item in index order, when the items cover count documents exactly once. */
export function scoresByIndex(items: unknown, count: number, key: string): number[] | undefined {
  const scores = byIndex(items, count)?.map((item) => field(item, key));
  return scores?.every((s) => typeof s === 'number' && Number.isFinite(s)) ? (scores as number[]) : undefined;
}
