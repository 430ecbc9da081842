/**
 * An eventually consistent side of a market store that lags one write of every history shard (issue 27 point
 * 4's stale replica): a read of one shard (its stamped bytes, its bytes, or the page of keys in it) answers
 * what the shard held before its last write (nothing, before the first); everything else, the compaction mark
 * and compaction's own whole-market read included, is read up to date: the worst case, the newest mark beside
 * the previous shard. Writes must go through it so it learns what each shard held.
 */
import { decodeHistoryParts } from '../../shared/page-format/history-parts';
import { HISTORY_SHARDS, shardOf } from '../../shared/page-format/shard-layout';
import type { MarketPages, StoredHistoryShard } from '../../shared/ports/market';

export function laggingReplica(store: MarketPages): MarketPages {
  const before = new Map<string, StoredHistoryShard>();
  const lagging = Object.create(store) as MarketPages;
  lagging.writeHistories = async (market, pages, through) => {
    for (const s of pages.keys()) before.set(`${market}|${s}`, await store.historyShard(market, s));
    await store.writeHistories(market, pages, through);
  };
  const previous = async (market: string, shard: number): Promise<StoredHistoryShard> =>
    before.get(`${market}|${shard}`) ?? (await store.historyShard(market, shard));
  lagging.historyShard = (market, shard) => previous(market, shard);
  lagging.historyShardBytes = async (market, shard) => (await previous(market, shard)).parts;
  lagging.historyOf = async (market, key) => {
    const keys = typeof key === 'number' ? [key] : key;
    if (keys.length === 0) return new Map();
    const { parts } = await previous(market, shardOf(keys[0], HISTORY_SHARDS));
    return parts.length === 0 ? new Map() : decodeHistoryParts(parts);
  };
  return lagging;
}
