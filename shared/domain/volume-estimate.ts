import { HOUR_MS } from '../clock';
import type { BookEntry } from './book';
import { satAdd, satMul } from './saturate';

/** Spec Order books rule 4: a current book at most this much older than its replacement yields volume. */
export const VOLUME_WINDOW_MS = 6 * HOUR_MS;

/** An item's estimate `[listed, sold, expired]` in units. */
export type Volume = [listed: number, sold: number, expired: number];

/** One day's estimates of a market, by item key. */
export type VolumePage = Map<number, Volume>;

/**
 * Spec Order books rule 4, the gate: estimates come only when the new book replaces a current book (the
 * caller decides that with `replacesCurrentBook`) whose `at` is at most 6 hours older.
 */
export const volumeApplies = (currentAt: number, nextAt: number): boolean => nextAt > currentAt && nextAt - currentAt <= VOLUME_WINDOW_MS;

/**
 * Spec Order books rule 4: per item of either book, summed over its (price, stack) keys with `prev`/`next`
 * the auction counts in the old and new book and `short` the old book's band-1 count: gone = max(0, prev -
 * next), new = max(0, next - prev), expired = min(gone, short), sold = gone - expired; listed, sold and
 * expired are those counts times the stack. Both entry lists must be in book order (ascending by key, price,
 * stack, band), which makes this one merge-join pass. Returns items ascending by key. Counts per key are
 * exact (at most 5 × 2^31 auctions); each figure saturates at 2^53-1 (n × stack over a book can reach 2^62+).
 */
export function estimateVolume(prev: readonly BookEntry[], next: readonly BookEntry[]): [key: number, volume: Volume][] {
  const out: [number, Volume][] = [];
  const pl = prev.length;
  const nl = next.length;
  let i = 0;
  let j = 0;
  let key = -1;
  let vol: Volume = [0, 0, 0];
  while (i < pl || j < nl) {
    // The next (key, price, stack) group in order across both books.
    const g = j >= nl || (i < pl && compareGroup(prev[i], next[j]) <= 0) ? prev[i] : next[j];
    const gKey = g[0];
    const gPrice = g[1];
    const gStack = g[2];
    let prevN = 0;
    let shortN = 0;
    let nextN = 0;
    for (; i < pl; i++) {
      const e = prev[i];
      if (e[0] !== gKey || e[1] !== gPrice || e[2] !== gStack) break;
      prevN += e[4];
      if (e[3] === 1) shortN += e[4];
    }
    for (; j < nl; j++) {
      const e = next[j];
      if (e[0] !== gKey || e[1] !== gPrice || e[2] !== gStack) break;
      nextN += e[4];
    }
    if (gKey !== key) {
      if (key !== -1) out.push([key, vol]);
      key = gKey;
      vol = [0, 0, 0];
    }
    const gone = Math.max(0, prevN - nextN);
    const expired = Math.min(gone, shortN);
    if (nextN > prevN) vol[0] = satAdd(vol[0], satMul(nextN - prevN, gStack));
    if (gone > expired) vol[1] = satAdd(vol[1], satMul(gone - expired, gStack));
    if (expired > 0) vol[2] = satAdd(vol[2], satMul(expired, gStack));
  }
  if (key !== -1) out.push([key, vol]);
  return out;
}

/** Spec Order books rule 4: estimates are added to the new book's UTC day page (each figure saturating at 2^53-1). */
export function addVolume(page: VolumePage, estimates: readonly [number, Volume][]): void {
  for (const [key, v] of estimates) {
    const had = page.get(key);
    if (had === undefined) page.set(key, [v[0], v[1], v[2]]);
    else {
      had[0] = satAdd(had[0], v[0]);
      had[1] = satAdd(had[1], v[1]);
      had[2] = satAdd(had[2], v[2]);
    }
  }
}

function compareGroup(a: BookEntry, b: BookEntry): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  if (a[1] !== b[1]) return a[1] - b[1];
  return a[2] - b[2];
}
