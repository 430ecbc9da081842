/**
 * Day candle closes of some items before a day, for alert evaluation (`ref`, `fair`): compacted days come
 * from the fine history shards, later days from the day candle pages, never from days before the market's
 * first merge or outside the 90 retained days.
 */
import { dayOf } from '../clock';
import type { DayClose } from '../domain/alerts';
import { RETAINED_DAYS } from '../domain/retention';
import { HISTORY_SHARDS, type MarketMeta, type MarketStore } from '../store/market-store';
import { type HistoryPage, shardOf } from '../store/page-codec';

/** Above this many keys one query of every history shard is cheaper than a read per shard. */
const WHOLE_HISTORY_FROM = 64;

/** `[day, close]` of `keys`' day candles on retained days before `beforeDay`, ascending by day. */
export async function dayCloses(store: MarketStore, meta: MarketMeta, keys: readonly number[], beforeDay: number): Promise<Map<number, DayClose[]>> {
  const out = new Map<number, DayClose[]>();
  if (keys.length === 0 || meta.firstMergeAt === null) return out;
  const first = Math.max(beforeDay - RETAINED_DAYS, dayOf(meta.firstMergeAt));
  const last = beforeDay - 1;
  const add = (key: number, day: number, close: number) => {
    const list = out.get(key);
    if (list) list.push([day, close]);
    else out.set(key, [[day, close]]);
  };
  const compactedThrough = meta.historyThrough ?? first - 1;
  if (compactedThrough >= first) {
    const pages = await historyPages(store, meta.market, keys);
    for (const key of keys) {
      const page = pages.get(shardOf(key, HISTORY_SHARDS));
      if (!page) continue;
      for (const [day, d] of page) {
        const c = day >= first && day <= Math.min(last, compactedThrough) ? d.candles.get(key) : undefined;
        if (c) add(key, day, c.close);
      }
    }
  }
  const from = Math.max(first, compactedThrough + 1);
  if (from <= last) {
    const periods: number[] = [];
    for (let d = from; d <= last; d++) periods.push(d);
    for (const [day, page] of await store.candlesOf(meta.market, 'd1', periods, keys)) for (const [key, c] of page) add(key, day, c.close);
  }
  for (const list of out.values()) list.sort((a, b) => a[0] - b[0]);
  return out;
}

async function historyPages(store: MarketStore, market: string, keys: readonly number[]): Promise<Map<number, HistoryPage>> {
  if (keys.length > WHOLE_HISTORY_FROM) return store.histories(market);
  const shards = new Map<number, number>();
  for (const key of keys) shards.set(shardOf(key, HISTORY_SHARDS), key);
  const out = new Map<number, HistoryPage>();
  await Promise.all([...shards].map(async ([shard, key]) => out.set(shard, await store.historyOf(market, key))));
  return out;
}
