/**
 * A merge's writes as merge-book.ts orders them, over any market port (the in-memory fake in property tests):
 * `pending` first, then rows, day and hour candles, the merge and scan log entries and volume, then the seq commit; reads
 * may run in the middle (`between`).
 */
import { expect } from 'vitest';
import { DAY_MS, dayOf, HOUR_MS, hourOf } from '../../shared/clock';
import type { Candle } from '../../shared/domain/candles';
import { PAGE_SHARDS, shardOf } from '../../shared/page-format/shard-layout';
import type { MarketPort, VolumeShard } from '../../shared/ports/market';

/** A merge as merge-book.ts writes it: `pending` first, then rows, day and hour candles, the merge and scan log entries and volume, then the seq commit. */
export async function mergeWrites(
  M: string,
  market: MarketPort,
  at: number,
  now: number,
  prices: Array<[number, number]>,
  between: () => Promise<void>,
): Promise<void> {
  const store = market.latest;
  const meta = await store.meta(M);
  const seq = meta.seq + 1;
  expect(await store.markPending(M, { uploadId: `u${seq}`, seq, now, changeCap: 'c' })).toBe(true);
  const rows = await store.rows(M);
  for (const [k, price] of prices) rows.set(k, { price, quantity: 1, at, reader: 'r', changedAt: now });
  await store.writeRows(
    M,
    rows,
    prices.map(([k]) => k),
  );
  await between();
  const day = dayOf(at);
  const hour = hourOf(at);
  const changed = prices.map(([k]) => k);
  for (const [res, period, start] of [
    ['d1', day, day * DAY_MS],
    ['h1', hour, hour * HOUR_MS],
  ] as const) {
    const page = await store.candlePage(M, res, period);
    for (const [k, price] of prices) {
      const c: Candle = page.get(k) ?? { open: price, high: price, low: price, close: price, quantity: 0, openAt: at, lastAt: at };
      page.set(k, { ...c, high: Math.max(c.high, price), low: Math.min(c.low, price), close: price, quantity: c.quantity + 1, lastAt: at });
    }
    await store.writeCandlePage(M, res, period, start, page, changed);
  }
  await market.merges.put({
    market: M,
    seq,
    at: Math.max(meta.newestScanAt ?? at, at),
    mergedAt: now,
    changePath: `live/v1/${M}/${seq}-c.json.gz`,
    bookAt: at,
  });
  await market.scans.put({ market: M, at, items: prices.length, complete: false, credited: true, uploader: 'u', mergedAt: now }, `u${seq}`);
  const shards = await store.volumeShards(M, day);
  const touched = new Map<number, VolumeShard>();
  for (const [k] of prices) {
    const s = shardOf(k, PAGE_SHARDS);
    const shard = touched.get(s) ?? shards.get(s) ?? { page: new Map(), bookAt: null };
    const v = shard.page.get(k) ?? [0, 0, 0];
    shard.page.set(k, [v[0] + 1, v[1] + 1, v[2]]);
    touched.set(s, { page: shard.page, bookAt: at });
  }
  await store.writeVolumeShards(M, day, touched);
  await between();
  const committed = await store.commitMeta({ market: M, seq, newestScanAt: at, firstMergeAt: meta.firstMergeAt ?? now - DAY_MS, pending: null }, meta.seq);
  expect(committed).toBe(true);
}
