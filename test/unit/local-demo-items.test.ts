import { describe, expect, it } from 'vitest';
import { DEMO_MARKETS } from '../../lib/local/demo/demo';
import { DEMO_BUILD, demoItemData } from '../../lib/local/demo/demo-items';
import { twoToneWebp } from '../../lib/local/demo/webp';
import { MarketGenerator } from '../../shared/demo/market-generator';
import { isVariantKey, KEY_BASE } from '../../shared/domain/item-key';
import { parseGeneratedItemFile } from '../../shared/domain/items';

/**
 * Reads a lossless WebP as RFC 9649 describes it, for the subset the demo writes: no transforms, no colour
 * cache, one prefix code group of simple codes (one or two symbols). Anything else throws. Returns ARGB rows.
 */
function decodeSimpleWebp(file: Buffer): { width: number; height: number; pixels: number[][] } {
  expect(file.toString('latin1', 0, 4)).toBe('RIFF');
  expect(file.readUInt32LE(4)).toBe(file.length - 8);
  expect(file.toString('latin1', 8, 16)).toBe('WEBPVP8L');
  const size = file.readUInt32LE(16);
  const data = file.subarray(20, 20 + size);
  let pos = 0;
  const bits = (n: number): number => {
    let v = 0;
    for (let i = 0; i < n; i++, pos++) v |= ((data[pos >> 3] >> (pos & 7)) & 1) << i;
    return v >>> 0;
  };
  expect(bits(8)).toBe(0x2f);
  const width = bits(14) + 1;
  const height = bits(14) + 1;
  bits(1); // alpha hint
  expect(bits(3)).toBe(0);
  if (bits(1)) throw new Error('transforms are outside the subset');
  if (bits(1)) throw new Error('colour cache is outside the subset');
  if (bits(1)) throw new Error('meta prefix codes are outside the subset');
  const codes = [0, 1, 2, 3, 4].map(() => {
    if (!bits(1)) throw new Error('normal prefix codes are outside the subset');
    const count = bits(1) + 1;
    const symbols = [bits(bits(1) ? 8 : 1)];
    if (count === 2) symbols.push(bits(8));
    // canonical code: the smaller symbol is 0
    return symbols.sort((a, b) => a - b);
  });
  const read = (code: number[]): number => (code.length === 1 ? code[0] : code[bits(1)]);
  const pixels: number[][] = [];
  for (let y = 0; y < height; y++) {
    const row: number[] = [];
    for (let x = 0; x < width; x++) {
      const g = read(codes[0]);
      if (g >= 256) throw new Error('back-references are outside the subset');
      const r = read(codes[1]);
      const b = read(codes[2]);
      const a = read(codes[3]);
      row.push(((a << 24) | (r << 16) | (g << 8) | b) >>> 0);
    }
    pixels.push(row);
  }
  expect(Math.ceil(pos / 8)).toBe(size);
  return { width, height, pixels };
}

describe('demo icons: two-colour lossless WebP', () => {
  it('encodes every pixel of a picture as drawn', () => {
    const ink = (x: number, y: number) => (x * 7 + y * 3) % 5 === 0 || x === y;
    const fg = [200, 30, 1] as const;
    const bg = [0, 30, 255] as const;
    const { width, height, pixels } = decodeSimpleWebp(twoToneWebp(56, 56, ink, fg, bg));
    expect([width, height]).toEqual([56, 56]);
    for (let y = 0; y < 56; y++) {
      for (let x = 0; x < 56; x++) {
        const [r, g, b] = ink(x, y) ? fg : bg;
        expect(pixels[y][x]).toBe(((255 << 24) | (r << 16) | (g << 8) | b) >>> 0);
      }
    }
  });

  it('pads the chunk to an even size', () => {
    const odd = twoToneWebp(3, 1, () => true, [1, 2, 3], [4, 5, 6]);
    expect(odd.length % 2).toBe(0);
    expect(decodeSimpleWebp(odd).pixels[0]).toEqual([0xff010203, 0xff010203, 0xff010203]);
  });
});

describe('demo item data', () => {
  const generators = [101, 102].map((seed) => new MarketGenerator({ keys: 2000, entries: 6000, seed }));
  const data = demoItemData(generators.map((g) => g.kinds()));

  it('is a generated item file the service accepts, of the demo build', () => {
    const file = parseGeneratedItemFile(JSON.parse(JSON.stringify(data.file)));
    expect(file.build).toBe(DEMO_BUILD);
    expect(Object.keys(file.items).length).toBeGreaterThan(1000);
  });

  it('names every plain key with a quality and an icon that exists, 56x56', () => {
    const icons = new Map(data.icons.map((i) => [i.name, i.webp]));
    for (const g of generators) {
      for (const key of g.keys) {
        const rec = data.file.items[key % KEY_BASE];
        expect(rec?.n, `key ${key}`).toMatch(/^\S.{1,198}$/);
        expect(rec?.q).toBeGreaterThanOrEqual(0);
        expect(icons.has(rec?.ic ?? '')).toBe(true);
      }
    }
    for (const webp of icons.values()) expect(decodeSimpleWebp(webp)).toMatchObject({ width: 56, height: 56 });
  });

  it('gives every suffix and pet key a catalogue name the upload route accepts', () => {
    const variants = new Set(generators.flatMap((g) => g.keys.filter(isVariantKey)));
    expect(new Set(data.seen.map((s) => s[0]))).toEqual(variants);
    for (const [key, name, quality, icon, flags] of data.seen) {
      expect(name.trim()).toBe(name);
      expect(name.length).toBeGreaterThan(0);
      expect(name.length).toBeLessThanOrEqual(200);
      expect(quality).toBeGreaterThanOrEqual(0);
      expect(quality).toBeLessThanOrEqual(10);
      expect(icon).toBe(0);
      expect(flags).toBeGreaterThanOrEqual(0);
      expect(flags).toBeLessThanOrEqual(7);
      expect(key).toBeGreaterThan(KEY_BASE);
    }
    expect(data.seen.length).toBeLessThanOrEqual(5000);
  });

  /** Issue 25, point 8: no three "Jagged Arrow" (names that read as one item listed three times). */
  it('gives every item, suffix, suffix key and pet its own name, on the demo markets and on larger ones', () => {
    const demoMarkets = DEMO_MARKETS.map((market, i) => new MarketGenerator({ market, keys: 1000, entries: 3000, seed: 101 + i }));
    for (const d of [data, demoItemData(demoMarkets.map((g) => g.kinds()))]) {
      const items = Object.values(d.file.items).map((r) => r.n);
      expect(items.length).toBeGreaterThan(900);
      expect(new Set(items).size).toBe(items.length);
      const suffixes = Object.values(d.file.suffixes);
      expect(new Set(suffixes).size).toBe(suffixes.length);
      const seen = d.seen.map((s) => s[1]);
      expect(new Set([...seen, ...items]).size).toBe(seen.length + items.length);
    }
  });

  it('is the same for the same keys', () => {
    expect(demoItemData(generators.map((g) => g.kinds()))).toEqual(data);
  });
});
