/** Ascending key lists of packed pages (Float64Array item keys). */

/**
 * The keys of two ascending key lists, ascending, each once. Periods of a market mostly hold the same items,
 * so an equal list is the common case and costs one comparison pass (a Set over every period's keys cost
 * ~1.2 M insertions for a 30-day history). The answer may be `a` or `b` itself: callers never write to it.
 */
export function unionSorted(a: Float64Array, b: Float64Array): Float64Array {
  if (a === b) return a;
  if (a.length === 0) return b;
  if (a.length === b.length) {
    let same = true;
    for (let i = 0; i < a.length && same; i++) same = a[i] === b[i];
    if (same) return a;
  }
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i];
    const y = b[j];
    if (x < y) {
      out[n++] = x;
      i++;
    } else if (y < x) {
      out[n++] = y;
      j++;
    } else {
      out[n++] = x;
      i++;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++];
  while (j < b.length) out[n++] = b[j++];
  return out.subarray(0, n);
}
