import { HOUR_MS, MINUTE_MS } from '../clock';
import type { Book, BookEntry } from '../domain/book';
import { itemKey, petKey } from '../domain/item-key';
import { DEFAULT_MARKET } from '../domain/market';

/**
 * A deterministic, realistic synthetic market for the demo, tests and benchmarks: item keys of every kind,
 * log-normal prices per item with a slow drift, commodity stack sizes, and books that churn from one to the
 * next the way an auction house does (sales of the cheapest listings, expiries out of the short band,
 * reposts at new prices, fresh postings). Only its own seeded PRNG is used: same options, same books.
 */

export interface MarketGeneratorOptions {
  /** Item keys in the market (default 20000). */
  keys?: number;
  /** Target entries per complete book (default 60000). */
  entries?: number;
  seed?: number;
  market?: string;
  /** `at` of the first book (default 2024-01-01T00:00Z). */
  start?: number;
  /** Time between consecutive books (default 10 minutes). */
  stepMs?: number;
}

export interface NextBookOptions {
  /** Observation time; default the previous book's plus `stepMs`. Must not go back. */
  at?: number;
  /** Default true. An incomplete book lists only a share of the keys, like a filtered read. */
  complete?: boolean;
  /** Share of keys an incomplete book lists (default 0.1). */
  share?: number;
}

/** mulberry32: a tiny, fast, well-mixed 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What sort of item a key is: drives its prices and stacks here, its name and icon in the local demo. */
export type Kind = 'commodity' | 'ammo' | 'misc' | 'gear' | 'pet';

interface ItemModel {
  key: number;
  kind: Kind;
  /** Current fair unit price in copper; drifts book to book. */
  fair: number;
  /** Postings this item usually has alive. */
  depth: number;
}

/** Identical auctions posted together: one entry of the book unless another posting collides with it. */
interface Posting {
  item: ItemModel;
  unit: number;
  stack: number;
  n: number;
  expiresAt: number;
  bidOnly: boolean;
  /** Some readers cannot tell the time left: band 0. */
  unknownBand: boolean;
}

const DEFAULT_START = 1_704_067_200_000;
const DURATIONS = [2 * HOUR_MS, 8 * HOUR_MS, 24 * HOUR_MS];
const STACKS: Record<Kind, readonly number[]> = {
  commodity: [1, 1, 5, 5, 10, 20, 20, 20],
  ammo: [200, 200, 200, 1000],
  misc: [1, 1, 1, 5, 10],
  gear: [1],
  pet: [1],
};

export class MarketGenerator {
  readonly market: string;
  /** Every item key of the market, ascending. */
  readonly keys: number[];
  private readonly rand: () => number;
  private readonly items: ItemModel[];
  private readonly cumulative: Float64Array;
  private readonly target: number;
  private readonly stepMs: number;
  private postings: Posting[] = [];
  private now: number;
  private started = false;

  constructor(options: MarketGeneratorOptions = {}) {
    const keyCount = options.keys ?? 20_000;
    this.target = options.entries ?? 60_000;
    this.rand = mulberry32(options.seed ?? 1);
    this.market = options.market ?? DEFAULT_MARKET;
    this.stepMs = options.stepMs ?? 10 * MINUTE_MS;
    this.now = options.start ?? DEFAULT_START;
    this.items = this.makeItems(keyCount);
    this.keys = this.items.map((i) => i.key).sort((a, b) => a - b);
    this.cumulative = new Float64Array(this.items.length);
    let sum = 0;
    this.items.forEach((item, i) => {
      sum += item.depth;
      this.cumulative[i] = sum;
    });
    // Every item starts with one posting so that a fresh market lists (almost) all keys.
    for (const item of this.items) this.post(item, this.now, true);
    while (this.postings.length < this.target) this.post(this.pickItem(), this.now, true);
  }

  /** Each key's kind of item (the local demo names and draws its items by it). */
  kinds(): Map<number, Kind> {
    return new Map(this.items.map((i) => [i.key, i.kind]));
  }

  /** The next book: advances the market by one step of churn and lists it. */
  nextBook(options: NextBookOptions = {}): Book {
    const at = options.at ?? (this.started ? this.now + this.stepMs : this.now);
    if (at < this.now) throw new RangeError('books must not go back in time');
    if (this.started || at > this.now) this.churn(at);
    this.started = true;
    this.now = at;
    const complete = options.complete ?? true;
    const share = options.share ?? 0.1;
    const listed = complete ? this.postings : this.postings.filter((p) => hashShare(p.item.key) < share);
    return this.list(listed, at, complete);
  }

