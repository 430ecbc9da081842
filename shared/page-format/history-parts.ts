/**
 * History shards past DynamoDB's 400 KB item limit (docs/failure-model.md). A history shard holds every
 * variant of the items in it (variant keys share their item's shard), so one item with hundreds of variants
 * makes one shard's encoded page larger than an item may be. Such a page is split by (key, day) into parts,
 * each a valid history page of its own encoded under PART_BYTES, in key order: a part covers the key range
 * [lo, hi], so a single-item read fetches only the parts whose range holds its key. Pure: no AWS here.
 */
import type { HistoryPage } from '../domain/history';
import { decodeHistory, encodeHistory } from './page-codec';

/** Bytes of one part's encoded page: DynamoDB's 400 KB item limit less room for the key and attributes. */
export const PART_BYTES = 350_000;

/** One stored part: its encoded page and the smallest and largest key in it. */
export interface HistoryPart {
  d: Uint8Array;
  lo: number;
  hi: number;
}

type Entry = readonly [key: number, day: number];

/**
 * Encodes a shard's page as one part when it fits in `bound` bytes, else as several, each under `bound`,
 * ordered by key (a key's days may span neighbouring parts). Bisects the (key, day) entries: the encoding
 * is compressed, so a part's size is only known by encoding it.
 */
export function encodeHistoryParts(page: HistoryPage, shards: number, bound = PART_BYTES): HistoryPart[] {
  const whole = encodeHistory(page, shards);
  if (whole.length <= bound) return [{ d: whole, ...keyRange(entriesOf(page)) }];
  const out: HistoryPart[] = [];
  const split = (entries: readonly Entry[]): void => {
    const d = encodeHistory(subPage(page, entries), shards);
    if (d.length <= bound || entries.length === 1) {
      if (d.length > bound) throw new RangeError(`one history entry encodes to ${d.length} bytes, over ${bound}`);
      out.push({ d, ...keyRange(entries) });
      return;
    }
    const mid = entries.length >> 1;
    split(entries.slice(0, mid));
    split(entries.slice(mid));
  };
  split(entriesOf(page));
  return out;
}

/** The page of all parts together (parts hold disjoint (key, day) entries). */
export function decodeHistoryParts(parts: readonly Uint8Array[]): HistoryPage {
  if (parts.length === 1) return decodeHistory(parts[0]);
  const out: HistoryPage = new Map();
  for (const d of parts) {
    for (const [day, v] of decodeHistory(d)) {
      const into = out.get(day);
      if (!into) out.set(day, v);
      else {
        for (const [k, c] of v.candles) into.candles.set(k, c);
        for (const [k, x] of v.volume) into.volume.set(k, x);
      }
    }
  }
  return out;
}

/** Indexes of the parts whose key range holds `key` (none when no part can hold it). */
export function partsHolding(ranges: ReadonlyArray<readonly [number, number]>, key: number): number[] {
  const out: number[] = [];
  ranges.forEach(([lo, hi], i) => {
    if (lo <= key && key <= hi) out.push(i);
  });
  return out;
}

/** Every (key, day) with a candle or a volume, by key then day. */
function entriesOf(page: HistoryPage): Entry[] {
  const out: Entry[] = [];
  for (const [day, v] of page) {
    const keys = new Set([...v.candles.keys(), ...v.volume.keys()]);
    for (const k of keys) out.push([k, day]);
  }
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

function subPage(page: HistoryPage, entries: readonly Entry[]): HistoryPage {
  const out: HistoryPage = new Map();
  for (const [k, day] of entries) {
    const from = page.get(day);
    if (!from) continue;
    let into = out.get(day);
    if (!into) {
      into = { candles: new Map(), volume: new Map() };
      out.set(day, into);
    }
    const c = from.candles.get(k);
    if (c) into.candles.set(k, c);
    const v = from.volume.get(k);
    if (v) into.volume.set(k, v);
  }
  return out;
}

/** An empty page gets the empty range [0, -1]: no key reads it. */
function keyRange(entries: readonly Entry[]): { lo: number; hi: number } {
  return entries.length === 0 ? { lo: 0, hi: -1 } : { lo: entries[0][0], hi: entries[entries.length - 1][0] };
}
