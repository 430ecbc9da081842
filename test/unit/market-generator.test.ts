import { describe, expect, it } from 'vitest';
import { MarketGenerator, mulberry32 } from '../../shared/demo/market-generator';
import { validateBook } from '../../shared/domain/book';
import { deriveScan } from '../../shared/domain/derived-scan';
import { isItemKey, isPetKey, isVariantKey } from '../../shared/domain/item-key';

const small = { keys: 2_000, entries: 6_000 };

describe('mulberry32', () => {
  it('repeats its sequence for a seed and stays in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mulberry32(43)()).not.toBe(xs[0]);
  });
});

describe('MarketGenerator', () => {
  it('produces the same books for the same seed and different books for another', () => {
    const a = new MarketGenerator({ ...small, seed: 3 });
    const b = new MarketGenerator({ ...small, seed: 3 });
    expect([a.nextBook(), a.nextBook()]).toEqual([b.nextBook(), b.nextBook()]);
    expect(new MarketGenerator({ ...small, seed: 4 }).nextBook().entries).not.toEqual(new MarketGenerator({ ...small, seed: 3 }).nextBook().entries);
  });

  it('makes valid keys of every kind', () => {
    const gen = new MarketGenerator({ ...small, seed: 1 });
    expect(gen.keys).toHaveLength(2_000);
    expect(gen.keys.every(isItemKey)).toBe(true);
    expect(new Set(gen.keys).size).toBe(2_000);
    expect(gen.keys.filter(isPetKey).length).toBeGreaterThan(20);
    expect(gen.keys.filter((k) => isVariantKey(k) && !isPetKey(k)).length).toBeGreaterThan(200);
  });

  it('produces consecutive books that the upload validation accepts, near the entry target', () => {
    const gen = new MarketGenerator({ ...small, seed: 2, stepMs: 300_000 });
    let prev = 0;
    for (let i = 0; i < 5; i++) {
      const book = gen.nextBook();
      expect(() => validateBook(book, book.at)).not.toThrow();
      expect(book.at).toBeGreaterThan(prev);
      expect(book.entries.length).toBeGreaterThan(5_500);
      expect(book.entries.length).toBeLessThanOrEqual(6_000);
      prev = book.at;
    }
  });

  it('churns: consecutive books share most entries but not all, and items come and go', () => {
    const gen = new MarketGenerator({ ...small, seed: 9 });
    const a = gen.nextBook();
    const b = gen.nextBook();
    const ids = (entries: typeof a.entries) => new Set(entries.map((e) => e.join('|')));
    const ia = ids(a.entries);
    const shared = [...ids(b.entries)].filter((id) => ia.has(id)).length;
    expect(shared / a.entries.length).toBeGreaterThan(0.6);
    expect(shared / a.entries.length).toBeLessThan(0.99);
    const keysA = new Set(deriveScan(a).items.map((i) => i[0]));
    const keysB = new Set(deriveScan(b).items.map((i) => i[0]));
    expect([...keysA].some((k) => !keysB.has(k))).toBe(true);
    expect([...keysB].some((k) => !keysA.has(k))).toBe(true);
  });

  it('uses realistic stacks, every band and bid-only auctions', () => {
    const book = new MarketGenerator({ ...small, seed: 5 }).nextBook();
    const stacks = new Set(book.entries.map((e) => e[2]));
    for (const s of [1, 5, 20, 200]) expect(stacks.has(s)).toBe(true);
    expect(new Set(book.entries.map((e) => e[3]))).toEqual(new Set([0, 1, 2, 3, 4]));
    expect(book.entries.some((e) => e[1] === 0)).toBe(true);
    expect(book.entries.some((e) => e[4] > 1)).toBe(true);
  });

  it('lists a stable share of keys in incomplete books and honours an explicit at', () => {
    const gen = new MarketGenerator({ ...small, seed: 6 });
    const full = gen.nextBook();
    const part = gen.nextBook({ complete: false, share: 0.1, at: full.at + 60_000 });
    expect(part.complete).toBe(false);
    expect(part.at).toBe(full.at + 60_000);
    expect(() => validateBook(part, part.at)).not.toThrow();
    expect(part.entries.length).toBeLessThan(full.entries.length * 0.2);
    expect(() => gen.nextBook({ at: full.at })).toThrow(RangeError);
  });
});
