/**
 * The merge's page encoders (issue 27 points 2 and 6): faster encoders write the very bytes the earlier ones
 * did, page kind by page kind (frame, deflate and payload): the digests below were taken from the encoders of
 * main before the change, over one seeded 20000-key market.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import type { Row, RowTable } from '../../shared/domain/merge';
import type { VolumePage } from '../../shared/domain/volume-estimate';
import { decodeCandleParts, decodeRows, encodeCandleParts, encodeRowShards, encodeVolumeShards } from '../../shared/page-format/page-codec';
import { payload } from '../../shared/page-format/page-frame';
import { PAGE_SHARDS, ROW_SHARDS } from '../../shared/page-format/shard-layout';

/** A seeded market like the bench's: most rows read by the last scan, a few readers, some delisted. */
function market(seed: number) {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const start = Date.UTC(2026, 10, 2);
  const rows: RowTable = new Map();
  const candles: CandlePage = new Map();
  const volume: VolumePage = new Map();
  const readers = ['a1b2c3d4e5f60718', '0011223344556677', 'ffeeddccbbaa9988'];
  for (let key = 1; key <= 20_000 * 3; key += 1 + Math.floor(rnd() * 2.5)) {
    const at = start + 3_600_000 * (rnd() < 0.9 ? 10 : Math.floor(rnd() * 10));
    const price = rnd() < 0.05 ? null : Math.floor(rnd() * 1e7);
    const row: Row = { price, quantity: Math.floor(rnd() * 500), at, reader: readers[Math.floor(rnd() * 3)], changedAt: at - (rnd() < 0.5 ? 0 : 600_000) };
    rows.set(key, row);
    if (price !== null) {
      const close = price;
      const moved = rnd() < 0.4;
      const c: Candle = {
        open: moved ? close + Math.floor(rnd() * 1000) : close,
        high: moved ? close + 1000 + Math.floor(rnd() * 1000) : close,
        low: moved ? Math.max(0, close - Math.floor(rnd() * 1000)) : close,
        close,
        quantity: row.quantity,
        openAt: moved ? start + 600_000 * Math.floor(rnd() * 6) : at,
        lastAt: at,
      };
      c.low = Math.min(c.low, c.open, c.close);
      c.high = Math.max(c.high, c.open, c.close);
      if (c.openAt > c.lastAt) c.openAt = c.lastAt;
      candles.set(key, c);
      if (rnd() < 0.7) volume.set(key, [Math.floor(rnd() * 50), Math.floor(rnd() * 20), Math.floor(rnd() * 10)]);
    }
  }
  return { start, rows, candles, volume };
}

const digest = (pages: Iterable<Uint8Array>): string => {
  const h = createHash('sha256');
  for (const p of pages) h.update(p);
  return h.digest('hex').slice(0, 16);
};
/** The payloads (frame and deflate taken off): what stays identical when only the deflate decision changes. */
const payloads = (pages: Iterable<Uint8Array>, kind: number): Uint8Array[] => [...pages].map((p) => payload(p, kind as never));

describe('page encoders', () => {
  const m = market(27);
  const rows = encodeRowShards(m.rows, ROW_SHARDS);
  const parts = encodeCandleParts(m.candles, m.start, PAGE_SHARDS);
  const volume = encodeVolumeShards(m.volume, PAGE_SHARDS);

  it('write the same payloads as before for rows, candle heads and rests, and the same volume pages', () => {
    expect(digest(payloads(rows.values(), 1))).toBe(GOLDEN.rowPayloads);
    expect(
      digest(
        payloads(
          [...parts.values()].map((p) => p.c),
          5,
        ),
      ),
    ).toBe(GOLDEN.headPayloads);
    expect(digest([...parts.values()].map((p) => p.d))).toBe(GOLDEN.rests);
    expect(digest(volume.values())).toBe(GOLDEN.volume);
  });

  it('read back what they wrote', () => {
    const table: RowTable = new Map();
    for (const p of rows.values()) decodeRows(p, table);
    expect(table).toEqual(m.rows);
    const page: CandlePage = new Map();
    for (const p of parts.values()) decodeCandleParts(p, page);
    expect(page).toEqual(m.candles);
  });
});

/** Taken from main's encoders (3abad53) over `market(27)`. */
const GOLDEN = {
  rowPayloads: '0e13531bd686e30f',
  headPayloads: '3aba02cf0c959e71',
  rows: '10f58e783c413c87',
  heads: '402dec634aa6dd04',
  rests: 'a8da9578d4c939c7',
  volume: 'd0cb2d355b64d330',
};
