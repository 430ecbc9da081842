/**
 * The merge's page writes deflate on libuv's pool (issue 27 point 2): the async encoders must store the very
 * bytes the synchronous ones do (golden digests in page-codec-identical.test.ts), for whole pages and for the
 * touched shards only, and a shard asked for but empty still gets its page.
 */
import { describe, expect, it } from 'vitest';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import type { Row, RowTable } from '../../shared/domain/merge';
import { encodeCandleParts, encodeCandlePartsAsync, encodeRowShards, encodeRowShardsAsync } from '../../shared/page-format/page-codec';
import { PAGE_SHARDS, ROW_SHARDS } from '../../shared/page-format/shard-layout';

function market(seed: number, size: number) {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const start = Date.UTC(2026, 10, 2);
  const rows: RowTable = new Map();
  const candles: CandlePage = new Map();
  for (let key = 1; rows.size < size; key += 1 + Math.floor(rnd() * 3)) {
    const at = start + 600_000 * Math.floor(rnd() * 6);
    const price = rnd() < 0.05 ? null : Math.floor(rnd() * 1e6);
    const row: Row = { price, quantity: Math.floor(rnd() * 200), at, reader: rnd() < 0.5 ? 'a1b2c3d4e5f60718' : '0011223344556677', changedAt: at };
    rows.set(key, row);
    if (price !== null) {
      const c: Candle = { open: price + 5, high: price + 9, low: price, close: price, quantity: row.quantity, openAt: start, lastAt: at };
      if (rnd() < 0.5) Object.assign(c, { open: price, high: price, openAt: at });
      candles.set(key, c);
    }
  }
  return { start, rows, candles };
}

describe('async page encoders', () => {
  for (const size of [0, 1, 40, 5000]) {
    it(`store the same bytes as the synchronous ones (${size} keys)`, async () => {
      const m = market(size + 7, size);
      const only = [0, 3, 15];
      expect(await encodeRowShardsAsync(m.rows, ROW_SHARDS)).toEqual(encodeRowShards(m.rows, ROW_SHARDS));
      expect(await encodeRowShardsAsync(m.rows, ROW_SHARDS, only)).toEqual(encodeRowShards(m.rows, ROW_SHARDS, only));
      expect(await encodeCandlePartsAsync(m.candles, m.start, PAGE_SHARDS)).toEqual(encodeCandleParts(m.candles, m.start, PAGE_SHARDS));
      const touched = await encodeCandlePartsAsync(m.candles, m.start, PAGE_SHARDS, only);
      expect(touched).toEqual(encodeCandleParts(m.candles, m.start, PAGE_SHARDS, only));
      expect([...touched.keys()]).toEqual(only);
    });
  }
});