  private makeItems(count: number): ItemModel[] {
    const seen = new Set<number>();
    const items: ItemModel[] = [];
    while (items.length < count) {
      const r = this.rand();
      let kind: Kind;
      let key: number;
      const id = 1 + Math.floor(this.rand() * 250_000);
      if (r < 0.04) {
        kind = 'pet';
        key = petKey(82_800, 1 + Math.floor(this.rand() * 3_000));
      } else if (r < 0.3) {
        kind = 'gear';
        const suffix = this.rand() < 0.02 ? -(1 + Math.floor(this.rand() * 50)) : 1 + Math.floor(this.rand() * 2_500);
        key = itemKey(id, suffix);
      } else {
        kind = r < 0.55 ? 'commodity' : r < 0.57 ? 'ammo' : r < 0.75 ? 'misc' : 'gear';
        key = id;
      }
      if (seen.has(key)) continue;
      seen.add(key);
      const median = kind === 'commodity' ? 600 : kind === 'ammo' ? 8 : kind === 'misc' ? 2_500 : kind === 'gear' ? 25_000 : 60_000;
      const fair = Math.max(1, Math.round(median * Math.exp(1.4 * this.normal())));
      // Commodities are deep (many sellers, many stack sizes); gear and pets are a listing or two.
      const spread = kind === 'commodity' || kind === 'ammo' ? 1.2 : 0.7;
      const depth = Math.exp(spread * this.normal()) * (kind === 'commodity' ? 6 : kind === 'ammo' ? 4 : 1.5);
      items.push({ key, kind, fair, depth });
    }
    return items;
  }

  private churn(at: number): void {
    const steps = Math.max(1, (at - this.now) / this.stepMs);
    for (const item of this.items) item.fair = Math.max(1, Math.round(item.fair * Math.exp(0.02 * Math.sqrt(steps) * this.normal())));
    const kept: Posting[] = [];
    const reposts: ItemModel[] = [];
    for (const p of this.postings) {
      if (p.expiresAt <= at) {
        if (this.rand() < 0.5) reposts.push(p.item);
        continue;
      }
      // Cheap listings sell first; a bulk posting sells part of its count.
      const cheapness = p.bidOnly ? 0.3 : Math.min(3, p.item.fair / p.unit);
      // Gear and pets are bought slowly: most of them sit until they expire.
      const rate = p.item.kind === 'gear' || p.item.kind === 'pet' ? 0.01 : 0.03;
      const sellP = 1 - (1 - Math.min(0.9, rate * cheapness * cheapness)) ** steps;
      if (this.rand() < sellP) {
        p.n -= 1 + Math.floor(this.rand() * p.n);
        if (p.n <= 0) continue;
      }
      if (this.rand() < 0.002 * steps) continue;
      kept.push(p);
    }
    this.postings = kept;
    for (const item of reposts) this.post(item, at, false);
    while (this.postings.length < this.target) this.post(this.pickItem(), at, false);
  }

  /** A posting alive at `at`: fresh (posted during the last step) or aged (anywhere in its duration). */
  private post(item: ItemModel, at: number, aged: boolean): void {
    const stacks = STACKS[item.kind];
    const stack = stacks[Math.floor(this.rand() * stacks.length)];
    const bidOnly = this.rand() < 0.03;
    const unit = bidOnly ? 0 : Math.max(1, Math.round(item.fair * Math.exp(0.15 * this.normal())));
    const n = this.rand() < 0.8 ? 1 : 1 + Math.floor(this.rand() * (item.kind === 'commodity' ? 12 : 3));
    const duration = DURATIONS[Math.floor(this.rand() * DURATIONS.length)];
    const expiresAt = at + 1 + Math.floor(aged ? this.rand() * duration : duration - this.rand() * Math.min(this.stepMs, duration / 2));
    this.postings.push({ item, unit, stack, n, expiresAt, bidOnly, unknownBand: this.rand() < 0.01 });
  }

  /** Mostly by depth; a share uniformly, so the long tail of rare items keeps coming back to the market. */
  private pickItem(): ItemModel {
    if (this.rand() < 0.4) return this.items[Math.floor(this.rand() * this.items.length)];
    const x = this.rand() * this.cumulative[this.cumulative.length - 1];
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return this.items[lo];
  }

  private list(postings: readonly Posting[], at: number, complete: boolean): Book {
    const raw: BookEntry[] = postings.map((p) => [p.item.key, p.unit, p.stack, p.unknownBand ? 0 : band(p.expiresAt - at), p.n]);
    raw.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]);
    const entries: BookEntry[] = [];
    let auctions = 0;
    for (const e of raw) {
      auctions += e[4];
      const last = entries[entries.length - 1];
      if (last && last[0] === e[0] && last[1] === e[1] && last[2] === e[2] && last[3] === e[3]) last[4] += e[4];
      else entries.push(e);
    }
    return { market: this.market, at, complete, auctions, entries };
  }

  /** Standard normal deviate (Box-Muller). */
  private normal(): number {
    const u = 1 - this.rand();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.rand());
  }
}

/** Time left → band: short < 30 min, medium < 2 h, long < 12 h, very long beyond. */
function band(left: number): number {
  if (left < 30 * MINUTE_MS) return 1;
  if (left < 2 * HOUR_MS) return 2;
  if (left < 12 * HOUR_MS) return 3;
  return 4;
}

/** A stable pseudo-random share in [0, 1) per key, so filtered reads list the same keys each time. */
function hashShare(key: number): number {
  const h = Math.imul((key % 2_147_483_648) ^ Math.floor(key / 2_147_483_648), 0x9e3779b1) >>> 0;
  return h / 4294967296;
}
