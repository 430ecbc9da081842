/**
 * Day candle closes of some items before a day, for alert evaluation (`ref`, `fair`), read like the
 * single-item answers read day data (compacted history, then day pages), never before the market's earliest
 * data (its first merged book may be a day older than the merge) or outside the 90 retained days.
 */
import { dayOf } from '../clock';
import type { DayClose } from '../domain/alerts';
import { earliestDataAt } from '../domain/book';
import { RETAINED_DAYS } from '../domain/retention';
import type { MarketMeta } from '../ports/market';
import type { Services } from '../services';
import { itemsDays } from './item-read';
import { readSources } from './sources';

/** `[day, close]` of `keys`' day candles on retained days before `beforeDay`, ascending by day. */
export async function dayCloses(
  svc: Pick<Services, 'clock' | 'market'>,
  meta: MarketMeta,
  keys: readonly number[],
  beforeDay: number,
): Promise<Map<number, DayClose[]>> {
  const out = new Map<number, DayClose[]>();
  if (keys.length === 0 || meta.firstMergeAt === null) return out;
  const first = Math.max(beforeDay - RETAINED_DAYS, dayOf(earliestDataAt(meta.firstMergeAt)));
  const days = await itemsDays(readSources(svc), meta.market, keys, first, beforeDay - 1, false);
  for (const [key, d] of days) {
    if (d.candles.size === 0) continue;
    out.set(
      key,
      [...d.candles].sort((a, b) => a[0] - b[0]).map(([day, c]) => [day, c.close] as DayClose),
    );
  }
  return out;
}
