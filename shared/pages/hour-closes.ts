/**
 * The hourly closes an item page charts (spec api.md Conventions: "Page rendering always uses anonymous,
 * hourly data"): the item's hour candles of the last finished hours, as the anonymous `res=h1` candles
 * answer has them (finished hours only, so nothing read at or after the hour's cut).
 */
import { HOUR_MS } from '../clock';
import { ROLE_LIMITS } from '../domain/roles';
import { candlesInWindow } from '../market/candle-read';
import { candleWindow } from '../market/query-rules';
import { readSources } from '../market/sources';
import type { Services } from '../services';
import { chartHours, type HourClose } from './item-charts';

/** `[t, close, quantity]` of each of the last CHART_HOURS hours finished at `now` that has a candle, oldest first. */
export async function itemHourCloses(svc: Pick<Services, 'clock' | 'market'>, market: string, key: number, now: number): Promise<HourClose[]> {
  const w = candleWindow('h1', now, ROLE_LIMITS.anon.historyDays, chartHours(now).first * HOUR_MS, true);
  const read = await candlesInWindow(readSources(svc, true), market, [key], w);
  return (read.candles.get(key) ?? []).map(([t, , , , close, quantity]) => [t, close, quantity]);
}
