/**
 * The port item pages read market data through (spec api.md Conventions: "Page rendering always uses
 * anonymous, hourly data, even for authenticated visitors"): one item's row and day points exactly as the
 * anonymous hourly answer of `GET /api/v1/ah/:market/:item` gives them.
 */
import { dayOf } from '../clock';
import { ROLE_LIMITS } from '../domain/roles';
import { itemAsOf } from '../market/hourly-view';
import { readSources } from '../market/sources';
import { cutOf, dayPoints, firstWindowDay } from '../market/view-rules';
import type { Services } from '../services';
import type { PageDay, PageRow } from './item-page';

export interface ItemSnapshot {
  row: PageRow | null;
  days: PageDay[];
}

/**
 * The anonymous hourly view of one item at the service clock: its row as of the top of the hour and its day
 * points within the anonymous `historyDays` (the current day rebuilt from hour candles before the cut); no
 * volume. Null when the market has nothing for the key.
 */
export async function itemSnapshotView(svc: Pick<Services, 'clock' | 'market'>, market: string, key: number): Promise<ItemSnapshot | null> {
  const now = svc.clock.now();
  const first = firstWindowDay(now, ROLE_LIMITS.anon.historyDays);
  const view = await itemAsOf(readSources(svc, true), market, key, cutOf(now), first, false);
  const days = dayPoints(view.days.candles, first, dayOf(now));
  return view.row === null && days.length === 0 ? null : { row: view.row, days };
}
