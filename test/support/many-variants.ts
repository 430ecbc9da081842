/**
 * One item with hundreds of variants (caged pets of item 82800) over many days: the data that put one history
 * shard past DynamoDB's 400 KB item limit (variant keys of one item share a shard). Seeded, so every run
 * writes the same bytes; prices and times vary like real books so the page does not compress away.
 */
import { DAY_MS, MINUTE_MS } from '../../shared/clock';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import { petKey } from '../../shared/domain/item-key';
import type { VolumePage } from '../../shared/domain/volume-estimate';
import type { HistoryPage } from '../../shared/ports/market';

export const CAGE_ITEM = 82800;

/** `count` pet-cage keys of item 82800, ascending. */
export const variantKeys = (count: number): number[] => Array.from({ length: count }, (_, i) => petKey(CAGE_ITEM, i + 1));

/** A small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The day candles and volume of `keys` on `day`: prices near a key's own level, a few scans a day. */
export function variantDay(keys: readonly number[], day: number, rand: () => number): { candles: CandlePage; volume: VolumePage } {
  const candles: CandlePage = new Map();
  const volume: VolumePage = new Map();
  const scans = [1, 2, 3, 4].map((i) => day * DAY_MS + (i * 5 * 60 + Math.floor(rand() * 60)) * MINUTE_MS);
  for (const k of keys) {
    const level = 100_000 + (k % 1_000_003) * 37;
    const close = level + Math.floor(rand() * 2_000);
    const moved = rand() < 0.5;
    const low = moved ? close - Math.floor(rand() * 3_000) : close;
    const high = moved ? close + Math.floor(rand() * 3_000) : close;
    const [x, y] = [Math.floor(rand() * 4), Math.floor(rand() * 4)].sort();
    const c: Candle = { open: moved ? low : close, high, low, close, quantity: 1 + Math.floor(rand() * 4), openAt: scans[x], lastAt: scans[y] };
    candles.set(k, c);
    volume.set(k, [Math.floor(rand() * 3), Math.floor(rand() * 3), Math.floor(rand() * 2)]);
  }
  return { candles, volume };
}

/** The history page of `keys` over `days` days ending with `lastDay`. */
export function variantHistory(keys: readonly number[], lastDay: number, days: number, seed = 82800): HistoryPage {
  const rand = prng(seed);
  const page: HistoryPage = new Map();
  for (let d = lastDay - days + 1; d <= lastDay; d++) page.set(d, variantDay(keys, d, rand));
  return page;
}
