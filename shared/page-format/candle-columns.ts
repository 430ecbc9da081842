/**
 * A candle page shard as typed columns, for the encoder of stored candle parts (page-codec.ts
 * `encodeCandleParts`): one pass over the shard's candles fills every column, and the head and rest are
 * written from them with the very bytes of the per-candle writers (`writeCloseColumns`, `writeCandleRest`).
 * The arrays are sized once for the largest shard of a page and reused for each shard, so encoding a page
 * allocates no per-candle arrays (issue 27 point 2: the merge's garbage).
 */
import type { Candle, CandlePage } from '../domain/candles';
import { dictIndexes, type Writer, writeRle, writeSortedInts } from './page-columns';

/** Candle flags: which values differ from the close (or the open time from the last). */
export const OPEN = 1;
export const HIGH = 2;
export const LOW = 4;
export const SPAN = 8;

export class CandleColumns {
  private n = 0;
  private spans = 0;
  private readonly close: Float64Array;
  private readonly quantity: Float64Array;
  private readonly flags: Uint8Array;
  private readonly low: Float64Array;
  private readonly high: Float64Array;
  private readonly open: Float64Array;
  /** `lastAt - start` of each candle. */
  private readonly last: Float64Array;
  /** `openAt - start` of the candles with SPAN, in order. */
  private readonly opened: Float64Array;
  /** The distinct time offsets of the shard (both times), unsorted. */
  private readonly offsets = new Set<number>();

  constructor(capacity: number) {
    this.close = new Float64Array(capacity);
    this.quantity = new Float64Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.low = new Float64Array(capacity);
    this.high = new Float64Array(capacity);
    this.open = new Float64Array(capacity);
    this.last = new Float64Array(capacity);
    this.opened = new Float64Array(capacity);
  }

  /** Fills the columns with `keys`' candles of `page` (every key has one); returns their count. */
  gather(page: CandlePage, keys: readonly number[], start: number): number {
    const n = keys.length;
    if (n > this.close.length) throw new RangeError('candle columns too small for the shard');
    const { close, quantity, flags, low, high, open, last, opened, offsets } = this;
    offsets.clear();
    let spans = 0;
    let lastAdded = -1;
    for (let i = 0; i < n; i++) {
      const c = page.get(keys[i]) as Candle;
      const cl = c.close;
      close[i] = cl;
      quantity[i] = c.quantity;
      if (c.openAt < start || c.lastAt < start) throw new RangeError('candle time before its page start');
      const lo = c.low;
      const f = (c.open !== cl ? OPEN : 0) | (c.high !== cl ? HIGH : 0) | (lo !== cl ? LOW : 0) | (c.openAt !== c.lastAt ? SPAN : 0);
      flags[i] = f;
      low[i] = cl - lo;
      high[i] = c.high - cl;
      open[i] = c.open - lo;
      const l = c.lastAt - start;
      last[i] = l;
      if (l !== lastAdded) {
        offsets.add(l);
        lastAdded = l;
      }
      if (f & SPAN) {
        const o = c.openAt - start;
        opened[spans++] = o;
        offsets.add(o);
      }
    }
    this.n = n;
    this.spans = spans;
    return n;
  }

  /** The head's columns: closes, then quantities (what `writeCloseColumns` writes). */
  writeHead(w: Writer): void {
    const n = this.n;
    for (let i = 0; i < n; i++) w.uvar(this.close[i]);
    for (let i = 0; i < n; i++) w.uvar(this.quantity[i]);
  }

  /** The rest's columns: flags, extremes, opens and the time dictionary (what `writeCandleRest` writes). */
  writeRest(w: Writer): void {
    const { n, flags, low, high, open } = this;
    writeRle(w, flags.subarray(0, n));
    for (let i = 0; i < n; i++) if (flags[i] & LOW) w.uvar(low[i]);
    for (let i = 0; i < n; i++) if (flags[i] & HIGH) w.uvar(high[i]);
    for (let i = 0; i < n; i++) if (flags[i] & OPEN) w.uvar(open[i]);
    const dict = [...this.offsets].sort((a, b) => a - b);
    writeSortedInts(w, dict);
    writeRle(w, dictIndexes(dict, this.last.subarray(0, n)));
    writeRle(w, dictIndexes(dict, this.opened.subarray(0, this.spans)));
  }
}
